package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/store/postgres/pgtest"
)

// pgSchema returns the URL of an empty schema of the test PostgreSQL and
// a connection to it (see pgtest.Schema).
func pgSchema(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	u := pgtest.Schema(t, "cli")
	return u, pgtest.Conn(t, u)
}

// A PostgreSQL that does not answer is an error naming it, exit 2, and
// no file named after the URL.
func TestCLIPostgresUnreachable(t *testing.T) {
	srv := httptest.NewServer(crawltest.New(crawltest.Config{}))
	defer srv.Close()
	seeds := writeFile(t, "s.txt", srv.URL+"/a\n")
	for _, db := range []string{"postgres://polite@127.0.0.1:1/polite", "postgresql://polite:secret@127.0.0.1:1/polite"} {
		for _, args := range [][]string{
			{"crawl", "--db", db, "--out", "out", seeds},
			{"status", "--db", db},
			{"runs", "--db", db},
		} {
			t.Run(args[0]+" "+db[:10], func(t *testing.T) {
				dir := t.TempDir()
				cmd := exec.Command(polite, args...)
				cmd.Dir, cmd.Env = dir, testEnv(t)
				out, err := cmd.CombinedOutput()
				ee, _ := err.(*exec.ExitError)
				if ee == nil || ee.ExitCode() != 2 {
					t.Errorf("exit = %v, want 2\n%s", err, out)
				}
				if !strings.Contains(string(out), "127.0.0.1:1/polite") || strings.Contains(string(out), "secret") {
					t.Errorf("message = %q; want it to name the server 127.0.0.1:1/polite and no password", out)
				}
				if fs, _ := os.ReadDir(dir); len(fs) != 0 {
					t.Errorf("files made in the working folder: %v, want none", fs)
				}
			})
		}
	}
}

// Three workers on one job and one token-bucket host, one killed with
// SIGKILL mid-run: every page is fetched, only what the killed one held
// is fetched twice, and together they never go faster than the one
// shared delay.
func TestCLIPostgresThreeWorkersOneHost(t *testing.T) {
	db, conn := pgSchema(t)
	// The host allows one request per 40ms; the workers share a delay of
	// 50ms (network jitter would make exactly 40ms earn a few 429s).
	const pages, floor, limit = 60, 50 * time.Millisecond, 40 * time.Millisecond
	o, srv := serve(t, crawltest.Config{Rate: 1 / limit.Seconds(), Burst: 1, Log: true})
	var seeds strings.Builder
	for i := range pages {
		fmt.Fprintf(&seeds, "%s/item/%d\n", srv.URL, i)
	}
	seedFile := writeFile(t, "seeds.txt", seeds.String())
	flags := []string{"--floor", floor.String(), "--start", floor.String(), "--ceiling", "3s", "--progress", "never"}
	var ws []*proc
	for i := range 3 {
		args := append([]string{"crawl", "--db", db, "--job", "shared", "--out", filepath.Join(t.TempDir(), fmt.Sprint(i)), seedFile}, flags...)
		ws = append(ws, start(t, args...))
	}
	until(t, "a third of the pages", func() bool { return o.Stats().Requests >= pages/3 })
	st := run(t, "", "status", "--db", db, "--json")
	var live struct {
		Workers []struct{ PID int } `json:"workers"`
	}
	if err := json.Unmarshal([]byte(st.stdout), &live); st.code != 0 || err != nil || len(live.Workers) != 3 {
		t.Errorf("status mid-run: exit %d, %v, workers %+v; want the 3 live workers\n%s", st.code, err, live.Workers, st.stderr)
	}
	killed := ws[1]
	if err := killed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed.wait()
	// Its leases would run out after frontier.Stale; the test ends them
	// now instead of waiting, as that much time passing would.
	tag, err := conn.Exec(context.Background(), `UPDATE frontier SET lease_until = 0 WHERE state = 'in-flight'
		AND lease_owner = (SELECT id FROM workers WHERE pid = $1)`, killed.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	held := int(tag.RowsAffected())
	for _, i := range []int{0, 2} {
		if code := ws[i].wait(); code != 0 {
			t.Errorf("worker %d exit = %d, want 0\n%s", i, code, ws[i].stderr.String())
		}
	}
	t.Logf("killed worker held %d entries; origin saw %d requests in all", held, o.Stats().Requests)
	checkShared(t, o.Stats(), pages, held, floor)
	r := run(t, "", "status", "--db", db, "--job", "shared", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf(`"done": %d`, pages)) {
		t.Errorf("status --job after the crawl: exit %d\n%s%s; want %d done", r.code, r.stdout, r.stderr, pages)
	}
	if r := run(t, "", "runs", "--db", db); r.code != 0 || strings.Count(r.stdout, "shared") != 3 {
		t.Errorf("runs: exit %d\n%s%s; want the 3 runs of job shared", r.code, r.stdout, r.stderr)
	}
}

// checkShared checks what the origin saw of a shared crawl: every page
// answered 200, no page fetched twice beyond the held ones, and no
// second of requests faster than the floor allows.
func checkShared(t *testing.T, s crawltest.Stats, pages, held int, floor time.Duration) {
	t.Helper()
	oks, twice, throttled := map[string]int{}, 0, 0
	var at []time.Time
	for _, r := range s.Log {
		if r.Path == "/robots.txt" {
			continue
		}
		at = append(at, r.At)
		switch r.Status {
		case 200:
			if oks[r.Path]++; oks[r.Path] == 2 {
				twice++
			}
		case 429:
			throttled++
		}
	}
	if len(oks) != pages {
		t.Errorf("pages answered 200: %d, want all %d", len(oks), pages)
	}
	// The killed worker held entries it had taken but not fetched, and
	// at most one in flight (--per-host 1): only that one may come twice.
	if twice > min(held, 1) {
		t.Errorf("pages fetched twice: %d, want at most the one the killed worker had in flight (it held %d)", twice, held)
	}
	// Few 429s: each worker's controller meets the host's limit once
	// while it learns it (one refusal per worker at most); N workers
	// hammering the host would earn one every few requests.
	if throttled > 3 {
		t.Errorf("429s: %d of %d requests, want at most 3 (one per worker)", throttled, len(at))
	}
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	most := int(time.Second/floor) + 1
	for i, j := 0, 0; j < len(at); j++ {
		for at[j].Sub(at[i]) >= time.Second {
			i++
		}
		if j-i+1 > most {
			t.Fatalf("%d requests within one second (from %s), want at most %d at one per %s",
				j-i+1, at[i].Format("15:04:05.000"), most, floor)
		}
	}
}

// proxy forwards loopback connections to addr until cut, which closes the
// listener and every connection: the database server as a worker sees it
// when the network goes away.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, addr string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// A worker that loses its database mid-run stops fetching and exits
// non-zero; what it committed stays.
func TestCLIPostgresLostServer(t *testing.T) {
	db, conn := pgSchema(t)
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	px := newProxy(t, u.Host)
	u.Host = px.ln.Addr().String()
	const pages = 200
	o, srv := serve(t, crawltest.Config{})
	var seeds strings.Builder
	for i := range pages {
		fmt.Fprintf(&seeds, "%s/item/%d\n", srv.URL, i)
	}
	w := start(t, append([]string{"crawl", "--db", u.String(), "--job", "lost", "--out", t.TempDir(), writeFile(t, "s.txt", seeds.String())}, fast...)...)
	until(t, "some pages", func() bool { return o.Stats().Requests >= 20 })
	px.cut()
	code := w.wait()
	after := o.Stats().Requests
	if code == 0 || after >= pages {
		t.Errorf("exit %d after %d of %d requests; want non-zero before the end\n%s", code, after, pages, w.stderr.String())
	}
	if !strings.Contains(w.stderr.String(), u.Host) {
		t.Errorf("stderr does not name the server %s:\n%s", u.Host, w.stderr.String())
	}
	var done int
	if err := conn.QueryRow(context.Background(), `SELECT COUNT(*) FROM frontier WHERE job = 'lost' AND state = 'done'`).Scan(&done); err != nil {
		t.Fatal(err)
	}
	if done == 0 || done > after {
		t.Errorf("%d entries committed done, want some and at most the %d requests made", done, after)
	}
}

// forget on a shared database while a crawl worker is live exits 3 and
// names it (the worker would save its own idea of the host again); once
// the worker has gone quiet, forget goes ahead.
func TestCLIPostgresForgetRefusesWhileWorkersLive(t *testing.T) {
	db, conn := pgSchema(t)
	if r := run(t, "", "status", "--db", db); r.code != 0 {
		t.Fatalf("status (creates the schema): exit %d\n%s", r.code, r.stderr)
	}
	ctx := context.Background()
	const nowNS = `(extract(epoch from clock_timestamp()) * 1e9)::bigint`
	if _, err := conn.Exec(ctx, `INSERT INTO workers (hostname, pid, job, started_at, heartbeat_at)
		VALUES ('crawler-b', 4242, 'nightly', `+nowNS+`, `+nowNS+`)`); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "forget", "--db", db, "example.org")
	if r.code != 3 || !strings.Contains(r.stderr, "pid 4242 on crawler-b, job nightly") {
		t.Errorf("forget with a live worker: exit %d, stderr %q; want 3 naming pid 4242 on crawler-b", r.code, r.stderr)
	}
	if _, err := conn.Exec(ctx, `UPDATE workers SET heartbeat_at = heartbeat_at - 3600e9::bigint`); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "", "forget", "--db", db, "example.org"); r.code != 0 || !strings.Contains(r.stdout, "example.org: nothing known") {
		t.Errorf("forget once the worker is quiet: exit %d, stdout %q, stderr %q; want 0", r.code, r.stdout, r.stderr)
	}
}
