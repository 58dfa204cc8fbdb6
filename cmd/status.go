package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
)

type statusOptions struct {
	JSON     bool
	Host     string
	Floor    time.Duration
	FloorSet bool // --floor was given
	HalfLife time.Duration
	Runs     int
	Job      string // --job: that job's frontier and dead URLs instead
	Width    int    // the terminal's columns the host table must fit; 0: all columns (--wide, or not a terminal)
	Now      func() time.Time
	Loc      *time.Location // where run start times are shown; time.Local when nil
}

func newStatusCmd(io IO, g *globals) *cobra.Command {
	opts := &statusOptions{Now: time.Now}
	wide := false
	def := pace.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what polite has learned about every host, and the last runs",
		Long: `Show every known host, slowest first: NEXT DELAY is where the next run
starts and what sets it: the stored delay aged by the crawl's half-life
(backoff), the learned limit when the backoff has decayed below it
(learned), the floor, or the cold start (start); in brackets the delay as
last set, when, and whether it has decayed. LEARNED is the shortest gap the
host took without refusal, the gap it refused, and how old that is (it
ages with --learned-half-life; "aged away" once it no longer counts).
FLOOR is the binding floor, as recorded with the host, and where it comes
from (default, floor-host, crawl-delay, request-rate, ratelimit). LAST
SIGNAL is the last congestion signal (429, 503, latency, slow-down,
breaker); HOLD a hold in force (retry-after, quota, breaker, backoff) and
until when; then the time to first byte baseline and the age of the cached
robots.txt. A group's row (hosts paced as one by --pace-by domain or ip)
is under its key, "ip:203.0.113.5" or "domain:example.org", with how many
hosts it has; the groups are listed below it, with their hosts and the
grouping the last run paced by. On a terminal too narrow for them all, the
last columns are left out, and the table says which (--wide shows them
all; piped output always has them all). Below, the exclusion list's rules
(polite exclude), then the last runs (polite runs lists them all).

--host H tells one host's story when H names a host (or a group's key)
exactly or matches only one: where its next run starts and why, what it learned, its hold,
floor and robots.txt, and the last run's signals for it in time order
(429s, 503s, network errors, delays raised, breaker pauses, robots.txt
retry waits); and its revisits, over every job: how many of its URLs
--revisit adaptive asks for again now and within 24 h, and the least,
median and greatest interval their fetches taught. When H matches several hosts, the table lists them; when it
matches none, status says so and exits 1.

The half-lives are those each crawl stored with the host; --half-life
(and --floor) only stand in for hosts stored by an older polite. --job J
shows that job's URLs by state and its dead URLs with their reasons
instead. --json prints numbers, enums and RFC 3339 times.`,
		Example: `  polite status
  polite status --host example.org
  polite status --host api.example.org --json
  polite status --runs 20
  polite status --json | jq '.hosts[] | select(.next_delay_s > 5)'
  polite status --json | jq '.hosts[] | select(.hold) | {host, hold}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withDB(func(db appDB) error {
				opts.FloorSet = cmd.Flags().Changed("floor")
				if io.Width != nil && !wide {
					opts.Width = io.Width()
				}
				if opts.Job != "" {
					if err := findJob(db, &opts.Job); err != nil {
						return err
					}
					return runJobStatus(io.Out, db, opts.Job, opts.JSON)
				}
				return runStatus(io.Out, db, opts)
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	f.BoolVar(&wide, "wide", false, "every column of the host table, however wide the terminal (piped output always has them all)")
	f.StringVar(&opts.Host, "host", "", "one host's story (its exact name, or text only it contains); else the hosts containing this text")
	f.DurationVar(&opts.Floor, "floor", def.Floor, "default floor, as given to crawl")
	f.DurationVar(&opts.HalfLife, "half-life", def.HalfLife, "half-life for hosts stored without one (by an older polite)")
	f.IntVar(&opts.Runs, "runs", 5, "how many recent runs to list")
	f.StringVar(&opts.Job, "job", "", "show this job's frontier: URLs per state and the dead ones with their reasons")
	return cmd
}

// hostStatus is one row of polite status; in JSON, numbers, enums and
// RFC 3339 times only.
type hostStatus struct {
	Host        string         `json:"host"`
	NextDelayS  float64        `json:"next_delay_s"`
	NextFrom    pace.Basis     `json:"next_delay_from"`
	AgedDelayS  float64        `json:"aged_delay_s"` // the backoff aged with the half-life
	StoredS     float64        `json:"stored_delay_s"`
	SetAt       time.Time      `json:"set_at,omitzero"`
	HalfLifeS   float64        `json:"half_life_s"`
	Decayed     bool           `json:"backoff_decayed"`
	Learned     *learnedStatus `json:"learned,omitempty"`
	FloorS      float64        `json:"floor_s"`
	FloorSource string         `json:"floor_source"`
	LastSignal  string         `json:"last_signal,omitempty"`
	SignalAt    time.Time      `json:"last_signal_at,omitzero"`
	Hold        *holdStatus    `json:"hold,omitempty"`
	BaselineMS  float64        `json:"latency_baseline_ms,omitempty"`
	Members     []string       `json:"members,omitempty"` // a group's row: the hosts paced under its key (see groups)
	RobotsAt    time.Time      `json:"robots_fetched_at,omitzero"`
	RobotsAgeS  float64        `json:"robots_age_s,omitempty"`
}

// learnedStatus is a host's learned capacity.
type learnedStatus struct {
	SafeGapS    float64   `json:"safe_gap_s,omitempty"`
	RefusedGapS float64   `json:"refused_gap_s,omitempty"`
	At          time.Time `json:"learned_at"`
	AgeS        float64   `json:"age_s"`
	HalfLifeS   float64   `json:"half_life_s"`
	StartS      float64   `json:"start_s,omitempty"` // where a run starts from it; absent once aged away
	AgedAway    bool      `json:"aged_away"`
}

// holdStatus is a hold in force.
type holdStatus struct {
	Until      time.Time       `json:"until"`
	Reason     pace.HoldReason `json:"reason"`
	RemainingS float64         `json:"remaining_s"`
}

type runRow struct {
	ID        int64     `json:"id"`
	Job       string    `json:"job"`
	Name      string    `json:"job_name,omitempty"` // the job's display name, when it has one
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
	ExitCode  int       `json:"exit_code"`
	DurationS float64   `json:"duration_s,omitempty"`
	Summary   string    `json:"summary"`
	Died      bool      `json:"died,omitempty"`    // no end saved and no heartbeat for frontier.Stale
	PaceBy    string    `json:"pace_by,omitempty"` // what owned a pace: host, domain or ip; absent for a run of an older polite
}

// statusDB is what status reads.
type statusDB interface {
	States() ([]pace.State, error)
	RobotsCopies() ([]frontier.RobotsCopy, error)
	Runs(limit int) ([]frontier.Run, error)
	GetRun(id int64) (frontier.Run, error)
	Robots(host string) (frontier.RobotsCopy, bool, error)
	Fetches(runID int64) ([]frontier.Fetch, error)
	PaceGroups() ([]frontier.PaceMember, error)
	Exclusions() ([]frontier.Exclusion, error)
	HostRevisits(host string, now, soon time.Time) (frontier.HostRevisits, error)
}

// hostRow turns a stored state into a row: pace says where the next run
// starts (floor, ceiling, learned limit, holds and all).
func hostRow(st pace.State, o *statusOptions, now time.Time) hostStatus {
	cfg := pace.DefaultConfig()
	cfg.HalfLife = o.HalfLife
	cfg.Floor = 0 // as recorded with the state
	if o.FloorSet {
		cfg.Floor = o.Floor
	}
	x := pace.Expect(st, cfg, now)
	r := hostStatus{
		Host: st.Host, NextDelayS: x.Delay.Seconds(), NextFrom: x.From, AgedDelayS: x.Backoff.Seconds(),
		StoredS: st.Delay.Seconds(), SetAt: st.SetAt, HalfLifeS: x.HalfLife.Seconds(), Decayed: x.Decayed,
		FloorS: x.Floor.Seconds(), FloorSource: string(x.FloorSource),
		LastSignal: st.LastSignal, SignalAt: st.SignalAt, BaselineMS: float64(st.Baseline.Microseconds()) / 1000,
	}
	if r.LastSignal != "" && r.SignalAt.IsZero() {
		r.SignalAt = st.CongestionAt
	}
	if x.LearnedStored {
		l := &learnedStatus{SafeGapS: st.SafeGap.Seconds(), RefusedGapS: st.RefusedGap.Seconds(), At: st.LearnedAt,
			AgeS: max(0, now.Sub(st.LearnedAt)).Seconds(), HalfLifeS: x.LearnedHalfLife.Seconds(), AgedAway: !x.HasLearned}
		if x.HasLearned {
			l.StartS = x.Learned.Start.Seconds()
		}
		r.Learned = l
	}
	if x.Held {
		r.Hold = &holdStatus{Until: x.Hold.Until.UTC(), Reason: x.Hold.Reason, RemainingS: x.Hold.Until.Sub(now).Seconds()}
	}
	return r
}

func runStatus(w io.Writer, db statusDB, o *statusOptions) error {
	now := o.Now()
	states, err := db.States()
	if err != nil {
		return err
	}
	if o.Host != "" {
		if st, ok := storyTarget(states, o.Host); ok {
			return runHostStory(w, db, st, o, now)
		}
	}
	rows, groups, err := hostRows(db, states, o, now)
	if err != nil {
		return err
	}
	rs, err := listRuns(db, "", o.Runs, now)
	if err != nil {
		return err
	}
	workers, err := liveWorkers(db) // a shared database's crawl workers
	if err != nil {
		return err
	}
	excluded, err := exclusionRows(db)
	if err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Workers    []workerRow    `json:"workers,omitempty"`
			Hosts      []hostStatus   `json:"hosts"`
			Groups     []groupStatus  `json:"groups,omitempty"`
			Exclusions []exclusionRow `json:"exclusions,omitempty"` // polite exclude's rules
			Runs       []runRow       `json:"runs"`
		}{workers, nonNil(rows), groups, excluded, nonNil(rs)})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if _, shared := db.(workerLister); shared {
		writeWorkers(tw, workers, now, o.Loc)
		fmt.Fprintln(tw)
	}
	writeHosts(tw, rows, o.Host, o.Width, now)
	if len(groups) > 0 {
		fmt.Fprintln(tw)
		writeGroups(tw, groups, rs, now)
	}
	if len(excluded) > 0 {
		fmt.Fprintln(tw)
		writeExclusions(tw, excluded, now, o.Loc)
	}
	if len(rs) > 0 {
		fmt.Fprintln(tw)
		writeRuns(tw, rs, now, o.Loc)
	}
	return tw.Flush()
}

// hostRows is status's host table: every learned host (or those --host
// matches) with its pace group and robots.txt age, slowest first.
func hostRows(db statusDB, states []pace.State, o *statusOptions, now time.Time) ([]hostStatus, []groupStatus, error) {
	copies, err := db.RobotsCopies()
	if err != nil {
		return nil, nil, err
	}
	robotsAt := map[string]time.Time{}
	for _, c := range copies {
		robotsAt[c.Host] = c.FetchedAt
	}
	ms, err := db.PaceGroups()
	if err != nil {
		return nil, nil, err
	}
	learned := map[string]bool{}
	for _, st := range states {
		learned[st.Host] = true
	}
	groups := groupRows(ms, learned)
	var rows []hostStatus
	for _, st := range states {
		if o.Host != "" && !strings.Contains(st.Host, o.Host) && !matchesMember(groups, st.Host, o.Host) {
			continue
		}
		r := hostRow(st, o, now)
		r.Members = membersOf(groups, st.Host)
		if t, ok := robotsAt[st.Host]; ok {
			r.RobotsAt, r.RobotsAgeS = t, max(0, now.Sub(t)).Seconds()
		}
		rows = append(rows, r)
	}
	if o.Host != "" && len(rows) == 0 {
		return nil, nil, fmt.Errorf("no known host matches %q (polite status lists them all)", o.Host)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].NextDelayS != rows[j].NextDelayS {
			return rows[i].NextDelayS > rows[j].NextDelayS
		}
		return rows[i].Host < rows[j].Host
	})
	return rows, groups, nil
}

// shortDuration prints a flag's duration without trailing zero units:
// "10m", "1h30m", "90s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ago renders an age the way a person says it: "just now", "42s ago",
// "5m ago", "2h ago", "3d ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
