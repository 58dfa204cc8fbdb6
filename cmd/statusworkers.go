package cmd

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/postgres"
)

// workerRow is one live crawl worker of a shared (PostgreSQL) database.
type workerRow struct {
	ID        int64     `json:"id"`
	Host      string    `json:"host"`
	PID       int       `json:"pid"`
	Job       string    `json:"job"`
	Started   time.Time `json:"started"`
	Heartbeat time.Time `json:"heartbeat"`
}

// workerLister is a database that several crawl workers share.
type workerLister interface {
	Workers(window time.Duration) ([]postgres.Worker, error)
}

// liveWorkers lists the workers heard from within frontier.Stale; nil
// for a database that one crawl holds at a time (SQLite).
func liveWorkers(db any) ([]workerRow, error) {
	wl, ok := db.(workerLister)
	if !ok {
		return nil, nil
	}
	ws, err := wl.Workers(frontier.Stale)
	if err != nil {
		return nil, err
	}
	rows := make([]workerRow, len(ws))
	for i, w := range ws {
		rows[i] = workerRow{ID: w.ID, Host: w.Hostname, PID: w.PID, Job: w.Job, Started: w.Started.UTC(), Heartbeat: w.Heartbeat.UTC()}
	}
	return rows, nil
}

// writeWorkers prints the live workers, or says there are none.
func writeWorkers(tw *tabwriter.Writer, rows []workerRow, now time.Time, loc *time.Location) {
	if len(rows) == 0 {
		fmt.Fprintln(tw, "no live crawl workers")
		return
	}
	if loc == nil {
		loc = time.Local
	}
	fmt.Fprintln(tw, "WORKER\tHOST\tPID\tJOB\tSTARTED\tHEARTBEAT")
	for _, w := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\n", w.ID, w.Host, w.PID, w.Job,
			w.Started.In(loc).Format("2006-01-02 15:04:05"), ago(now.Sub(w.Heartbeat)))
	}
}
