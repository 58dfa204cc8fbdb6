package cmd

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

// jobsDB is what naming and finding jobs needs of a database.
type jobsDB interface {
	// NameJob returns job's display name, giving it want (made unique)
	// when it has none.
	NameJob(job, want string) (string, error)
	// Jobs returns every job known, with its display name.
	Jobs() ([]frontier.Job, error)
}

// urlsJob is the job of URL arguments: their sorted, normalised set
// (credentials hidden), so that the same URLs given again are the same
// job and their second fetch is conditional.
func urlsJob(args []string) string {
	set := make([]string, 0, len(args))
	for _, a := range args {
		if n, err := urls.Normalize(a); err == nil {
			a = n
		}
		set = append(set, urls.Redact(a))
	}
	sort.Strings(set)
	return "urls:" + strings.Join(slices.Compact(set), " ")
}

// displayName is the short name a job of this source wants, which the
// database makes unique: --job's name, the seed file's base name, or the
// first URL argument's host (+N for the others).
func (s seedSource) displayName(job, explicit string) string {
	switch {
	case explicit != "":
		return explicit
	case s.file != "":
		return filepath.Base(s.file)
	case len(s.urls) > 0:
		set := strings.Fields(strings.TrimPrefix(job, "urls:"))
		name := "urls"
		if u, err := urls.Parse(set[0]); err == nil {
			name = u.Hostname()
		}
		if len(set) > 1 {
			name += fmt.Sprintf("+%d", len(set)-1)
		}
		return name
	}
	return job
}

// errNoJob is a --job that names no job in the database: exit 1.
type errNoJob struct {
	arg     string
	similar []string
}

func (e *errNoJob) Error() string {
	msg := fmt.Sprintf("no job %q in the database", e.arg)
	if len(e.similar) > 0 {
		msg += "; did you mean " + strings.Join(e.similar, " or ") + "?"
	}
	return msg + " (polite runs lists the jobs)"
}

// resolveJob finds the job --job arg means, as polite crawl names it: a
// job's key, a seed file (relative to the working folder, symbolic links
// resolved, as crawl takes it), URL arguments' set, or a display name.
// A job not found is an *errNoJob that suggests the close ones.
func resolveJob(db jobsDB, arg string) (string, error) {
	js, err := db.Jobs()
	if err != nil {
		return "", err
	}
	keys := []string{arg}
	if abs, err := filepath.Abs(arg); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		keys = append(keys, abs)
	}
	if src, err := parseSeedArgs(strings.Fields(arg)); err == nil && len(src.urls) > 0 {
		keys = append(keys, urlsJob(src.urls))
	}
	for _, k := range keys {
		for _, j := range js {
			if j.Key == k {
				return j.Key, nil
			}
		}
	}
	for _, j := range js {
		if j.Name == arg {
			return j.Key, nil
		}
	}
	return "", &errNoJob{arg: arg, similar: similarJobs(js, arg)}
}

// similarJobs are the names (or keys) of the jobs close to arg: one
// contains the other, or they are a few edits apart; at most three.
func similarJobs(js []frontier.Job, arg string) []string {
	var out []string
	la := strings.ToLower(arg)
	for _, j := range js {
		name := j.Name
		if name == "" {
			name = j.Key
		}
		for _, c := range []string{j.Name, filepath.Base(j.Key), j.Key} {
			lc := strings.ToLower(c)
			if c != "" && (strings.Contains(lc, la) || strings.Contains(la, lc) || editDistance(lc, la) <= max(2, len(la)/4)) {
				out = append(out, fmt.Sprintf("%q", name))
				break
			}
		}
		if len(out) == 3 {
			break
		}
	}
	return out
}

// findJob replaces a --job given to a command by the key of the job it
// means (resolveJob); an empty one stays empty.
func findJob(db jobsDB, job *string) error {
	if *job == "" {
		return nil
	}
	key, err := resolveJob(db, *job)
	*job = key
	return err
}
