package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// changes wakes the tests that wait for something a background polite or
// an origin does: every origin the tests serve, every line a background
// polite writes and its exit announce themselves on it, and until checks
// its condition again at each.
var changes = newBroadcast()

// broadcast wakes every goroutine waiting on it when notify is called.
type broadcast struct {
	mu sync.Mutex
	ch chan struct{}
}

func newBroadcast() *broadcast { return &broadcast{ch: make(chan struct{})} }

// notify wakes the current waiters.
func (b *broadcast) notify() {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.ch)
	b.ch = make(chan struct{})
}

// next returns a channel closed at the next notify.
func (b *broadcast) next() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ch
}

// until waits for cond, checking it again each time an origin, a
// background polite's output or its exit changes. It has no time limit: a
// condition never met hangs the test until go test's -timeout.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for {
		next := changes.next() // before cond: a change while it runs is not missed
		if cond() {
			return
		}
		<-next
	}
}

// output is a background polite's stdout or stderr: safe to read while
// polite writes it, and each write announced on changes.
type output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	n, err := o.buf.Write(p)
	o.mu.Unlock()
	changes.notify()
	return n, err
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// proc is the binary running in the background.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr output
	done           chan struct{}
	code           int
}

// start runs polite in the background; wait collects its exit code.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(polite, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.Env = testEnv(t)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start polite: %v", err)
	}
	go func() {
		err := p.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			p.code = ee.ExitCode()
		case err != nil:
			p.code = -2
		}
		close(p.done)
		changes.notify()
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for polite to exit and returns its exit code (-1 when a
// signal killed it). It has no time limit, as until.
func (p *proc) wait() int {
	<-p.done
	return p.code
}

// exited reports whether polite has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// pathGate answers the requests for one path only when the test lets them
// through: each arrival is sent on arrived, and the request then waits
// until release is closed (or its client goes away) before h answers it.
// Other paths go to h at once.
type pathGate struct {
	h       http.Handler
	path    string
	arrived chan string
	release chan struct{}
}

func holdPath(h http.Handler, path string) *pathGate {
	return &pathGate{h: h, path: path, arrived: make(chan string, 16), release: make(chan struct{})}
}

func (g *pathGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == g.path {
		select {
		case g.arrived <- r.URL.Path:
		default: // nobody waits for so many
		}
		select {
		case <-g.release:
		case <-r.Context().Done():
			return
		}
	}
	g.h.ServeHTTP(w, r)
}

// tally wraps an origin and counts its 200 answers per path; the
// throttleAt-th request of the server (robots.txt aside) is answered 429
// without Retry-After instead, to teach the crawler a delay.
type tally struct {
	h          http.Handler
	throttleAt int

	mu   sync.Mutex
	n    int
	oks  map[string]int
	seen int
}

func (ta *tally) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		ta.h.ServeHTTP(w, r)
		return
	}
	ta.mu.Lock()
	ta.n++
	throttle := ta.n == ta.throttleAt
	if !throttle {
		ta.oks[r.URL.RequestURI()]++
		ta.seen++
	}
	ta.mu.Unlock()
	changes.notify()
	if throttle {
		http.Error(w, "slow down", http.StatusTooManyRequests)
		return
	}
	ta.h.ServeHTTP(w, r)
}

func (ta *tally) ok(path string) int {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	return ta.oks[path]
}

func (ta *tally) total() int {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	return ta.seen
}

// killAfterAThird starts polite with args and kills it (SIGKILL: no
// chance to save anything) once the tallies have answered a third of
// total; the test fails if the crawl ended first.
func killAfterAThird(t *testing.T, tallies []*tally, total int, args ...string) *proc {
	t.Helper()
	sum := func() int {
		n := 0
		for _, ta := range tallies {
			n += ta.total()
		}
		return n
	}
	p := start(t, args...)
	until(t, "a third of the crawl", func() bool { return sum() >= total/3 })
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.wait()
	if sum() >= total {
		t.Fatalf("the crawl finished before it was killed; the test shows nothing")
	}
	return p
}

func TestCLIKilledCrawlResumesExactlyOnce(t *testing.T) {
	const hosts, perHost = 3, 100
	var (
		tallies []*tally
		servers []*httptest.Server
		seeds   strings.Builder
	)
	for i := 0; i < hosts; i++ {
		ta := &tally{h: crawltest.New(crawltest.Config{}), oks: map[string]int{}}
		if i == 0 {
			ta.throttleAt = 5
		}
		srv := httptest.NewServer(ta)
		t.Cleanup(srv.Close)
		tallies, servers = append(tallies, ta), append(servers, srv)
		for j := 0; j < perHost; j++ {
			fmt.Fprintf(&seeds, "%s/item/%d\n", srv.URL, j)
		}
	}
	seedFile := writeFile(t, "nightly.txt", seeds.String())
	dir := t.TempDir()
	dbPath, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	args := append([]string{"crawl", "--db", dbPath, "--out", out, "--job", "nightly", seedFile}, fast...)
	p := killAfterAThird(t, tallies, hosts*perHost, args...)

	db, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	doneBefore, err := db.Entries("nightly", frontier.Done, 0)
	if err != nil {
		t.Fatal(err)
	}
	throttled := servers[0].Listener.Addr().String()
	st, ok, err := db.Load(throttled)
	// The 429 was written at once; what the delay did after it, at the
	// latest periodic save.
	if err != nil || !ok || st.LastSignal != "429" || st.CongestionAt.IsZero() || st.CongestionDelay <= 0 {
		t.Errorf("learned state of the throttled host after the kill: %+v, %v, %v; want the 429 and the delay it came at", st, ok, err)
	}
	holder, held, err := db.LockHolder()
	if err != nil || !held || holder.PID != p.cmd.Process.Pid {
		t.Errorf("lock after the kill: %+v held %v (%v); want the dead crawl's pid %d", holder, held, err, p.cmd.Process.Pid)
	}
	db.Close()
	if len(doneBefore) == 0 {
		t.Fatalf("nothing was committed as done before the kill")
	}
	oksBefore := map[string]int{}
	for _, e := range doneBefore {
		u := strings.TrimPrefix(e.URL, "http://"+e.Host)
		for i, srv := range servers {
			if srv.Listener.Addr().String() == e.Host {
				oksBefore[e.URL] = tallies[i].ok(u)
			}
		}
	}

	r := run(t, "", args...) // the dead crawl's lock is taken over
	if r.code != 0 {
		t.Fatalf("resumed crawl exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	db, err = store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	counts, err := db.Counts("nightly")
	if err != nil {
		t.Fatal(err)
	}
	if counts[frontier.Done] != hosts*perHost {
		t.Errorf("frontier after the resumed run %v, want all %d done", counts, hosts*perHost)
	}
	twice := 0
	for i, srv := range servers {
		for j := 0; j < perHost; j++ {
			path := fmt.Sprintf("/item/%d", j)
			n := tallies[i].ok(path)
			switch {
			case n == 0:
				t.Errorf("%s%s was never fetched", srv.URL, path)
			case n > 1:
				twice++
			}
		}
	}
	for _, e := range doneBefore {
		u := strings.TrimPrefix(e.URL, "http://"+e.Host)
		for i, srv := range servers {
			if srv.Listener.Addr().String() == e.Host {
				if n := tallies[i].ok(u); n != oksBefore[e.URL] || n != 1 {
					t.Errorf("%s was done before the kill and fetched again (%d times in all)", e.URL, n)
				}
			}
		}
	}
	t.Logf("%d URLs done before the kill, %d fetched twice", len(doneBefore), twice)
	// Only a request in flight at the kill (one per host) may be repeated.
	if twice > hosts {
		t.Errorf("%d URLs fetched twice, want at most %d (those in flight at the kill)", twice, hosts)
	}
	var rep struct {
		Hosts []struct {
			Host         string  `json:"host"`
			StoredStartS float64 `json:"stored_start_s"`
		} `json:"hosts"`
	}
	readJSON(t, filepath.Join(out, "report.json"), &rep)
	found := false
	for _, h := range rep.Hosts {
		if h.Host == throttled {
			found = true
			if want := float64(st.Delay.Milliseconds()) / 1000; h.StoredStartS != want {
				t.Errorf("resumed run started the throttled host from a stored %.3fs, want the %.3fs learned before the kill", h.StoredStartS, want)
			}
		}
	}
	if !found {
		t.Errorf("resumed run's report has no %s", throttled)
	}
	// The 429 is remembered, unless the resumed run met a signal of its
	// own since (on a loaded machine its latency may rise): never lost.
	after, _, _ := db.Load(throttled)
	if kept := after.LastSignal == "429" && after.CongestionAt.Equal(st.CongestionAt); !kept &&
		(after.LastSignal == "" || after.CongestionAt.Before(st.CongestionAt)) {
		t.Errorf("after the resumed run the throttled host's signal is %q at %s, want the 429 of %s remembered", after.LastSignal, after.CongestionAt, st.CongestionAt)
	}
}

func TestCLITwoConcurrentCrawlsOnOneDatabase(t *testing.T) {
	// The first crawl's one request is held until the second crawl has
	// been refused: the first holds the lock all that time, however slow
	// the machine.
	o := crawltest.New(crawltest.Config{})
	gate := holdPath(o, "/held")
	srv := httptest.NewServer(gate)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "polite.db")
	first := start(t, append([]string{"crawl", "--db", dbPath, "--out", filepath.Join(dir, "o1"), "--job", "one",
		writeFile(t, "one.txt", srv.URL+"/held\n")}, fast...)...)
	<-gate.arrived // the first crawl's request is in flight

	r := run(t, "", append([]string{"crawl", "--db", dbPath, "--out", filepath.Join(dir, "o2"), "--job", "two",
		writeFile(t, "two.txt", srv.URL+"/x\n")}, fast...)...)
	close(gate.release)
	if r.code != 3 {
		t.Fatalf("second crawl exit %d, want 3\nstderr:\n%s", r.code, r.stderr)
	}
	host, _ := os.Hostname()
	for _, want := range []string{fmt.Sprintf("pid %d", first.cmd.Process.Pid), "on " + host, "job one", " since "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not name the holder (%q): %s", want, r.stderr)
		}
	}
	if o.Stats().ByPath["/x"] != 0 {
		t.Errorf("the refused crawl made requests")
	}
	if code := first.wait(); code != 0 {
		t.Errorf("first crawl exit %d, want 0\nstderr:\n%s", code, first.stderr.String())
	}
}

func TestCLISignalsSaveStateAndExit(t *testing.T) {
	tests := []struct {
		name  string
		sig   syscall.Signal
		twice bool   // a second signal while the first one's grace runs
		slow  string // the request in flight at the signal
		want  int
	}{
		{"SIGINT", syscall.SIGINT, false, "/slow/300", 130},
		{"SIGTERM", syscall.SIGTERM, false, "/slow/300", 143},
		{"second SIGTERM exits at once", syscall.SIGTERM, true, "/slow/1200", 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The slow request is held until polite has said it got the
			// signal: the signal comes while it is in flight, however
			// slow the machine.
			o := crawltest.New(crawltest.Config{})
			gate := holdPath(o, tt.slow)
			srv := httptest.NewServer(gate)
			t.Cleanup(srv.Close)
			var seeds strings.Builder
			fmt.Fprintf(&seeds, "%s%s\n", srv.URL, tt.slow)
			for i := 0; i < 10; i++ {
				fmt.Fprintf(&seeds, "%s/later/%d\n", srv.URL, i)
			}
			seedFile := writeFile(t, "sig.txt", seeds.String())
			dir := t.TempDir()
			dbPath, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
			args := append([]string{"crawl", "--db", dbPath, "--out", out, "--job", "sig", "--floor-host",
				srv.Listener.Addr().String() + "=30ms", seedFile}, fast...)

			p := start(t, args...)
			<-gate.arrived
			if err := p.cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			until(t, "the first signal's notice", func() bool { return strings.Contains(p.stderr.String(), "again to exit at once") })
			if tt.twice {
				if err := p.cmd.Process.Signal(tt.sig); err != nil {
					t.Fatal(err)
				}
			} else {
				close(gate.release) // the request in flight may finish within the grace
			}
			if code := p.wait(); code != tt.want {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tt.want, p.stderr.String())
			}
			if tt.twice {
				close(gate.release) // for the resumed run
			}

			db, err := store.Open(dbPath) // consistent whichever way it ended
			if err != nil {
				t.Fatal(err)
			}
			counts, err := db.Counts("sig")
			slow, gerr := db.Get("sig", srv.URL+tt.slow)
			_, held, lerr := db.LockHolder()
			db.Close()
			if err != nil || gerr != nil || lerr != nil {
				t.Fatal(err, gerr, lerr)
			}
			if tt.twice && slow.State != frontier.InFlight {
				// At once: polite did not wait for the request in flight,
				// which the test still held.
				t.Errorf("a second signal: the request in flight is %s, want still in flight (polite exited at once)", slow.State)
			}
			if !tt.twice {
				var rep struct {
					ExitCode   int    `json:"exit_code"`
					StopReason string `json:"stop_reason"`
				}
				readJSON(t, filepath.Join(out, "report.json"), &rep)
				if rep.ExitCode != tt.want || rep.StopReason != "interrupted" {
					t.Errorf("report.json exit %d stop %q, want %d interrupted", rep.ExitCode, rep.StopReason, tt.want)
				}
				if counts[frontier.InFlight] != 0 || counts[frontier.Queued] == 0 || held {
					t.Errorf("after the signal: frontier %v, lock held %v; want nothing in flight, the rest queued, the lock released", counts, held)
				}
				if slow.State != frontier.Done {
					t.Errorf("the request in flight at the signal is %s, want done within the grace", slow.State)
				}
			}

			r := run(t, "", args...)
			if r.code != 0 {
				t.Fatalf("resumed crawl exit %d\n%s", r.code, r.stderr)
			}
			for path, n := range o.Stats().ByPath {
				if path != "/robots.txt" && path != tt.slow && n != 1 {
					t.Errorf("%s requested %d times over both runs, want once", path, n)
				}
			}
		})
	}
}

func TestCLIStatusOfAJob(t *testing.T) {
	_, srv := serve(t, crawltest.Config{Robots: "User-agent: *\nDisallow: /private\n"})
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "polite.db")
	seeds := writeFile(t, "docs.txt", fmt.Sprintf("%s/ok\n%s/status/404\n%s/status/410\n%s/private/x\n", srv.URL, srv.URL, srv.URL, srv.URL))
	r := run(t, "", append([]string{"crawl", "--db", dbPath, "--out", filepath.Join(dir, "out"), "--job", "docs", seeds}, fast...)...)
	if r.code != 1 {
		t.Fatalf("crawl exit %d, want 1 (dead URLs)\n%s", r.code, r.stderr)
	}

	r = run(t, "", "status", "--db", dbPath, "--job", "docs")
	if r.code != 0 {
		t.Fatalf("status --job exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"job docs: 4 URLs, 0 waiting", "done 1", "excluded 1", "dead 2",
		srv.URL + "/status/404", "http-404", srv.URL + "/status/410", "http-410"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status --job lacks %q:\n%s", want, r.stdout)
		}
	}

	r = run(t, "", "status", "--db", dbPath, "--job", "docs", "--json")
	var js struct {
		Frontier map[string]int `json:"frontier"`
		Dead     []struct {
			URL    string `json:"url"`
			Reason string `json:"reason"`
		} `json:"dead"`
	}
	if err := decodeJSON(r.stdout, &js); err != nil || len(js.Dead) != 2 || js.Frontier["dead"] != 2 || js.Dead[0].Reason != "http-404" {
		t.Errorf("status --job --json = %+v (%v)\n%s", js, err, r.stdout)
	}

	if r := run(t, "", "status", "--db", dbPath, "--job", "nope"); r.code == 0 || !strings.Contains(r.stderr, `no job "nope"`) {
		t.Errorf("status of an unknown job: exit %d, stderr %q; want an error naming it", r.code, r.stderr)
	}
}

func TestCLIBudgetEndsTheRunWithExit0(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	var seeds strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&seeds, "%s/n/%d\n", srv.URL, i)
	}
	dir := t.TempDir()
	r := run(t, "", append([]string{"crawl", "--db", filepath.Join(dir, "polite.db"), "--out", filepath.Join(dir, "out"),
		"--max-requests", "4", writeFile(t, "b.txt", seeds.String())}, fast...)...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "max-requests") || !strings.Contains(r.stdout, "7 waiting") {
		t.Errorf("summary does not say which budget bound and how many URLs wait:\n%s", r.stdout)
	}
}

func decodeJSON(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// TestCLIKilledCrawlOfManyHostsRepeatsAtMostOnePerHost: on many hosts at
// floor 0 the loop writes the answers in groups (crawl.groupWait), and a
// SIGKILL between two groups still loses at most one URL per host: its
// request in flight, or its answer not yet written, never both, since a
// host gets no request while its last answer waits.
func TestCLIKilledCrawlOfManyHostsRepeatsAtMostOnePerHost(t *testing.T) {
	const hosts, perHost = 40, 15
	var (
		tallies []*tally
		seeds   strings.Builder
	)
	for range hosts {
		ta := &tally{h: crawltest.New(crawltest.Config{}), oks: map[string]int{}}
		srv := httptest.NewServer(ta)
		t.Cleanup(srv.Close)
		tallies = append(tallies, ta)
		for j := range perHost {
			fmt.Fprintf(&seeds, "%s/item/%d\n", srv.URL, j)
		}
	}
	seedFile := writeFile(t, "many.txt", seeds.String())
	dir := t.TempDir()
	args := []string{"crawl", "--db", filepath.Join(dir, "polite.db"), "--out", filepath.Join(dir, "out"), "--job", "many",
		"--floor", "0", "--start", "0", "--progress", "never", seedFile}
	killAfterAThird(t, tallies, hosts*perHost, args...)
	if r := run(t, "", args...); r.code != 0 {
		t.Fatalf("resumed crawl exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	twice := 0
	for i, ta := range tallies {
		again := 0
		for j := range perHost {
			switch n := ta.ok(fmt.Sprintf("/item/%d", j)); {
			case n == 0:
				t.Errorf("host %d: /item/%d was never fetched", i, j)
			case n > 1:
				again += n - 1
			}
		}
		if again > 1 {
			t.Errorf("host %d: %d fetches repeated after the kill, want at most 1 (PerHost)", i, again)
		}
		twice += again
	}
	t.Logf("%d URLs fetched again after the kill, of %d", twice, hosts*perHost)
}
