package postgres

import (
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// The seed source, the last run of a job and bounded waits mean on
// PostgreSQL what they mean on SQLite.
func TestSeedSourceLastRunAndBoundWait(t *testing.T) {
	c := newClock()
	db := mustOpen(t, newSchema(t), c)

	if _, ok, err := db.SeedSource("j"); ok || err != nil {
		t.Fatalf("SeedSource of a new job = %v, %v; want none", ok, err)
	}
	want := frontier.SeedSource{Job: "j", Name: "/srv/seeds.txt", Size: 42, ModTime: t0, SHA256: "ab12",
		Seeds: 3, Origins: []string{"http://a.example", "https://b.example:8443"}, LoadedAt: t0.Add(time.Minute)}
	if err := db.PutSeedSource(want); err != nil {
		t.Fatal(err)
	}
	want.Size = 43
	if err := db.PutSeedSource(want); err != nil {
		t.Fatalf("PutSeedSource again: %v", err)
	}
	got, ok, err := db.SeedSource("j")
	if err != nil || !ok || !got.ModTime.Equal(want.ModTime) || !got.LoadedAt.Equal(want.LoadedAt) {
		t.Fatalf("SeedSource = %+v, %v, %v; want %+v", got, ok, err, want)
	}
	got.ModTime, got.LoadedAt, want.ModTime, want.LoadedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SeedSource = %+v, want %+v", got, want)
	}
	if err := db.PutSeedSource(frontier.SeedSource{Job: "j", Origins: []string{"a\nb"}}); err == nil {
		t.Error("PutSeedSource with an origin holding a newline: nil error")
	}

	if _, ok, err := db.LastRun("j"); ok || err != nil {
		t.Fatalf("LastRun of a job without runs = %v, %v", ok, err)
	}
	if _, err := db.BeginRun("j", t0); err != nil {
		t.Fatal(err)
	}
	second, err := db.BeginRun("j", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.BeginRun("other", t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if r, ok, err := db.LastRun("j"); err != nil || !ok || r.ID != second.ID {
		t.Errorf("LastRun(j) = %+v, %v, %v; want run %d", r, ok, err, second.ID)
	}

	far := t0.Add(10 * 365 * 24 * time.Hour)
	es := []frontier.Entry{
		{Job: "j", URL: "http://h.example/1", Host: "h.example", State: frontier.Queued, NextAt: far},
		{Job: "j", URL: "http://h.example/2", Host: "h.example", State: frontier.Queued, NextAt: t0},
		{Job: "j", URL: "http://g.example/1", Host: "g.example", State: frontier.Queued, NextAt: far},
	}
	if _, err := db.Enqueue("j", es); err != nil {
		t.Fatal(err)
	}
	latest := t0.Add(6 * time.Hour)
	if n, err := db.BoundWait("j", "h.example", latest); err != nil || n != 1 {
		t.Errorf("BoundWait = %d, %v; want 1 entry moved", n, err)
	}
	qs, err := db.QueuedHosts("j")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if q.Host == "g.example" && q.NextAt.Before(far) {
			t.Errorf("g.example's wait moved to %v: BoundWait touched another host", q.NextAt)
		}
	}
	if n, err := db.BoundWait("j", "h.example", latest); err != nil || n != 0 {
		t.Errorf("BoundWait again = %d, %v; want nothing left to move", n, err)
	}
}
