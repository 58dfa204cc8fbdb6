package store_test

import (
	"errors"
	"testing"

	"github.com/polite-crawler/polite/store"
)

func TestRecordWritesABatchInOneTransaction(t *testing.T) {
	db := mustOpen(t)
	run, err := db.BeginRun("j", t0)
	if err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, db, "j", entry("a.example", "/1", 0), entry("a.example", "/2", 0))
	taken, err := db.Take("j", "a.example", t0, 2)
	if err != nil || len(taken) != 2 {
		t.Fatalf("Take = %v, %v; want 2 entries", taken, err)
	}
	done := taken[0]
	done.State, done.LastStatus, done.FetchedAt = store.Done, 200, t0
	added := []store.Entry{entry("a.example", "/3", 0), entry("b.example", "/", 0), entry("a.example", "/1", 0)}
	fetch := store.Fetch{RunID: run.ID, URL: done.URL, Host: done.Host, Status: 200, FetchedAt: t0, Attempts: 1}

	n, err := db.Record("j", added, []store.Entry{done}, []store.Fetch{fetch})
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	if n != 2 {
		t.Errorf("Record added %d entries, want 2 (one was already there)", n)
	}
	got, err := db.Get("j", done.URL)
	if err != nil || got.State != store.Done || got.LastStatus != 200 {
		t.Errorf("Get(%s) = %+v, %v; want done with status 200", done.URL, got, err)
	}
	fs, err := db.Fetches(run.ID)
	if err != nil || len(fs) != 1 || fs[0].URL != done.URL {
		t.Errorf("Fetches = %+v, %v; want the one fetch", fs, err)
	}

	// A batch with an unknown entry writes nothing at all.
	ghost := done
	ghost.ID, ghost.URL = 0, "https://a.example/ghost"
	_, err = db.Record("j", []store.Entry{entry("c.example", "/", 0)}, []store.Entry{ghost}, []store.Fetch{fetch})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Record with an unknown entry: err = %v, want ErrNotFound", err)
	}
	if _, err := db.Get("j", "https://c.example/"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the failed batch's new entry was written: Get err = %v", err)
	}
	if fs, _ := db.Fetches(run.ID); len(fs) != 1 {
		t.Errorf("the failed batch's fetch was written: %d fetches, want 1", len(fs))
	}
}
