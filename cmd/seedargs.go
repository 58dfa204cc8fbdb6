package cmd

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/seeds"
)

// seedSource is where a crawl's seeds come from: one seed file, stdin, or
// URLs given as arguments.
type seedSource struct {
	file  string   // the seed file's absolute path
	stdin bool     // -
	urls  []string // URL arguments
}

// parseSeedArgs sorts the arguments of polite crawl: "-" is stdin, an
// existing path a seed file, and an http(s) URL (that is no file) a URL.
// One seed file, or -, or any number of URLs; not a mix.
func parseSeedArgs(args []string) (seedSource, error) {
	var src seedSource
	files := 0
	for _, a := range args {
		switch kind, err := seedArgKind(a); {
		case err != nil:
			return src, err
		case kind == "stdin":
			src.stdin = true
			files++
		case kind == "file":
			abs, err := filepath.Abs(a)
			if err != nil {
				return src, fmt.Errorf("%w: seed file %s: %v", errUsage, a, err)
			}
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			src.file = abs
			files++
		default:
			src.urls = append(src.urls, a)
		}
	}
	if files > 1 || (files == 1 && len(src.urls) > 0) {
		return src, fmt.Errorf("%w: give one seed file, or -, or URLs, not several sources (got %s)", errUsage, strings.Join(args, " "))
	}
	return src, nil
}

// seedArgKind says what one argument is: "stdin", "file" or "url".
func seedArgKind(a string) (string, error) {
	if a == "-" {
		return "stdin", nil
	}
	fi, err := os.Stat(a)
	if err == nil {
		if fi.IsDir() {
			return "", fmt.Errorf("%w: seed file %s is a folder", errUsage, a)
		}
		return "file", nil
	}
	u, perr := url.Parse(a)
	isURL := perr == nil && u.Host != "" && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https"))
	switch {
	case isURL:
		return "url", nil
	case perr == nil && u.Scheme != "" && u.Opaque == "" && u.Host != "":
		return "", fmt.Errorf("%w: %q: scheme %q is not http or https", errUsage, a, u.Scheme)
	case !os.IsNotExist(err):
		return "", fmt.Errorf("%w: seed file: %v", errUsage, err)
	case looksLikeHost(a):
		return "", fmt.Errorf("%w: %q is neither a seed file nor an http(s) URL (did you mean https://%s?)", errUsage, a, a)
	}
	return "", fmt.Errorf("%w: seed file %s: no such file, and not an http(s) URL", errUsage, a)
}

// looksLikeHost reports whether a reads as a host name with a dot and no
// path separator of a file: "example.org", "example.org/news".
func looksLikeHost(a string) bool {
	host, _, _ := strings.Cut(a, "/")
	return strings.Contains(host, ".") && !strings.HasPrefix(a, ".") && !strings.ContainsAny(host, " \\") &&
		!strings.HasSuffix(host, ".txt") && !strings.HasSuffix(host, ".csv")
}

// job is the job a source crawls without --job: the seed file's absolute
// path, the URL arguments' sorted set (urlsJob), or a job of its own each
// run for stdin.
func (s seedSource) job(now time.Time) string {
	switch {
	case s.file != "":
		return s.file
	case s.stdin:
		return "stdin@" + now.UTC().Format(time.RFC3339)
	}
	return urlsJob(s.urls)
}

// stdinCopy creates the temporary file stdin is copied to, or returns
// nil when the seeds do not come from stdin.
func (s seedSource) stdinCopy() (*os.File, error) {
	if !s.stdin {
		return nil, nil
	}
	f, err := os.CreateTemp("", "polite-stdin-*.txt")
	if err != nil {
		return nil, fmt.Errorf("copy stdin: %w", err)
	}
	return f, nil
}

// open returns the crawl's seed source: the seed file, the URL
// arguments, or stdin copied to f (from stdinCopy; named "stdin" in
// messages), which cleanup removes. Copying stdin lets the crawl read it
// as a file: checked whole before anything is enqueued (--strict), loaded
// without holding the crawl lock while a pipe is slow, and recognised when
// a job given with --job is resumed with the same input.
func (s seedSource) open(ctx context.Context, in io.Reader, f *os.File) (seeds.Source, func(), error) {
	none := func() {}
	switch {
	case s.stdin:
		remove := func() { os.Remove(f.Name()) }
		_, err := io.Copy(f, ctxReader{ctx, in})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return seeds.Source{}, remove, fmt.Errorf("copy stdin: %w", err)
		}
		return seeds.Source{Name: "stdin", Path: f.Name()}, remove, nil
	case s.file != "":
		return seeds.File(s.file), none, nil
	}
	return seeds.Lines("argument", s.urls...), none, nil
}
