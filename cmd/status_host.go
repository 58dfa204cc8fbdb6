package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/robots"
	"github.com/polite-crawler/polite/store"
)

// storyRuns is how many of the latest runs polite status --host reads to
// find the last one that touched the host.
const storyRuns = 50

// storyAgent is the robots.txt product token the story reads a host's
// robots.txt for: polite's own, as a crawl with no --robots-agent has it.
const storyAgent = "polite"

// hostStory is polite status --host H when H names one host: its row of
// the table, what robots.txt said, and the last run's signals for it in
// time order. In JSON, numbers, enums and RFC 3339 times only.
type hostStory struct {
	hostStatus
	DefaultFloorS float64      `json:"default_floor_s"` // --floor, where the binding floor is another
	Robots        *robotsStory `json:"robots_txt,omitempty"`
	Revisits      revisitStory `json:"revisits"`
	LastRun       *runStory    `json:"last_run,omitempty"`
}

// revisitSoon is the window polite status --host counts the URLs due in.
const revisitSoon = 24 * time.Hour

// revisitStory is how the host's URLs stand in their revisit schedules,
// over every job (store's HostRevisits).
type revisitStory struct {
	URLs         int     `json:"urls"`
	Waiting      int     `json:"waiting"`        // queued, deferred or in flight: asked for at the next run
	DueNow       int     `json:"due_now"`        // fetched, and due again now
	DueSoon      int     `json:"due_within_24h"` // fetched, due again after now but within 24 h
	Learned      int     `json:"learned"`        // URLs with a learned interval
	MinEveryS    float64 `json:"interval_min_s"`
	MedianEveryS float64 `json:"interval_median_s"`
	MaxEveryS    float64 `json:"interval_max_s"`
}

func revisitsOf(r frontier.HostRevisits) revisitStory {
	return revisitStory{URLs: r.URLs, Waiting: r.Waiting, DueNow: r.DueNow, DueSoon: r.DueSoon, Learned: r.Learned,
		MinEveryS: r.MinEvery.Seconds(), MedianEveryS: r.MedianEvery.Seconds(), MaxEveryS: r.MaxEvery.Seconds()}
}

// robotsStory is the cached robots.txt of a host.
type robotsStory struct {
	Status      int       `json:"status"`
	Access      string    `json:"access"` // parsed, allow-all, unreachable
	Bytes       int       `json:"bytes"`
	FetchedAt   time.Time `json:"fetched_at"`
	Expires     time.Time `json:"expires,omitzero"`
	Group       string    `json:"group,omitempty"`         // the user-agent line that applies to polite; "" for none
	Usage       []string  `json:"content_usage,omitempty"` // that group's Content-Usage lines, as written
	TDMRep      []string  `json:"tdmrep_json,omitempty"`   // the rules of the tdmrep.json kept with it (tdmRepOf)
	CrawlDelayS float64   `json:"crawl_delay_s,omitempty"`
	RequestGapS float64   `json:"request_rate_gap_s,omitempty"` // Request-rate as a gap
}

// runStory is the host's share of the last run that touched it.
type runStory struct {
	ID          int64         `json:"id"`
	Job         string        `json:"job"`
	Start       time.Time     `json:"start"`
	End         time.Time     `json:"end"`
	Requests    int           `json:"requests"`
	S429        int           `json:"429"`
	S503        int           `json:"503"`
	Errors      int           `json:"errors"`
	DelayStartS float64       `json:"delay_start_s"`
	DelayMaxS   float64       `json:"delay_max_s"`
	DelayEndS   float64       `json:"delay_end_s"`
	Robots      string        `json:"robots"`
	Usage       []string      `json:"usage,omitempty"` // the usage preferences the host sent (report.json's usage)
	Stopped     frontier.Stop `json:"stopped"`
	From        string        `json:"from"` // report (report.json), or fetches (the fetch records of a run that saved no report)
	Signals     []storySignal `json:"signals"`
}

// SignalKind is what happened to a host at a moment of a run.
type SignalKind string

// The signals of a host's story.
const (
	SignalThrottled   SignalKind = "throttled"     // a 429 or 503
	SignalNetError    SignalKind = "network-error" // no answer
	SignalRaised      SignalKind = "delay-raised"  // the delay rose on an answer that was not a refusal: latency or a slow-down page
	SignalBreaker     SignalKind = "breaker"       // the latency breaker paused the host
	SignalRobotsRetry SignalKind = "robots-retry"  // robots.txt unreachable: the host waited to ask again
)

// storySignal is one signal, at a time.
type storySignal struct {
	At          time.Time  `json:"at"`
	AtS         float64    `json:"t"` // seconds since the run started
	Kind        SignalKind `json:"kind"`
	Status      int        `json:"status,omitempty"`
	DelayS      float64    `json:"delay_s,omitempty"`       // the delay after it
	RetryAfterS float64    `json:"retry_after_s,omitempty"` // the wait it asked for
	SpanS       float64    `json:"span_s,omitempty"`        // a pause's length
}

// storyTarget returns the state polite status --host tells the story of:
// the host named exactly, else the only host whose name contains the text;
// false when the text matches several hosts (the table shows them) or none.
func storyTarget(states []pace.State, text string) (pace.State, bool) {
	var only []pace.State
	for _, st := range states {
		if st.Host == text {
			return st, true
		}
		if strings.Contains(st.Host, text) {
			only = append(only, st)
		}
	}
	if len(only) == 1 {
		return only[0], true
	}
	return pace.State{}, false
}

// runHostStory writes one host's story, as text or JSON.
func runHostStory(w io.Writer, db statusDB, st pace.State, o *statusOptions, now time.Time) error {
	s := hostStory{hostStatus: hostRow(st, o, now), DefaultFloorS: o.Floor.Seconds()}
	c, ok, err := db.Robots(st.Host)
	if err != nil {
		return err
	}
	if ok {
		s.RobotsAt, s.RobotsAgeS = c.FetchedAt, max(0, now.Sub(c.FetchedAt)).Seconds()
		s.Robots = robotsOf(c)
	}
	rv, err := db.HostRevisits(st.Host, now, now.Add(revisitSoon))
	if err != nil {
		return err
	}
	s.Revisits = revisitsOf(rv)
	if s.LastRun, err = lastRunOf(db, st.Host); err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return writeStory(w, s, now, o.Loc)
}

// robotsOf reads a cached robots.txt for the story.
func robotsOf(c frontier.RobotsCopy) *robotsStory {
	rb := robots.FromResponse(c.Status, c.Body)
	r := &robotsStory{Status: c.Status, Bytes: len(c.Body), FetchedAt: c.FetchedAt.UTC(), Expires: c.Expires.UTC()}
	switch rb.Access {
	case robots.Parsed:
		r.Access = "parsed"
	case robots.AllowAll:
		r.Access = "allow-all"
	default:
		r.Access = "unreachable"
	}
	g := rb.Group(storyAgent)
	r.Group, r.CrawlDelayS, r.RequestGapS = g.Name, g.CrawlDelay.Seconds(), g.RequestRate.Interval().Seconds()
	for _, u := range rb.UsageRules(storyAgent) {
		r.Usage = append(r.Usage, fmt.Sprintf("line %d: %s", u.Line, u.Text))
	}
	r.TDMRep = tdmRepOf(c.TDMRep)
	return r
}

// lastRunOf finds the newest of the latest runs whose report names host,
// and tells its share of it; nil when none did.
func lastRunOf(db statusDB, host string) (*runStory, error) {
	runs, err := db.Runs(storyRuns)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.EndedAt.IsZero() {
			// Still running, or died: no report, but its fetch records.
			fs, err := db.Fetches(r.ID)
			if err != nil {
				return nil, err
			}
			if rs := fetchStory(r, host, fs); rs != nil {
				return rs, nil
			}
			continue
		}
		full, err := db.GetRun(r.ID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var rep report.Report
		if len(full.Report) == 0 || json.Unmarshal(full.Report, &rep) != nil {
			continue // a run that saved no report, or one this polite cannot read
		}
		for _, h := range rep.Hosts {
			if h.Host == host {
				rs := runStoryOf(r, rep.Start, h)
				for _, u := range rep.Usage {
					if u.Host == host {
						rs.Usage = u.Signals
					}
				}
				return rs, nil
			}
		}
	}
	return nil, nil
}

func runStoryOf(r frontier.Run, start time.Time, h *report.HostStats) *runStory {
	rs := &runStory{
		ID: r.ID, Job: r.Job, Start: r.StartedAt.UTC(), End: r.EndedAt.UTC(), Requests: h.Requests,
		S429: h.S429, S503: h.S503, Errors: h.Errors,
		DelayStartS: h.DelayStartS, DelayMaxS: h.DelayMaxS, DelayEndS: h.DelayEndS, Robots: h.Robots, Stopped: h.Stopped,
	}
	if start.IsZero() {
		start = r.StartedAt
	}
	rs.Signals, rs.From = signalsOf(h, start), "report"
	return rs
}

// fetchStory tells host's share of a run that saved no report (still
// running, or died) from its fetch records: the refusals and network
// errors; nil when the run made no request to host.
func fetchStory(r frontier.Run, host string, fs []frontier.Fetch) *runStory {
	rs := &runStory{ID: r.ID, Job: r.Job, Start: r.StartedAt.UTC(), From: "fetches", Signals: []storySignal{}}
	for _, f := range fs {
		if f.Host != host {
			continue
		}
		if rs.Requests == 0 {
			rs.DelayStartS = f.Delay.Seconds()
		}
		rs.Requests++
		rs.DelayMaxS, rs.DelayEndS = max(rs.DelayMaxS, f.Delay.Seconds()), f.Delay.Seconds()
		g := storySignal{At: f.FetchedAt.UTC(), AtS: f.FetchedAt.Sub(r.StartedAt).Seconds(), Status: f.Status, DelayS: f.Delay.Seconds()}
		switch {
		case f.Status == 429 || f.Status == 503:
			g.Kind = SignalThrottled
			if f.Status == 429 {
				rs.S429++
			} else {
				rs.S503++
			}
		case f.Status == 0:
			g.Kind = SignalNetError
			rs.Errors++
		default:
			continue
		}
		rs.Signals = append(rs.Signals, g)
	}
	if rs.Requests == 0 {
		return nil
	}
	return rs
}
