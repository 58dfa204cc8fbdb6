package cmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

// groupDB is a database where a run paced by ip learned a group of three
// names, beside a host paced alone by an earlier run.
func groupDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = func() time.Time { return fixedNow.Add(-time.Hour) }
	states := []pace.State{
		{Host: "ip:203.0.113.5", Delay: 2 * time.Second, SetAt: fixedNow.Add(-time.Hour), Floor: time.Second, FloorSource: pace.FloorCrawlDelay},
		{Host: "alone.example.net", Delay: 500 * time.Millisecond, SetAt: fixedNow.Add(-2 * time.Hour)},
	}
	if err := db.SaveAll(states); err != nil {
		t.Fatal(err)
	}
	for _, by := range []string{"host", "ip"} {
		run, err := db.BeginRun("sites", fixedNow.Add(-3*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var ms []frontier.PaceMember
		if by == "ip" {
			for _, h := range []string{"www.dept.example", "blog.dept.example", "docs.other.example:8080"} {
				ms = append(ms, frontier.PaceMember{Group: "ip:203.0.113.5", Host: h})
			}
		}
		if err := db.SavePaceGroups(run.ID, by, ms); err != nil {
			t.Fatal(err)
		}
		if err := db.EndRun(run.ID, fixedNow.Add(-time.Hour), 0, "3 done", nil); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// status lists a group's row under its key with how many hosts it has,
// the groups with their hosts, and the grouping each run paced by.
func TestStatusListsPaceGroups(t *testing.T) {
	db := groupDB(t)
	o := &statusOptions{Floor: 500 * time.Millisecond, HalfLife: 10 * time.Minute, Runs: 5, Now: func() time.Time { return fixedNow }, Loc: time.UTC}
	var out bytes.Buffer
	if err := runStatus(&out, db, o); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"\nip:203.0.113.5 (3 hosts)  ",
		"1 pace group: hosts a crawl paced as one (--pace-by domain or ip); the last run (2) paced by ip\n",
		"\nip:203.0.113.5  ip  blog.dept.example, docs.other.example:8080, www.dept.example  1h ago     in the table above\n",
		"paced by ip; 3 done\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("status:\n%s\nwant it to contain %q", text, want)
		}
	}
	if strings.Contains(text, "paced by host;") {
		t.Errorf("status:\n%s\nthe run paced by host (the default) says so", text)
	}

	// --host with a member's name lists its group.
	out.Reset()
	o.Host = "blog.dept"
	if err := runStatus(&out, db, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1 host matching \"blog.dept\"") || !strings.Contains(out.String(), "\nip:203.0.113.5 (3 hosts)  ") {
		t.Errorf("status --host blog.dept:\n%s\nwant the group's row", out.String())
	}

	out.Reset()
	o.Host, o.JSON = "", true
	if err := runStatus(&out, db, o); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hosts  []hostStatus  `json:"hosts"`
		Groups []groupStatus `json:"groups"`
		Runs   []runRow      `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 1 || got.Groups[0].Group != "ip:203.0.113.5" || got.Groups[0].PaceBy != "ip" || len(got.Groups[0].Hosts) != 3 || !got.Groups[0].Learned {
		t.Errorf("JSON groups %+v, want ip:203.0.113.5 by ip with 3 hosts, learned", got.Groups)
	}
	if len(got.Runs) != 2 || got.Runs[0].PaceBy != "ip" || got.Runs[1].PaceBy != "host" {
		t.Errorf("JSON runs %+v, want paced by ip, then by host", got.Runs)
	}
}

// forget of a member says that its group's learned state went with it; a
// group's key forgets the group.
func TestForgetAMemberSaysItsGroupIsForgotten(t *testing.T) {
	db := groupDB(t)
	var out bytes.Buffer
	io := IO{In: strings.NewReader(""), Out: &out, ErrOut: &out}
	if err := runForget(io, db, &forgetOptions{Hosts: []string{"https://blog.dept.example/page"}}); err != nil {
		t.Fatal(err)
	}
	want := "forgot blog.dept.example and what its group ip:203.0.113.5 learned (shared with docs.other.example:8080, www.dept.example)\n"
	if out.String() != want {
		t.Errorf("forget: %q, want %q", out.String(), want)
	}
	if _, ok, err := db.Load("ip:203.0.113.5"); err != nil || ok {
		t.Errorf("the group's state after forgetting a member: kept %v (%v), want dropped", ok, err)
	}
	out.Reset()
	if err := db.SaveAll([]pace.State{{Host: "ip:203.0.113.5", Delay: time.Second}}); err != nil {
		t.Fatal(err)
	}
	if err := runForget(io, db, &forgetOptions{Hosts: []string{"IP:203.0.113.5"}}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "forgot ip:203.0.113.5\n" {
		t.Errorf("forget of a group's key: %q", out.String())
	}
	if _, ok, _ := db.Load("ip:203.0.113.5"); ok {
		t.Error("forget of a group's key kept its state")
	}
	for arg, want := range map[string]string{"ip:8080": "ip:8080", "domain:example.org": "domain:example.org", "https://ip:8443/x": "ip:8443"} {
		if got, err := hostArg(arg); err != nil || got != want {
			t.Errorf("hostArg(%q) = %q, %v; want %q", arg, got, err, want)
		}
	}
}
