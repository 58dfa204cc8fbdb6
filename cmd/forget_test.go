package cmd

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// fixtureHostsBut returns the fixture's hosts, sorted, but those given.
func fixtureHostsBut(but ...string) []string {
	var out []string
	for _, h := range []string{"api.example.org", "breaker.example.com", "docs.example.org", "held.example.net", "learned.example.com",
		"quota.example.io", "rl.example.io", "shop.example.com:8443", "slow.example.net", "stale.example.org"} {
		if !slices.Contains(but, h) {
			out = append(out, h)
		}
	}
	return out
}

func TestForget(t *testing.T) {
	tests := []struct {
		name        string
		opts        forgetOptions
		stdin       string
		interactive bool
		locked      bool
		wantOut     string // stdout, exactly
		wantErr     error  // errors.Is; nil for none
		wantLeft    []string
	}{
		{name: "one host", opts: forgetOptions{Hosts: []string{"api.example.org"}},
			wantOut: "forgot api.example.org\n", wantLeft: fixtureHostsBut("api.example.org")},
		{name: "given as a URL, in capitals", opts: forgetOptions{Hosts: []string{"https://API.Example.org/some/page"}},
			wantOut: "forgot api.example.org\n", wantLeft: fixtureHostsBut("api.example.org")},
		{name: "host with a port, and one unknown", opts: forgetOptions{Hosts: []string{"shop.example.com:8443", "nowhere.example"}},
			wantOut: "forgot shop.example.com:8443\nnowhere.example: nothing known\n", wantLeft: fixtureHostsBut("shop.example.com:8443")},
		{name: "all, with --yes", opts: forgetOptions{All: true, Yes: true}, wantOut: "forgot 10 hosts\n"},
		{name: "all, asked and confirmed", opts: forgetOptions{All: true}, interactive: true, stdin: "y\n", wantOut: "forgot 10 hosts\n"},
		{name: "all, asked and declined", opts: forgetOptions{All: true}, interactive: true, stdin: "\n",
			wantOut: "nothing forgotten\n", wantLeft: fixtureHostsBut()},
		{name: "all, not at a terminal, without --yes", opts: forgetOptions{All: true}, wantErr: errUsage,
			wantLeft: fixtureHostsBut()},
		{name: "nothing named", opts: forgetOptions{}, wantErr: errUsage},
		{name: "hosts and --all", opts: forgetOptions{All: true, Hosts: []string{"api.example.org"}}, wantErr: errUsage},
		{name: "not a host", opts: forgetOptions{Hosts: []string{"http://"}}, wantErr: errUsage},
		{name: "while a crawl runs", opts: forgetOptions{Hosts: []string{"api.example.org"}}, locked: true, wantErr: store.ErrLocked,
			wantLeft: fixtureHostsBut()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openFixture(t)
			if tt.locked {
				if err := db.Acquire(frontier.Holder{PID: os.Getpid(), Hostname: "another-machine", Job: "nightly", Since: time.Now()}); err != nil {
					t.Fatal(err)
				}
			}
			var out, errOut bytes.Buffer
			o := tt.opts
			o.Interactive = func() bool { return tt.interactive }
			err := runForget(IO{In: strings.NewReader(tt.stdin), Out: &out, ErrOut: &errOut}, db, &o)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tt.wantOut)
			}
			if tt.interactive && !strings.Contains(errOut.String(), "[y/N]") {
				t.Errorf("stderr %q: no question asked", errOut.String())
			}
			if tt.wantErr == nil || tt.wantLeft != nil {
				states, err := db.States()
				if err != nil {
					t.Fatal(err)
				}
				var left []string
				for _, s := range states {
					left = append(left, s.Host)
				}
				if strings.Join(left, " ") != strings.Join(tt.wantLeft, " ") {
					t.Errorf("hosts left %v, want %v", left, tt.wantLeft)
				}
			}
			if holder, held, _ := db.LockHolder(); held && !tt.locked {
				t.Errorf("forget left the lock held by %+v", holder)
			}
		})
	}
}

func TestForgetDropsRobotsCopies(t *testing.T) {
	db := openFixture(t)
	var out bytes.Buffer
	if err := runForget(IO{In: strings.NewReader(""), Out: &out, ErrOut: &out}, db, &forgetOptions{Hosts: []string{"slow.example.net"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := db.Robots("slow.example.net"); err != nil || ok {
		t.Errorf("robots.txt copy of a forgotten host: kept %v (%v), want dropped", ok, err)
	}
	if _, ok, err := db.Robots("api.example.org"); err != nil || !ok {
		t.Errorf("robots.txt copy of another host: kept %v (%v), want kept", ok, err)
	}
}
