package sitemap

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// mustRead reads a file of testdata; a missing one panics the test binary.
func mustRead(name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return b
}

// gz compresses b; writing to a bytes.Buffer cannot fail.
func gz(b []byte) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	_, _ = z.Write(b)
	_ = z.Close()
	return buf.Bytes()
}

func truncated(b []byte, n int) []byte { return b[:len(b)-n] }

func locs(es []Entry) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.Loc)
	}
	return s
}

var urlset = mustRead("urlset.xml")

// readCases are bodies and what Read must find in them.
var readCases = []struct {
	name     string
	body     []byte
	opt      *Options
	kind     Kind
	gzip     bool
	urls     []string
	sitemaps []string
	listed   int
	skipped  int
	cut      Cut
	problems []string // substrings, in order
}{
	{
		name: "urlset", body: urlset, kind: URLSet,
		urls:   []string{"https://shop.example/catalog/a?x=1&y=2", "https://shop.example/catalog/b", "https://shop.example/catalog/e", "https://shop.example/catalog/f"},
		listed: 6, skipped: 2,
		problems: []string{
			`line 15 (byte 545): bad priority "1.5" for https://shop.example/catalog/c: not between 0.0 and 1.0`,
			`line 16 (byte 624): bad URL "catalog/d": not an absolute http or https URL`,
			`line 17 (byte 658): unreadable lastmod "yesterday" for https://shop.example/catalog/e (not a W3C datetime), kept without it`,
			`line 18 (byte 741): unknown changefreq "sometimes" for https://shop.example/catalog/f, ignored`,
		},
	},
	{name: "urlset gzip", body: gz(urlset), kind: URLSet, gzip: true, listed: 6, skipped: 2,
		urls:     []string{"https://shop.example/catalog/a?x=1&y=2", "https://shop.example/catalog/b", "https://shop.example/catalog/e", "https://shop.example/catalog/f"},
		problems: []string{"bad priority", "bad URL", "unreadable lastmod", "unknown changefreq"}},
	{name: "index", body: mustRead("index.xml"), kind: Index, listed: 2,
		sitemaps: []string{"https://shop.example/sitemap-1.xml.gz", "https://shop.example/sitemap-2.txt"},
		problems: []string{"line 5 (byte 289): <url> in a sitemapindex, ignored"}},
	{name: "text", body: mustRead("text.txt"), kind: Text, listed: 4, skipped: 1,
		urls:     []string{"https://shop.example/t/1", "https://shop.example/t/2", "https://shop.example/t/4"},
		problems: []string{`line 4 (byte 56): bad URL "ftp://shop.example/t/3": not an absolute http or https URL`}},
	{name: "text with BOM and leading blank lines", body: []byte("\uFEFF\n\n  https://a.example/x\n"), kind: Text, listed: 1,
		urls: []string{"https://a.example/x"}},
	{name: "text gzip", body: gz([]byte("https://a.example/x\nhttps://a.example/y\n")), kind: Text, gzip: true, listed: 2,
		urls: []string{"https://a.example/x", "https://a.example/y"}},
	{name: "text line too long", body: []byte("https://a.example/" + strings.Repeat("x", 100_000) + "\nhttps://a.example/y\n"), kind: Text, listed: 2, skipped: 1,
		urls: []string{"https://a.example/y"}, problems: []string{`line 1 (byte 0): bad URL "https://a.example/xxxxx`}},
	{name: "text not UTF-8", body: []byte("https://a.example/\xff\n"), kind: Text, listed: 1, skipped: 1, problems: []string{"not UTF-8"}},
	{name: "empty", body: nil, kind: Unknown, problems: []string{"line 1 (byte 0): empty body"}},
	{name: "only white space", body: []byte("\n \n\t"), kind: Unknown, problems: []string{"line 3 (byte 4): empty body"}},

	{name: "broken XML keeps what came before", body: mustRead("broken.xml"), kind: URLSet, listed: 2, cut: Malformed,
		urls:     []string{"https://shop.example/ok/1", "https://shop.example/ok/2"},
		problems: []string{"line 7 (byte 306): malformed XML: element <url> closed by </urlset>"}},
	{name: "XML cut short", body: []byte(`<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.exa`), kind: URLSet, listed: 1, cut: Malformed,
		urls: []string{"https://a.example/1"}, problems: []string{"malformed XML: unexpected EOF"}},
	{name: "undeclared entity", body: []byte(`<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.example/&foo;</loc></url></urlset>`), kind: URLSet, listed: 1, cut: Malformed,
		urls: []string{"https://a.example/1"}, problems: []string{"malformed XML: invalid character entity &foo;"}},
	{name: "billion laughs refused", body: mustRead("laughs.xml"), kind: Unknown, cut: Refused,
		problems: []string{`line 13 (byte 765): refused <!DOCTYPE urlset [ <!ENTITY lol "lol"> <!E...>: a sitemap has no DOCTYPE`}},
	{name: "external entities refused", body: mustRead("xxe.xml"), kind: Unknown, cut: Refused, problems: []string{"refused <!DOCTYPE urlset [ <!ENTITY xxe SYSTEM"}},
	{name: "HTML page", body: []byte("<!doctype html><html><body>soft 404</body></html>"), kind: Unknown, cut: Refused, problems: []string{"refused <!doctype html>"}},
	{name: "RSS feed", body: []byte(`<?xml version="1.0"?><rss version="2.0"><channel/></rss>`), kind: Unknown, cut: Refused,
		problems: []string{"root element <rss> is not urlset or sitemapindex"}},
	{name: "second root", body: []byte(`<urlset><url><loc>https://a.example/1</loc></url></urlset><urlset/>`), kind: URLSet, listed: 1, cut: Malformed,
		urls: []string{"https://a.example/1"}, problems: []string{"element <urlset> after the root element"}},
	{name: "other encoding", body: []byte(`<?xml version="1.0" encoding="ISO-8859-1"?><urlset/>`), kind: Unknown, cut: Malformed,
		problems: []string{`malformed XML: encoding "ISO-8859-1" declared; a sitemap is UTF-8`}},
	{name: "no namespace, other namespace fields ignored", kind: URLSet, listed: 1,
		body: []byte(`<urlset xmlns:x="urn:x"><url><x:loc>https://evil.example/</x:loc><loc>https://a.example/1</loc></url></urlset>`),
		urls: []string{"https://a.example/1"}},
	{name: "deep nesting refused", body: []byte("<urlset>" + strings.Repeat("<a>", 100)), kind: URLSet, cut: Refused,
		problems: []string{"elements nested deeper than 64"}},
	{name: "long text refused", body: []byte("<urlset><url><loc>" + strings.Repeat("x", 70_000) + "</loc></url></urlset>"), kind: URLSet, cut: Refused,
		problems: []string{"text or tag longer than 65536 bytes"}},
	{name: "gzip inside gzip", body: gz(gz(urlset)), kind: Unknown, gzip: true, cut: Refused, problems: []string{"gzip inside gzip"}},
	{name: "corrupt gzip", body: append(gz(urlset)[:30:30], bytes.Repeat([]byte{0xff}, 40)...), kind: Unknown, gzip: true, cut: Malformed,
		problems: []string{"malformed gzip"}},
	{name: "truncated gzip", body: truncated(gz([]byte("https://a.example/1\n")), 4), kind: Text, gzip: true, cut: Malformed, listed: 1,
		urls: []string{"https://a.example/1"}, problems: []string{"line 2 (byte 20): body ends early"}},

	{name: "too many URLs", body: []byte("https://a.example/1\nhttps://a.example/2\nbad\nhttps://a.example/3\n"), opt: &Options{MaxURLs: 3},
		kind: Text, listed: 3, skipped: 1, cut: TooMany, urls: []string{"https://a.example/1", "https://a.example/2"},
		problems: []string{`bad URL "bad"`, "line 4 (byte 44): more than 3 entries, the protocol's limit; the rest is not read"}},
	{name: "too many in an index", body: []byte(`<sitemapindex><sitemap><loc>https://a.example/1</loc></sitemap><sitemap><loc>https://a.example/2</loc></sitemap></sitemapindex>`),
		opt: &Options{MaxURLs: 1}, kind: Index, listed: 1, cut: TooMany, sitemaps: []string{"https://a.example/1"}, problems: []string{"more than 1 entries"}},
	{name: "too large", body: []byte("https://a.example/1\nhttps://a.example/2\nhttps://a.example/3\n"), opt: &Options{MaxBytes: 45},
		kind: Text, listed: 2, cut: TooLarge, urls: []string{"https://a.example/1", "https://a.example/2"},
		problems: []string{"body passes 45 bytes uncompressed, the protocol's limit; the rest is not read"}},
	{name: "problems bounded", body: []byte(strings.Repeat("bad\n", 10)), opt: &Options{MaxProblems: 2}, kind: Text, listed: 10, skipped: 10,
		problems: []string{"line 1", "line 2"}},
}

func TestRead(t *testing.T) {
	for _, tc := range readCases {
		t.Run(tc.name, func(t *testing.T) {
			r := Read(bytes.NewReader(tc.body), tc.opt)
			if r.Kind != tc.kind || r.Gzip != tc.gzip || r.Cut != tc.cut {
				t.Errorf("kind %v gzip %v cut %v, want %v %v %v", r.Kind, r.Gzip, r.Cut, tc.kind, tc.gzip, tc.cut)
			}
			if got := locs(r.URLs); !slices.Equal(got, tc.urls) {
				t.Errorf("URLs %q, want %q", got, tc.urls)
			}
			if got := locs(r.Sitemaps); !slices.Equal(got, tc.sitemaps) {
				t.Errorf("sitemaps %q, want %q", got, tc.sitemaps)
			}
			if r.Listed != tc.listed || r.Skipped != tc.skipped {
				t.Errorf("listed %d skipped %d, want %d %d", r.Listed, r.Skipped, tc.listed, tc.skipped)
			}
			if len(r.Problems) != len(tc.problems) {
				t.Errorf("%d problems %q, want %d", len(r.Problems), r.Problems, len(tc.problems))
			}
			for i, want := range tc.problems {
				if i < len(r.Problems) && !strings.Contains(r.Problems[i].String(), want) {
					t.Errorf("problem %d %q, want it to contain %q", i, r.Problems[i], want)
				}
			}
			if err := r.Err(); (err != nil) != (tc.cut != None) {
				t.Errorf("Err() = %v with cut %v", err, r.Cut)
			}
		})
	}
}

func TestReadFields(t *testing.T) {
	r := Read(bytes.NewReader(mustRead("urlset.xml")), nil)
	if len(r.URLs) != 4 || r.NoLastMod != 1 {
		t.Fatalf("%d URLs, %d without their lastmod; want 4, 1", len(r.URLs), r.NoLastMod)
	}
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	b := time.Date(2024, 5, 1, 8, 30, 0, 0, time.UTC)
	want := []Entry{
		{Loc: "https://shop.example/catalog/a?x=1&y=2", LastMod: day, LastModUntil: day.Add(36*time.Hour - 1), Priority: 0.8, ChangeFreq: "weekly"},
		{Loc: "https://shop.example/catalog/b", LastMod: b, LastModUntil: b, Priority: 0.5},
		{Loc: "https://shop.example/catalog/e", Priority: 0.5}, // its lastmod unreadable: kept without it
		{Loc: "https://shop.example/catalog/f", Priority: 0.5},
	}
	for i, w := range want {
		if g := r.URLs[i]; !g.LastMod.Equal(w.LastMod) || !g.LastModUntil.Equal(w.LastModUntil) || g.Loc != w.Loc || g.Priority != w.Priority || g.ChangeFreq != w.ChangeFreq {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
	if r.Bytes != int64(len(mustRead("urlset.xml"))) {
		t.Errorf("Bytes %d, want the file's %d", r.Bytes, len(mustRead("urlset.xml")))
	}
}

// endless is a body that never ends: the same chunk over and over. It
// counts what was taken from it.
type endless struct {
	chunk []byte
	i     int
	n     int64
}

func (e *endless) Read(b []byte) (int, error) {
	k := 0
	for k < len(b) {
		c := copy(b[k:], e.chunk[e.i:])
		k += c
		e.i = (e.i + c) % len(e.chunk)
	}
	e.n += int64(k)
	return k, nil
}

// TestEndlessBody reads an endless line at the protocol's real limit: it
// stops at 50 MB, having taken little more from the reader, and never
// holds more than a buffer of it.
func TestEndlessBody(t *testing.T) {
	src := &endless{chunk: []byte("https://a.example/" + strings.Repeat("a", 4000))}
	r := Read(src, nil)
	if r.Cut != TooLarge || r.Bytes != MaxBytes || r.Kind != Text || r.Skipped != 1 {
		t.Errorf("%v cut %v after %d bytes, %d skipped; want text cut %v after %d, 1 skipped", r.Kind, r.Cut, r.Bytes, r.Skipped, TooLarge, MaxBytes)
	}
	if len(r.Problems) != 2 || !strings.Contains(r.Problems[0].Msg, "longer than 2047") || !strings.Contains(r.Problems[1].Msg, "body passes 52428800 bytes") {
		t.Errorf("problems %q, want the long line and the cut", r.Problems)
	}
	if slack := src.n - MaxBytes; slack > 64<<10 {
		t.Errorf("took %d bytes from the body, %d past the limit", src.n, slack)
	}
}

// bomb returns a gzip stream inflating to about n bytes of an XML urlset
// padded with text: each member holds 1 MiB.
func bomb(t testing.TB, n int) []byte {
	t.Helper()
	pad := []byte(strings.Repeat("<pad>"+strings.Repeat("a", 60_000)+"</pad>\n", 17))
	member := gz(pad)
	out := gz([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.example/1</loc></url>`))
	for k := 0; k < n; k += len(pad) {
		out = append(out, member...)
	}
	return out
}

func TestGzipBomb(t *testing.T) {
	b := bomb(t, 64<<20)
	src := &countReader{r: bytes.NewReader(b), max: 1 << 62}
	r := Read(src, &Options{MaxBytes: 4 << 20})
	if r.Cut != TooLarge || r.Bytes != 4<<20 {
		t.Errorf("cut %v after %d bytes, want %v after %d", r.Cut, r.Bytes, TooLarge, 4<<20)
	}
	if got := locs(r.URLs); !slices.Equal(got, []string{"https://a.example/1"}) {
		t.Errorf("URLs %q, want the one before the padding", got)
	}
	if want := "(a gzip bomb?)"; len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Msg, want) {
		t.Errorf("problems %q, want one containing %q", r.Problems, want)
	}
	if src.n > 64<<10 {
		t.Errorf("read %d compressed bytes of %d for 4 MiB inflated", src.n, len(b))
	}
}

// TestCompressedTooLong: a gzip stream that inflates to almost nothing
// (empty members, endlessly) is cut on its compressed length.
func TestCompressedTooLong(t *testing.T) {
	src := &endless{chunk: gz(nil)}
	r := Read(src, &Options{MaxBytes: 1 << 20})
	if r.Cut != TooLarge || r.Bytes != 0 {
		t.Errorf("cut %v after %d bytes, want %v after 0", r.Cut, r.Bytes, TooLarge)
	}
	if want := "compressed body too long"; len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Msg, want) {
		t.Errorf("problems %q, want one containing %q", r.Problems, want)
	}
}

// failing returns its body, then err.
type failing struct {
	body io.Reader
	err  error
}

func (f *failing) Read(b []byte) (int, error) {
	n, err := f.body.Read(b)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestReadError(t *testing.T) {
	cases := []struct {
		name string
		body string
		urls []string
	}{
		{"xml", `<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</loc>`, []string{"https://a.example/1"}},
		{"text", "https://a.example/1\nhttps://a.example/2", []string{"https://a.example/1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Read(&failing{body: strings.NewReader(tc.body), err: io.ErrClosedPipe}, nil)
			if r.Cut != ReadError {
				t.Errorf("cut %v, want %v", r.Cut, ReadError)
			}
			if got := locs(r.URLs); !slices.Equal(got, tc.urls) {
				t.Errorf("URLs %q, want %q", got, tc.urls)
			}
			if err := r.Err(); err == nil || !strings.Contains(err.Error(), "read: io: read/write on closed pipe") {
				t.Errorf("Err() = %v, want the read error", err)
			}
		})
	}
}

// With Options.Each, every body of readCases yields the same entries, in
// order, in batches of at most Batch of the body's kind, and the Result
// keeps none of them; the rest of the Result is the same.
func TestReadEach(t *testing.T) {
	for _, tc := range readCases {
		t.Run(tc.name, func(t *testing.T) {
			opt := Options{Batch: 2}
			if tc.opt != nil {
				opt = *tc.opt
				opt.Batch = 2
			}
			var urls, sitemaps []string
			opt.Each = func(b Batch) {
				if len(b.Entries) == 0 || len(b.Entries) > 2 || b.Kind != tc.kind {
					t.Errorf("batch of %d %v entries, want 1 or 2 %v", len(b.Entries), b.Kind, tc.kind)
				}
				if b.Kind == Index {
					sitemaps = append(sitemaps, locs(b.Entries)...)
				} else {
					urls = append(urls, locs(b.Entries)...)
				}
			}
			r := Read(bytes.NewReader(tc.body), &opt)
			if !slices.Equal(urls, tc.urls) || !slices.Equal(sitemaps, tc.sitemaps) {
				t.Errorf("batches held URLs %q and sitemaps %q, want %q and %q", urls, sitemaps, tc.urls, tc.sitemaps)
			}
			if len(r.URLs)+len(r.Sitemaps) != 0 {
				t.Errorf("the result kept %d URLs and %d sitemaps, want none", len(r.URLs), len(r.Sitemaps))
			}
			if r.Kind != tc.kind || r.Cut != tc.cut || r.Listed != tc.listed || r.Skipped != tc.skipped || len(r.Problems) != len(tc.problems) {
				t.Errorf("kind %v cut %v listed %d skipped %d, %d problems; want %v %v %d %d %d",
					r.Kind, r.Cut, r.Listed, r.Skipped, len(r.Problems), tc.kind, tc.cut, tc.listed, tc.skipped, len(tc.problems))
			}
		})
	}
}

// countingReader counts the bytes taken from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n += k
	return k, err
}

// A urlset of the protocol's 50,000 URLs reaches Each a batch at a time
// while it is read: each batch comes before the body's next 64 KiB are
// taken, so what is held is one batch and a buffer, not the body's
// entries.
func TestReadEachStreams(t *testing.T) {
	var body bytes.Buffer
	body.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range MaxURLs {
		fmt.Fprintf(&body, "<url><loc>https://a.example/p/%06d</loc><lastmod>2024-05-01</lastmod></url>\n", i)
	}
	body.WriteString("</urlset>\n")
	per := body.Len() / MaxURLs // bytes per entry
	src := &countingReader{r: &body}
	seen, batches := 0, 0
	r := Read(src, &Options{Each: func(b Batch) {
		batches++
		seen += len(b.Entries)
		if len(b.Entries) > DefaultBatch {
			t.Fatalf("a batch of %d entries, want at most %d", len(b.Entries), DefaultBatch)
		}
		if ahead := src.n - seen*per; ahead > 128<<10 {
			t.Fatalf("batch %d: %d bytes taken for %d entries, %d ahead of them; want the entries passed as they are read", batches, src.n, seen, ahead)
		}
	}})
	if seen != MaxURLs || batches != MaxURLs/DefaultBatch || r.Cut != None || len(r.URLs) != 0 {
		t.Errorf("%d entries in %d batches, cut %v, %d kept; want %d in %d, none cut or kept", seen, batches, r.Cut, len(r.URLs), MaxURLs, MaxURLs/DefaultBatch)
	}
}
