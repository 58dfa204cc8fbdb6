package store_test

import (
	"testing"
	"time"

	"github.com/polite-crawler/polite/store"
)

// BoundWait moves only the waiting entries of the host that are due after
// the bound; done entries, other hosts and earlier waits keep theirs.
func TestBoundWait(t *testing.T) {
	db := mustOpen(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	far := time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)
	bound := now.Add(30 * 24 * time.Hour)
	soon := now.Add(time.Hour)
	es := []store.Entry{
		{URL: "https://a.example/far", Host: "a.example", State: store.Queued, NextAt: far},
		{URL: "https://a.example/deferred", Host: "a.example", State: store.Deferred, NextAt: far},
		{URL: "https://a.example/soon", Host: "a.example", State: store.Queued, NextAt: soon},
		{URL: "https://a.example/done", Host: "a.example", State: store.Done, NextAt: far},
		{URL: "https://b.example/far", Host: "b.example", State: store.Queued, NextAt: far},
	}
	if _, err := db.Enqueue("j", es); err != nil {
		t.Fatal(err)
	}
	n, err := db.BoundWait("j", "a.example", bound)
	if err != nil || n != 2 {
		t.Fatalf("BoundWait = %d, %v; want 2 moved", n, err)
	}
	tests := []struct {
		url  string
		want time.Time
	}{
		{"https://a.example/far", bound},
		{"https://a.example/deferred", bound},
		{"https://a.example/soon", soon},
		{"https://a.example/done", far},
		{"https://b.example/far", far},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			e, err := db.Get("j", tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if !e.NextAt.Equal(tt.want) {
				t.Errorf("next_at = %v, want %v", e.NextAt, tt.want)
			}
		})
	}
}
