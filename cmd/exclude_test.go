package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/store"
	"github.com/polite-crawler/polite/store/postgres"
)

func newExcludeDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func excludeOpts(reason string) *excludeOptions {
	return &excludeOptions{Reason: reason, Now: func() time.Time { return fixedNow }, Loc: time.UTC}
}

// Rules go in in normal form, each said back with what it covers; a rule
// already there is said so (its reason replaced when one is given); list
// shows them, remove takes them out, in whatever form they are named.
func TestExcludeAddListRemove(t *testing.T) {
	db := newExcludeDB(t)
	var out bytes.Buffer
	if err := runExcludeAdd(&out, db, []string{"Shop.Example.COM", "*.tracker.example", "HTTP://example.org:80/private/"},
		excludeOpts("asked us to stop")); err != nil {
		t.Fatal(err)
	}
	want := `excluded shop.example.com (host, every port and scheme)
excluded .tracker.example (the name and every name under it)
excluded https://example.org/private/ (URL prefix, under http and https)
`
	if out.String() != want {
		t.Errorf("add said\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	later := excludeOpts("")
	later.Now = func() time.Time { return fixedNow.Add(time.Hour) }
	if err := runExcludeAdd(&out, db, []string{"shop.example.com"}, later); err != nil {
		t.Fatal(err)
	}
	if err := runExcludeAdd(&out, db, []string{".tracker.example"}, excludeOpts("ads")); err != nil {
		t.Fatal(err)
	}
	if want := "shop.example.com: already excluded\n.tracker.example: already excluded; reason updated\n"; out.String() != want {
		t.Errorf("add again said %q, want %q", out.String(), want)
	}

	out.Reset()
	o := excludeOpts("")
	o.Now = func() time.Time { return fixedNow.Add(2 * time.Hour) }
	if err := runExcludeList(&out, db, o); err != nil {
		t.Fatal(err)
	}
	want = `EXCLUDED                      KIND    ADDED                      REASON
.tracker.example              domain  2026-03-14 12:00 (2h ago)  ads
https://example.org/private/  prefix  2026-03-14 12:00 (2h ago)  asked us to stop
shop.example.com              host    2026-03-14 12:00 (2h ago)  asked us to stop
`
	if out.String() != want {
		t.Errorf("list said\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	o.JSON = true
	if err := runExcludeList(&out, db, o); err != nil {
		t.Fatal(err)
	}
	var rows []exclusionRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) != 3 || rows[2].Kind != "host" || !rows[2].AddedAt.Equal(fixedNow) {
		t.Errorf("list --json: %v\n%s", err, out.String())
	}

	out.Reset()
	err := runExcludeRemove(&out, db, []string{"http://EXAMPLE.org/private/", "nowhere.example"})
	if err == nil || !strings.Contains(err.Error(), "not in the exclusion list: nowhere.example") || errors.Is(err, errUsage) {
		t.Errorf("remove with a rule not in the list: %v, want an error naming it (exit 1)", err)
	}
	if !strings.HasPrefix(out.String(), "removed https://example.org/private/") {
		t.Errorf("remove said %q, want the prefix removed (named under http, stored in its normal form)", out.String())
	}
	xs, err := db.Exclusions()
	if err != nil || len(xs) != 2 {
		t.Errorf("after remove: %+v, %v; want the two other rules", xs, err)
	}
	out.Reset()
	if err := runExcludeList(&out, newExcludeDB(t), excludeOpts("")); err != nil || !strings.HasPrefix(out.String(), "no exclusions") {
		t.Errorf("list of an empty list: %q, %v", out.String(), err)
	}
}

// A rule that is none is a usage error naming it, and nothing is added.
func TestExcludeRefusesBadRules(t *testing.T) {
	db := newExcludeDB(t)
	for _, args := range [][]string{{"example.org:8080"}, {"ok.example", "example.org/private"}, {"ftp://example.org/"}} {
		var out bytes.Buffer
		err := runExcludeAdd(&out, db, args, excludeOpts(""))
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), args[len(args)-1]) {
			t.Errorf("add %q: %v, want a usage error naming it", args, err)
		}
		if err := runExcludeRemove(&out, db, args); !errors.Is(err, errUsage) {
			t.Errorf("remove %q: %v, want a usage error", args, err)
		}
	}
	if xs, _ := db.Exclusions(); len(xs) != 0 {
		t.Errorf("bad rules added %+v", xs)
	}
}

// liveDB is a shared database with one live crawl worker.
type liveDB struct{ *store.DB }

func (liveDB) Workers(time.Duration) ([]postgres.Worker, error) {
	return []postgres.Worker{{ID: 7, Hostname: "crawler1", PID: 42, Job: "nightly"}}, nil
}

// Beside live workers of a shared database remove refuses (exit 3),
// naming them, as forget does; add never waits.
func TestExcludeRemoveBesideLiveWorkers(t *testing.T) {
	db := liveDB{newExcludeDB(t)}
	var out bytes.Buffer
	if err := runExcludeAdd(&out, db, []string{"a.example"}, excludeOpts("")); err != nil {
		t.Fatalf("add beside live workers: %v, want it done", err)
	}
	err := runExcludeRemove(&out, db, []string{"a.example"})
	if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "worker 7 (pid 42 on crawler1, job nightly)") ||
		!strings.Contains(err.Error(), "run exclude remove when they have ended") {
		t.Errorf("remove beside a live worker: %v, want store.ErrLocked naming it", err)
	}
	if xs, _ := db.Exclusions(); len(xs) != 1 {
		t.Errorf("the rule was removed beside a live worker")
	}
	if code := exitCode(err); code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
}

// status shows the rules between the hosts and the runs, and in its JSON.
func TestStatusShowsTheExclusionList(t *testing.T) {
	db := openFixture(t)
	var out bytes.Buffer
	if err := runExcludeAdd(&out, db, []string{".tracker.example"}, excludeOpts("ads everywhere")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runStatus(&out, db, storyOpts("", false)); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	rule := strings.Index(text, ".tracker.example  domain  2026-03-14 12:00 (just now)  ads everywhere")
	if rule < 0 || rule < strings.Index(text, "HOST") || rule > strings.Index(text, "RUN ") {
		t.Errorf("status does not show the rule between the hosts and the runs:\n%s", text)
	}
	out.Reset()
	if err := runStatus(&out, db, storyOpts("", true)); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Exclusions []exclusionRow `json:"exclusions"`
	}
	if err := json.Unmarshal(out.Bytes(), &st); err != nil || len(st.Exclusions) != 1 || st.Exclusions[0].Rule != ".tracker.example" ||
		st.Exclusions[0].Kind != "domain" || st.Exclusions[0].Reason != "ads everywhere" {
		t.Errorf("status --json exclusions = %+v, %v", st.Exclusions, err)
	}
}

// Through Main: the exit codes of the table.
func TestExcludeExitCodes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "polite.db")
	tests := []struct {
		args     []string
		code     int
		inStderr string
	}{
		{[]string{"exclude", "add", "a.example"}, 0, ""},
		{[]string{"exclude", "add", "a.example:81"}, 2, "covers every port"},
		{[]string{"exclude", "add"}, 2, "requires at least 1 arg"},
		{[]string{"exclude", "bogus"}, 2, `unknown command "bogus" for polite exclude`},
		{[]string{"exclude", "list"}, 0, ""},
		{[]string{"exclude", "remove", "b.example"}, 1, "not in the exclusion list: b.example"},
		{[]string{"exclude", "remove", "a.example"}, 0, ""},
	}
	for _, tt := range tests {
		code, _, errOut := runMain(t, append([]string{"--db", db}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.inStderr) {
			t.Errorf("polite %s: exit %d, stderr %q; want %d and %q", strings.Join(tt.args, " "), code, errOut, tt.code, tt.inStderr)
		}
	}
	code, out, _ := runMain(t, "exclude", "remove", "--help")
	if code != 0 || !strings.Contains(out, "3    crawl workers of a shared (PostgreSQL) database are live") {
		t.Errorf("exclude remove --help: exit %d, no exit code table:\n%s", code, out)
	}
}
