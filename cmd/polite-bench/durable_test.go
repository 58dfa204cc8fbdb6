package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestDurableReferenceKeepsEveryFetch: the durable reference records each
// URL once, its 2xx bodies on disk with the bytes served, and asks each
// host one request at a time.
func TestDurableReferenceKeepsEveryFetch(t *testing.T) {
	var mu sync.Mutex
	inFlight, most := map[string]int{}, 0
	handler := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight[r.Host]++
		most = max(most, inFlight[r.Host])
		mu.Unlock()
		defer func() { mu.Lock(); inFlight[r.Host]--; mu.Unlock() }()
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "<p>%s%s</p>", r.Host, r.URL.Path)
	}
	var urls []string
	for range 3 {
		srv := httptest.NewServer(http.HandlerFunc(handler))
		t.Cleanup(srv.Close)
		for p := range 5 {
			urls = append(urls, fmt.Sprintf("%s/page/%d", srv.URL, p))
		}
		urls = append(urls, srv.URL+"/gone")
	}
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seeds, []byte(strings.Join(urls, "\n")+"\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	dbPath, bodies := filepath.Join(dir, "f.db"), filepath.Join(dir, "out")
	if code := durableMain([]string{"-concurrency", "4", "-db", dbPath, "-out", bodies, seeds}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if got, want := out.String(), "recorded 15 on_disk 15\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	if most != 1 {
		t.Errorf("%d requests at once to one host, want 1", most)
	}
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var fetches, done int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM fetches), (SELECT count(*) FROM frontier WHERE done = 1)`).Scan(&fetches, &done); err != nil {
		t.Fatal(err)
	}
	if fetches != len(urls) || done != len(urls) {
		t.Errorf("%d fetch rows and %d URLs done, want %d of each", fetches, done, len(urls))
	}
	rows, err := db.Query(`SELECT url, file, bytes FROM fetches WHERE status = 200`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var u, file string
		var n int
		if err := rows.Scan(&u, &file, &n); err != nil {
			t.Fatal(err)
		}
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if want := fmt.Sprintf("<p>%s</p>", strings.TrimPrefix(u, "http://")); string(body) != want || n != len(want) {
			t.Errorf("%s: body %q (%d bytes recorded), want %q", u, body, n, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestDurableReferenceNamesABadSeed: a line that is no URL is an error
// naming it.
func TestDurableReferenceNamesABadSeed(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seeds, []byte("http://127.0.0.1:1/a\n%zz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := durableMain([]string{"-db", filepath.Join(dir, "f.db"), "-out", filepath.Join(dir, "out"), seeds}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "%zz") {
		t.Errorf("exit %d, stderr %q: want 1 and the bad line named", code, errOut.String())
	}
}
