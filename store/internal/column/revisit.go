package column

import (
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Revisit lists the columns of an entry's frontier.Revisit in table
// frontier, in the order of RevisitArgs and RevisitScan.Dest.
const Revisit = `revisit_ns, due_at, fetch_count, change_count, changed_at, last_change`

// RevisitArgs is r as the values of Revisit's columns.
func RevisitArgs(r frontier.Revisit) []any {
	return []any{int64(r.Every), Nanos(r.DueAt), int64(r.Fetches), int64(r.Changes), Nanos(r.ChangedAt), string(r.Change)}
}

// RevisitScan receives Revisit's columns of a row.
type RevisitScan struct {
	every, due, fetches, changes, changedAt int64
	change                                  string
}

// Dest is what a row's Scan fills, in Revisit's order.
func (s *RevisitScan) Dest() []any {
	return []any{&s.every, &s.due, &s.fetches, &s.changes, &s.changedAt, &s.change}
}

// Revisit is the history scanned.
func (s *RevisitScan) Revisit() frontier.Revisit {
	return frontier.Revisit{Every: time.Duration(s.every), DueAt: Time(s.due), Fetches: int(s.fetches),
		Changes: int(s.changes), ChangedAt: Time(s.changedAt), Change: frontier.Change(s.change)}
}
