package crawltest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// API is a small JSON API, as a harvest meets one: Pages pages at
// /items?page=N (/items is page 1), each a JSON object whose answer has a
// Link header to the next page (rel="next", RFC 8288) but the last, and a
// Set-Cookie of a session derived from the token. It answers only a
// request that carries "Authorization: Bearer Token" and accepts
// application/json: 401 with WWW-Authenticate without the token, 406
// without the Accept. /moved redirects to Moved (another origin, say).
// robots.txt is a 404 to anyone. Every request's path and headers are
// kept (Requests). Safe for concurrent use; serve it with httptest.
type API struct {
	Pages int
	Token string // "" refuses every request with 401
	// Last is where the last page's Link rel="next" points (another
	// host, say); "" for no link.
	Last string
	// Moved is where /moved redirects (302); "" for a 404.
	Moved string

	mu   sync.Mutex
	seen []Asked
}

// Asked is one request an API or a Recorder received.
type Asked struct {
	Path   string // with its query
	Header http.Header
}

// Session is the cookie value the API sets for a token.
func Session(token string) string { return "session-of-" + token }

// Requests returns the requests received so far, in their order.
func (a *API) Requests() []Asked {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Asked(nil), a.seen...)
}

func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.seen = append(a.seen, Asked{Path: r.URL.RequestURI(), Header: r.Header.Clone()})
	a.mu.Unlock()
	switch {
	case r.URL.Path == "/robots.txt":
		http.NotFound(w, r)
		return
	case a.Token == "" || r.Header.Get("Authorization") != "Bearer "+a.Token:
		w.Header().Set("WWW-Authenticate", `Bearer realm="items"`)
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	case !strings.Contains(r.Header.Get("Accept"), "application/json"):
		http.Error(w, `{"error":"not acceptable"}`, http.StatusNotAcceptable)
		return
	case r.URL.Path == "/moved" && a.Moved != "":
		http.Redirect(w, r, a.Moved, http.StatusFound)
		return
	case r.URL.Path != "/items":
		http.NotFound(w, r)
		return
	}
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > a.Pages {
			http.NotFound(w, r)
			return
		}
		page = n
	}
	switch {
	case page < a.Pages:
		w.Header().Set("Link", fmt.Sprintf(`</items?page=%d>; rel="next", </items?page=1>; rel="first"`, page+1))
	case a.Last != "":
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, a.Last))
	}
	w.Header().Set("Set-Cookie", "session="+Session(a.Token)+"; Path=/; HttpOnly")
	w.Header().Set("Content-Type", "application/json")
	// A link in the body that an HTML reader would follow: JSON is not read for links.
	fmt.Fprintf(w, `{"page":%d,"items":[{"id":%d,"href":"<a href=\"/html-link\">x</a>"}]}`, page, page*10)
}

// Recorder answers every request with a small JSON body and keeps its
// path and headers: the other host a header must not reach.
type Recorder struct {
	mu   sync.Mutex
	seen []Asked
}

// Requests returns the requests received so far, in their order.
func (rec *Recorder) Requests() []Asked {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Asked(nil), rec.seen...)
}

func (rec *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.seen = append(rec.seen, Asked{Path: r.URL.RequestURI(), Header: r.Header.Clone()})
	rec.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"other":true}`)
}
