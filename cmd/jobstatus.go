package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// jobStatusDB is what polite status --job reads.
type jobStatusDB interface {
	Counts(job string) (map[frontier.State]int, error)
	Entries(job string, s frontier.State, limit int) ([]frontier.Entry, error)
}

// jobStatus is a job's frontier: how many URLs stand in each state, and
// the dead ones with their reasons.
type jobStatus struct {
	Job      string         `json:"job"`
	URLs     int            `json:"urls"`
	Frontier map[string]int `json:"frontier"`
	Waiting  int            `json:"waiting"` // queued, deferred or in flight: the next run's work
	Dead     []deadRow      `json:"dead"`
}

type deadRow struct {
	URL        string          `json:"url"`
	Reason     frontier.Reason `json:"reason"`
	Attempts   int             `json:"attempts"`
	LastStatus int             `json:"last_status,omitempty"`
	FetchedAt  time.Time       `json:"fetched_at,omitzero"`
}

// jobStates is the order states are listed in.
var jobStates = []frontier.State{frontier.Done, frontier.NotModified, frontier.Excluded, frontier.Dead,
	frontier.Queued, frontier.Deferred, frontier.InFlight}

// runJobStatus prints a job's frontier counts and its dead URLs.
func runJobStatus(w io.Writer, db jobStatusDB, job string, asJSON bool) error {
	counts, err := db.Counts(job)
	if err != nil {
		return err
	}
	st := jobStatus{Job: job, Frontier: map[string]int{}, Dead: []deadRow{}}
	for s, n := range counts {
		st.Frontier[string(s)] = n
		st.URLs += n
	}
	if st.URLs == 0 {
		return fmt.Errorf("no job %q in the database", job)
	}
	st.Waiting = counts[frontier.Queued] + counts[frontier.Deferred] + counts[frontier.InFlight]
	dead, err := db.Entries(job, frontier.Dead, 0)
	if err != nil {
		return err
	}
	for _, e := range dead {
		st.Dead = append(st.Dead, deadRow{URL: e.URL, Reason: e.Reason, Attempts: e.Attempts,
			LastStatus: e.LastStatus, FetchedAt: e.FetchedAt})
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "job %s: %d URLs, %d waiting for the next run\n", job, st.URLs, st.Waiting)
	var parts []string
	for _, s := range jobStates {
		parts = append(parts, fmt.Sprintf("%s %d", s, counts[s]))
	}
	fmt.Fprintf(tw, "  %s\n", strings.Join(parts, ", "))
	if len(st.Dead) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "DEAD URL\tREASON\tATTEMPTS\tLAST STATUS")
		for _, d := range st.Dead {
			status := "-"
			if d.LastStatus != 0 {
				status = fmt.Sprint(d.LastStatus)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", d.URL, d.Reason, d.Attempts, status)
		}
	}
	return tw.Flush()
}
