package main

import (
	"compress/gzip"
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

	// status --host shows what the origin declared: robots.txt's lines and
	// what the last run read from its answers.
	host := srv.Listener.Addr().String()
	st := run(t, "", "status", "--db", filepath.Join(dir, "p.db"), "--host", host)
	for _, want := range []string{"usage", "robots.txt line 3: Content-Usage: /nomine/ train-ai=n",
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
