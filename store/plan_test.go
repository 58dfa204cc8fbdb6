package store

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// TestQueryPlans keeps the frontier's hot queries on their index: a
// million-URL job must never be scanned or sorted whole to take a URL.
func TestQueryPlans(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	tests := []struct {
		name string
		sql  string
		args []any
		want string // in the plan
	}{
		{"take", takeSQL, []any{"j", frontier.Queued, "h", int64(0), 10}, "USING INDEX frontier_queue (job=? AND state=? AND host=?)"},
		{"queued hosts", queuedHostsSQL, []any{"j", frontier.Queued}, "USING COVERING INDEX frontier_queue (job=? AND state=?)"},
		{"counts", countsSQL, []any{"j"}, "USING COVERING INDEX frontier_queue (job=?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := queryPlan(t, db, tt.sql, tt.args...)
			if !strings.Contains(plan, tt.want) {
				t.Errorf("plan = %q, want %q", plan, tt.want)
			}
			for _, bad := range []string{"SCAN frontier", "TEMP B-TREE"} {
				if strings.Contains(plan, bad) {
					t.Errorf("plan = %q, want no %q", plan, bad)
				}
			}
		})
	}
}

func queryPlan(t *testing.T, db *DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.c.r.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var (
			id, parent, unused int
			detail             string
		)
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatalf("explain: %v", err)
		}
		lines = append(lines, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("explain: %v", err)
	}
	return strings.Join(lines, "; ")
}
