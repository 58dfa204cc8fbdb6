package main

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// usageOrigin serves each usage signal on loopback: a robots.txt
// Content-Usage path rule, a Content-Usage header, a tdm-reservation
// header and an HTML meta; /ok says only search=n. It counts requests by
// path and keeps the User-Agents it saw.
type usageOrigin struct {
	mu     sync.Mutex
	hits   map[string]int
	agents []string
}

func (o *usageOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.hits[r.URL.Path]++
	o.agents = append(o.agents, r.UserAgent())
	o.mu.Unlock()
	switch r.URL.Path {
	case "/robots.txt":
		w.Write([]byte("User-agent: *\nAllow: /\nContent-Usage: /nomine/ train-ai=n\n"))
	case "/header":
		w.Header().Set("Content-Usage", "train-ai=n")
		w.Write([]byte("secret: header"))
	case "/tdm":
		w.Header().Set("Tdm-Reservation", "1")
		w.Write([]byte("secret: tdm"))
	case "/meta":
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><meta name="tdm-reservation" content="1"></head><body>secret: meta</body></html>`))
	case "/.well-known/tdmrep.json":
		w.Write([]byte(`[{"location": "/tdmpath/*", "tdm-reservation": 1}]`))
	case "/nomine/x", "/tdmpath/x":
		w.Write([]byte("secret: path rule"))
	default:
		w.Header().Set("Content-Usage", "search=n")
		w.Write([]byte("fine"))
	}
}

func (o *usageOrigin) count(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[path]
}

// TestCLIUsagePurpose crawls the origin with --purpose train-ai and
// --warc, then without a purpose, through the binary.
func TestCLIUsagePurpose(t *testing.T) {
	o := &usageOrigin{hits: map[string]int{}}
	srv := httptest.NewServer(o)
	t.Cleanup(srv.Close)
	var seeds strings.Builder
	for _, p := range []string{"/header", "/tdm", "/meta", "/nomine/x", "/tdmpath/x", "/ok"} {
		seeds.WriteString(srv.URL + p + "\n")
	}
	seedFile := writeFile(t, "usage.txt", seeds.String())
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := append([]string{"crawl", "--db", filepath.Join(dir, "p.db"), "--out", out, "--warc", "--purpose", "train-ai"}, fast...)
	r := run(t, "", append(args, seedFile)...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, clipText(r.stderr))
	}
	for _, p := range []string{"/nomine/x", "/tdmpath/x"} {
		if n := o.count(p); n != 0 {
			t.Errorf("%s requested %d times, want 0", p, n)
		}
	}
	if n := o.count("/.well-known/tdmrep.json"); n != 1 {
		t.Errorf("tdmrep.json requested %d times during the crawl, want 1", n)
	}
	o.mu.Lock()
	ua := o.agents[0]
	o.mu.Unlock()
	if !strings.Contains(ua, "; purpose: train-ai)") {
		t.Errorf("User-Agent %q does not announce the purpose", ua)
	}
	var rep struct {
		ExitCode int `json:"exit_code"`
		Usage    []struct {
			Host     string
			Signals  []string
			Excluded []struct {
				Rule string
				URLs int
			}
		}
	}
	readJSON(t, filepath.Join(out, "report.json"), &rep)
	if len(rep.Usage) != 1 || len(rep.Usage[0].Excluded) != 5 {
		t.Errorf("report.json usage %+v, want one host with 5 excluding rules", rep.Usage)
	}
	// The summary names every exclusion's rule.
	for _, rule := range []string{
		"Content-Usage: train-ai=n",
		"tdm-reservation header: tdm-reservation=1",
		"tdm-reservation meta: tdm-reservation=1",
		"robots.txt line 3: Content-Usage: /nomine/ train-ai=n",
		"tdmrep.json: tdm-reservation=1 (rule 0, location /tdmpath/*)",
	} {
		if want := "1 URL of " + srv.Listener.Addr().String() + " excluded by usage preferences: train-ai refused by " + rule + "\n"; !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	// No refused body in the output folder or its WARC files; each left
	// out is named in a metadata record.
	var warcText strings.Builder
	filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		if strings.HasSuffix(path, ".warc.gz") {
			zr, err := gzip.NewReader(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			b, _ = io.ReadAll(zr)
			warcText.Write(b)
		}
		if strings.Contains(string(b), "secret: ") {
			t.Errorf("%s keeps a refused body", path)
		}
		return nil
	})
	if got := strings.Count(warcText.String(), "WARC-Type: metadata"); got != 3 {
		t.Errorf("%d metadata records, want 3 (the refused answers)", got)
	}
	// Each refused answer is a metadata record naming its URL, status and
	// rule, and never a request or response record.
	refused := map[string]string{"/header": "Content-Usage: train-ai=n", "/tdm": "tdm-reservation", "/meta": "tdm-reservation"}
	for p, rule := range refused {
		var types []string
		for _, rec := range strings.Split(warcText.String(), "WARC/1.1\r\n")[1:] {
			if strings.Contains(rec, "\r\nWARC-Target-URI: "+srv.URL+p+"\r\n") {
				types = append(types, warcField(rec, "WARC-Type"))
				if warcField(rec, "WARC-Type") == "metadata" && (!strings.Contains(rec, "\r\nstatus: 200\r\n") ||
					!strings.Contains(rec, "\r\nnot-kept: excluded by usage: train-ai refused by ") || !strings.Contains(rec, rule)) {
					t.Errorf("%s: metadata record names no status 200 or no rule %q:\n%s", p, rule, rec)
				}
			}
		}
		if strings.Join(types, ",") != "metadata" {
			t.Errorf("%s: records %q, want one metadata record alone", p, types)
		}
	}
	if !strings.Contains(warcText.String(), "purpose: train-ai\r\n") {
		t.Error("warcinfo names no purpose")
	}

	// A second run within --robots-ttl (another job, same database) asks
	// for neither robots.txt nor tdmrep.json again: both come from the
	// copy the first run kept, and tdmrep.json's path rule still keeps
	// /tdmpath/x from being asked for.
	args = append([]string{"crawl", "--db", filepath.Join(dir, "p.db"), "--out", filepath.Join(dir, "again"), "--job", "again",
		"--purpose", "train-ai"}, fast...)
	if r := run(t, "", append(args, seedFile)...); r.code != 0 {
		t.Fatalf("second run: exit %d\n%s", r.code, clipText(r.stderr))
	}
	for p, want := range map[string]int{"/robots.txt": 1, "/.well-known/tdmrep.json": 1, "/tdmpath/x": 0, "/nomine/x": 0} {
		if n := o.count(p); n != want {
			t.Errorf("after the second run: %s requested %d times in all, want %d", p, n, want)
		}
	}
	rep.Usage = nil
	readJSON(t, filepath.Join(dir, "again", "report.json"), &rep)
	if len(rep.Usage) != 1 || len(rep.Usage[0].Excluded) != 5 {
		t.Errorf("second run: report.json usage %+v, want one host with 5 excluding rules", rep.Usage)
	}

	// status --host shows what the origin declared: robots.txt's lines and
	// what the last run read from its answers.
	host := srv.Listener.Addr().String()
	st := run(t, "", "status", "--db", filepath.Join(dir, "p.db"), "--host", host)
	for _, want := range []string{"usage", "robots.txt line 3: Content-Usage: /nomine/ train-ai=n",
		"tdmrep.json rule 0, location /tdmpath/*: tdm-reservation=1\n",
		"tdm-reservation header: tdm-reservation=1 (last run)", "Content-Usage: search=n (last run)"} {
		if !strings.Contains(st.stdout, want) {
			t.Errorf("status --host %s lacks %q:\n%s", host, want, st.stdout)
		}
	}

	// Without --purpose: recorded, nothing excluded.
	out2 := filepath.Join(dir, "out2")
	args = append([]string{"crawl", "--db", filepath.Join(dir, "p2.db"), "--out", out2}, fast...)
	if r := run(t, "", append(args, seedFile)...); r.code != 0 {
		t.Fatalf("without purpose: exit %d\n%s", r.code, clipText(r.stderr))
	}
	rep.Usage = nil
	readJSON(t, filepath.Join(out2, "report.json"), &rep)
	if len(rep.Usage) != 1 || len(rep.Usage[0].Signals) < 5 || len(rep.Usage[0].Excluded) != 0 {
		t.Errorf("without purpose: usage %+v, want the signals and nothing excluded", rep.Usage)
	}
	if n := o.count("/nomine/x"); n != 1 {
		t.Errorf("without purpose: /nomine/x requested %d times, want 1", n)
	}
	if n := o.count("/.well-known/tdmrep.json"); n != 1 {
		t.Errorf("without purpose: tdmrep.json requested again (%d in all, want 1)", n)
	}
}

// warcField is the value of a WARC record's field name ("" when absent);
// rec is the record's text after its version line.
func warcField(rec, name string) string {
	head, _, _ := strings.Cut(rec, "\r\n\r\n")
	for _, line := range strings.Split(head, "\r\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && k == name {
			return v
		}
	}
	return ""
}

// robots check --purpose explains each decision known before fetching,
// through the binary: a robots.txt Content-Usage line, a tdmrep.json path
// rule, and a URL neither refuses. It reads tdmrep.json with robots.txt
// and caches both, as a crawl does, and without --purpose never asks for
// it.
func TestCLIRobotsCheckUsage(t *testing.T) {
	o := &usageOrigin{hits: map[string]int{}}
	srv := httptest.NewServer(o)
	t.Cleanup(srv.Close)
	db := filepath.Join(t.TempDir(), "p.db")
	check := func(args ...string) result {
		return run(t, "", append([]string{"robots", "check", "--db", db}, args...)...)
	}
	urls := []string{srv.URL + "/nomine/x", srv.URL + "/tdmpath/x", srv.URL + "/ok"}

	if r := check(urls...); r.code != 0 || strings.Contains(r.stdout, "usage") {
		t.Errorf("without --purpose: exit %d, want 0 and no usage lines\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := o.count("/.well-known/tdmrep.json"); n != 0 {
		t.Errorf("without --purpose: tdmrep.json requested %d times, want 0", n)
	}

	for i, how := range []string{"200", "cached"} {
		r := check(append([]string{"--purpose", "train-ai"}, urls...)...)
		if r.code != 1 {
			t.Fatalf("check %d: exit %d, want 1 (a purpose refused)\n%s%s", i, r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{
			"  tdmrep.json   " + how + "\n",
			"  usage         robots.txt line 3: Content-Usage: /nomine/ train-ai=n\n",
			"  purpose       train-ai refused by robots.txt line 3: Content-Usage: /nomine/ train-ai=n\n",
			"  usage         tdmrep.json: tdm-reservation=1 (rule 0, location /tdmpath/*)\n",
			"  purpose       train-ai refused by tdmrep.json: tdm-reservation=1 (rule 0, location /tdmpath/*)\n",
			"  usage         none\n  purpose       train-ai not refused\n",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("check %d: output lacks %q:\n%s", i, want, r.stdout)
			}
		}
		if n := o.count("/.well-known/tdmrep.json"); n != 1 {
			t.Errorf("check %d: tdmrep.json requested %d times in all, want 1 (then cached)", i, n)
		}
	}

	r := check("--json", "--purpose", "research", srv.URL+"/tdmpath/x")
	var js struct {
		Results []struct {
			Robots struct {
				TDMRep string `json:"tdmrep_json"`
			} `json:"robots_txt"`
			Usage     []string `json:"usage"`
			RefusedBy string   `json:"refused_by"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &js); err != nil || r.code != 1 || len(js.Results) != 1 ||
		js.Results[0].Robots.TDMRep != "cached" || len(js.Results[0].Usage) != 1 ||
		js.Results[0].RefusedBy != "research refused by tdmrep.json: tdm-reservation=1 (rule 0, location /tdmpath/*)" {
		t.Errorf("--json: exit %d, %+v (%v)\n%s", r.code, js, err, r.stdout)
	}
	if n := o.count("/nomine/x") + o.count("/tdmpath/x") + o.count("/ok"); n != 0 {
		t.Errorf("robots check requested %d pages, want none", n)
	}
}
