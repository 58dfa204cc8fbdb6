package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
)

// A group's learned state is kept under its key beside the hosts' own;
// a run keeps the grouping it paced by, and each host its group under
// each grouping (a later run's answer replaces an earlier one).
func testPaceGroups(t *testing.T, v *env) {
	group := pace.State{Host: "ip:203.0.113.5", Delay: 2 * time.Second, SetAt: T0, SafeGap: 1500 * time.Millisecond, LearnedAt: T0}
	if err := v.db.SaveAll([]pace.State{group, {Host: "a.example", Delay: time.Second, SetAt: T0}}); err != nil {
		t.Fatalf("SaveAll: %v", err)
	}
	st, ok, err := v.db.Load("ip:203.0.113.5")
	if err != nil || !ok || st.Delay != group.Delay || st.SafeGap != group.SafeGap {
		t.Errorf("Load(ip:203.0.113.5) = %+v, %v, %v; want the group's state", st, ok, err)
	}
	run, err := v.db.BeginRun("job", T0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.db.SavePaceGroups(run.ID, "ip", nil); err != nil {
		t.Fatalf("SavePaceGroups(no members): %v", err)
	}
	members := []frontier.PaceMember{
		{By: "ip", Group: "ip:203.0.113.5", Host: "b.example"},
		{By: "ip", Group: "ip:203.0.113.5", Host: "A.Example"},
		{By: "ip", Group: "ip:192.0.2.1", Host: "c.example:8080"},
	}
	if err := v.db.SavePaceGroups(run.ID, "ip", members); err != nil {
		t.Fatalf("SavePaceGroups: %v", err)
	}
	v.clock.Advance(time.Minute)
	// A later run by domain, and c.example:8080's address moved.
	if err := v.db.SavePaceGroups(0, "domain", []frontier.PaceMember{{Group: "domain:example", Host: "a.example"}}); err != nil {
		t.Fatal(err)
	}
	if err := v.db.SavePaceGroups(0, "ip", []frontier.PaceMember{{Group: "ip:192.0.2.2", Host: "c.example:8080"}}); err != nil {
		t.Fatal(err)
	}
	got, err := v.db.PaceGroups()
	if err != nil {
		t.Fatalf("PaceGroups: %v", err)
	}
	later := T0.Add(time.Minute)
	want := []frontier.PaceMember{
		{By: "domain", Group: "domain:example", Host: "a.example", SeenAt: later},
		{By: "ip", Group: "ip:192.0.2.2", Host: "c.example:8080", SeenAt: later},
		{By: "ip", Group: "ip:203.0.113.5", Host: "a.example", SeenAt: T0},
		{By: "ip", Group: "ip:203.0.113.5", Host: "b.example", SeenAt: T0},
	}
	if len(got) == len(want) {
		for i := range got {
			equalTimes(t, got[i].Host+" ", timeField{"SeenAt", &got[i].SeenAt, &want[i].SeenAt})
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PaceGroups =\n%+v\nwant\n%+v", got, want)
	}
	r, err := v.db.GetRun(run.ID)
	if err != nil || r.PaceBy != "ip" {
		t.Errorf("GetRun: PaceBy %q, %v; want ip", r.PaceBy, err)
	}
	rs, err := v.db.Runs(0)
	if err != nil || len(rs) != 1 || rs[0].PaceBy != "ip" {
		t.Errorf("Runs = %+v, %v; want the run paced by ip", rs, err)
	}
	if err := v.db.SavePaceGroups(run.ID, "ip", []frontier.PaceMember{{Host: "x.example"}}); err == nil {
		t.Error("SavePaceGroups of a member without a group: no error")
	}
}

// Forgetting a host paced in a group drops the group's learned state with
// its membership; the other members stay members, and the group's key
// may be forgotten by itself.
func testForgetGroup(t *testing.T, v *env) {
	states := []pace.State{{Host: "ip:203.0.113.5", Delay: 2 * time.Second, SetAt: T0},
		{Host: "ip:192.0.2.1", Delay: 3 * time.Second, SetAt: T0}, {Host: "b.example", Delay: time.Second, SetAt: T0}}
	if err := v.db.SaveAll(states); err != nil {
		t.Fatal(err)
	}
	err := v.db.SavePaceGroups(0, "ip", []frontier.PaceMember{{Group: "ip:203.0.113.5", Host: "a.example"},
		{Group: "ip:203.0.113.5", Host: "b.example"}, {Group: "ip:192.0.2.1", Host: "c.example"}})
	if err != nil {
		t.Fatal(err)
	}
	left := func() (hosts, members []string) {
		t.Helper()
		sts, err := v.db.States()
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range sts {
			hosts = append(hosts, st.Host)
		}
		ms, err := v.db.PaceGroups()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			members = append(members, m.Group+" "+m.Host)
		}
		return hosts, members
	}
	if n, err := v.db.Forget("a.example"); err != nil || n != 1 {
		t.Errorf("Forget(a.example) = %d, %v; want 1 (known as a member)", n, err)
	}
	hosts, members := left()
	if want := []string{"b.example", "ip:192.0.2.1"}; !reflect.DeepEqual(hosts, want) {
		t.Errorf("after forgetting a.example, states %v; want %v (its group's gone)", hosts, want)
	}
	if want := []string{"ip:192.0.2.1 c.example", "ip:203.0.113.5 b.example"}; !reflect.DeepEqual(members, want) {
		t.Errorf("after forgetting a.example, members %v; want %v", members, want)
	}
	if n, err := v.db.Forget("ip:192.0.2.1"); err != nil || n != 1 {
		t.Errorf("Forget(ip:192.0.2.1) = %d, %v; want 1", n, err)
	}
	hosts, members = left()
	if want := []string{"b.example"}; !reflect.DeepEqual(hosts, want) {
		t.Errorf("after forgetting the group ip:192.0.2.1, states %v; want %v", hosts, want)
	}
	if want := []string{"ip:203.0.113.5 b.example"}; !reflect.DeepEqual(members, want) {
		t.Errorf("after forgetting the group ip:192.0.2.1, members %v; want %v", members, want)
	}
	if _, err := v.db.Forget(); err != nil {
		t.Fatal(err)
	}
	if hosts, members := left(); len(hosts)+len(members) != 0 {
		t.Errorf("after forgetting all: states %v, members %v; want none", hosts, members)
	}
}
