// Package frontier holds the records a crawl keeps between runs: the
// entries of a job's frontier, the fetches of a run, the runs themselves,
// cached robots.txt copies and the crawl lock's holder. crawl declares the
// Store it needs in these types; store/ (SQLite today, another database
// later) implements it without importing crawl.
//
// It also holds the crawl's vocabularies, the words a run stores and
// writes: Reason (why an entry or a fetch did not end done), Stop (why a
// host got no more requests), RunStop (why a run stopped) and Budget (a
// limit a run spends against). Each is a string type whose constants are
// the values polite interprets; its text is exactly what the database,
// manifest.jsonl, report.json and polite status hold, and reading it back
// keeps any text, known or not (an older polite's report, a hold's
// sentence).
//
// A Reason is one type that carries both the classified values and free
// text, rather than a code and a separate detail: the frontier's reason
// column, a fetch record's and every JSON reason are one string today,
// which a split would have to join and cut apart again in each store and
// for every row already written; the free text (a host's hold as the
// report words it, "timeout (retry budget spent)") is only ever written,
// while what the crawl decides on is a constant (or HTTPReason) compared
// as such. Classified tells the two apart.
package frontier

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// State is where a frontier entry stands.
type State string

// The states of a frontier entry.
const (
	Queued      State = "queued"
	InFlight    State = "in-flight"
	Done        State = "done"
	NotModified State = "not-modified"
	Excluded    State = "excluded" // by robots.txt or a skipped host
	Deferred    State = "deferred" // left for the next run (Retry-After, budget)
	Dead        State = "dead"
)

// Valid reports whether s is one of the states above.
func (s State) Valid() bool {
	switch s {
	case Queued, InFlight, Done, NotModified, Excluded, Deferred, Dead:
		return true
	}
	return false
}

// Waits reports whether an entry in state s waits for a run: queued,
// deferred or in flight (taken by a run that did not settle it).
func (s State) Waits() bool { return s == Queued || s == Deferred || s == InFlight }

// Waiting sums the entries of counts (a job's, by state) that wait.
func Waiting(counts map[State]int) int {
	return counts[Queued] + counts[Deferred] + counts[InFlight]
}

// Settled counts the entries of es that a run settled: in a state that
// no longer waits.
func Settled(es []Entry) int {
	n := 0
	for _, e := range es {
		if !e.State.Waits() {
			n++
		}
	}
	return n
}

// Entry is one URL of a job's frontier.
type Entry struct {
	ID           int64
	Job          string
	URL          string // normalised
	Host         string // lowercased host[:port]
	State        State
	Attempts     int
	NextAt       time.Time // not eligible before
	Priority     int
	Depth        int
	Hops         int    // redirects followed to reach it
	Parent       string // URL it was found on or redirected from; "" for a seed
	ETag         string
	LastModified string
	LastStatus   int
	Reason       Reason // why it is not done: the last failure, an exclusion, a hold
	FetchedAt    time.Time
	File         string // body path relative to the output folder
	SHA256       string
	Bytes        int64
	// The last capture of the URL in a WARC file (--warc), which a later
	// revisit record refers to; empty when none was written.
	WarcID     string    // its WARC-Record-ID, "<urn:uuid:…>"
	WarcDate   time.Time // its WARC-Date
	WarcDigest string    // its WARC-Payload-Digest, "sha256:…"

	// Kind is what the URL is: a page ("") or a sitemap. LastMod is the
	// last modification a sitemap gave for the URL (the latest instant
	// its lastmod can mean), zero when none did; ListedBy is that
	// sitemap's URL.
	Kind     Kind
	LastMod  time.Time
	ListedBy string

	// Revisit is when to ask for the URL again, learned from its fetches.
	Revisit Revisit
}

// Kind is what a frontier entry's URL is fetched as.
type Kind string

// The kinds of frontier entry.
const (
	Page         Kind = ""              // a page: fetched, kept, its links followed
	Sitemap      Kind = "sitemap"       // a sitemap from robots.txt or a seed: may be an index
	SitemapChild Kind = "sitemap-child" // a sitemap an index lists: an index here is not read
	Requisite    Kind = "requisite"     // an image, stylesheet, script... a page needs: kept, its links not followed
)

// IsSitemap reports whether an entry of kind k is fetched as a sitemap.
func (k Kind) IsSitemap() bool { return k == Sitemap || k == SitemapChild }

// HostQueue is one host's share of the queue.
type HostQueue struct {
	Host   string
	Queued int
	NextAt time.Time // earliest NextAt among its queued entries
}

// Fetch is one request polite made, as recorded for the report.
type Fetch struct {
	RunID       int64
	URL         string
	Host        string
	Status      int    // 0 for a network error
	Reason      Reason // the entry's reason after it ("" on success)
	File        string // body path relative to the output folder, "" when none
	SHA256      string
	Bytes       int64
	ContentType string
	FetchedAt   time.Time
	Latency     time.Duration // time to first byte
	Attempts    int
	Delay       time.Duration // the host's delay when the request started
}

// Run is one crawl run.
type Run struct {
	ID        int64
	Store     string // the database's identity (BeginRun's; see Folder)
	Job       string
	StartedAt time.Time
	EndedAt   time.Time // zero while running or if the run died
	ExitCode  int
	Summary   string    // one line, e.g. "12 done, 1 dead, 3 waiting"
	Report    []byte    // report.json as written; nil while running
	BeatAt    time.Time // the running crawl's last heartbeat; zero before schema 3
	PaceBy    string    // what owned a pace (--pace-by): "host", "domain" or "ip"; "" for a run of an older polite
}

// Folder names the run's own folder under the output folder: the
// database's identity and the run's number ("3f2a9c01-7"), so that two
// databases, or jobs on them, writing to one folder never share a run's;
// a run without a store identity (a test's) is its number alone.
func (r Run) Folder() string {
	if r.Store == "" {
		return strconv.FormatInt(r.ID, 10)
	}
	return r.Store + "-" + strconv.FormatInt(r.ID, 10)
}

// Beat is how often a running crawl refreshes its lock and its run;
// Stale is how long a silent one is taken for dead, wherever it ran.
const (
	Beat  = 30 * time.Second
	Stale = 3 * Beat
)

// Died reports whether the run ended without saving its end: it has no
// end and no heartbeat for Stale.
func (r Run) Died(now time.Time) bool {
	last := r.StartedAt
	if r.BeatAt.After(last) {
		last = r.BeatAt
	}
	return r.EndedAt.IsZero() && now.Sub(last) > Stale
}

// RobotsCopy is a stored robots.txt fetch, and the fetch of the origin's
// tdmrep.json that a crawl declaring a purpose makes with it.
type RobotsCopy struct {
	Host      string
	Status    int
	Body      []byte
	FetchedAt time.Time
	Expires   time.Time
	TDMRep    TDMRepCopy
}

// CheckRobotsCopies fails when a copy of cs names no host: then none of
// them is stored, nor kept for storing.
func CheckRobotsCopies(cs []RobotsCopy) error {
	for _, c := range cs {
		if c.Host == "" {
			return errors.New("store robots.txt copy: no host")
		}
	}
	return nil
}

// TDMRepCopy is a stored /.well-known/tdmrep.json fetch (TDMRep's usage
// preferences); its zero value is none stored: never asked for, or the
// origin did not answer.
type TDMRepCopy struct {
	Status    int
	Body      []byte
	FetchedAt time.Time
	Expires   time.Time
}

// Holder identifies a running crawl: the holder of a database's lock.
type Holder struct {
	PID      int
	Hostname string
	Job      string
	Since    time.Time
}

// ThisProcess is the Holder this process presents for job: its pid and
// host name, which a store uses to tell a live holder from a dead one.
func ThisProcess(job string) Holder {
	h, err := os.Hostname()
	if err != nil {
		h = "unknown"
	}
	return Holder{PID: os.Getpid(), Hostname: h, Job: job, Since: time.Now()}
}

// ErrNotFound is what a store returns for a record it does not have.
var ErrNotFound = errors.New("not found")

// ErrLockLost is returned by a store's Heartbeat when the crawl lock is no
// longer the caller's: another crawl took it over after a silence of Stale.
var ErrLockLost = errors.New("the crawl lock was taken over by another crawl")

// SeedSource is what a job's frontier last took from its seed file: how to
// tell, without reading the file again, that it has not changed since, and
// the seeds' origins, which the private-address rule exempts.
type SeedSource struct {
	Job      string
	Name     string    // the file as messages name it
	Size     int64     // bytes
	ModTime  time.Time // the file's modification time
	SHA256   string    // hex digest of the content read
	Seeds    int       // valid seed lines read (duplicates included)
	Origins  []string  // the seeds' origins, "scheme://host:port", sorted
	LoadedAt time.Time
}

// PaceClaim is the answer to a claim of a host's next request in a Store
// shared by several crawling processes, where one process at a time owns
// a host and drives its pace.
type PaceClaim struct {
	// OK: the request may go now, and the host is this process's.
	OK bool
	// Wait is, when not OK, when to claim again: the last claim's delay or
	// a hold is still running, or another process owns the host.
	Wait time.Time
	// Until is, when OK, until when the host stays this process's without
	// another claim.
	Until time.Time
	// TookOver: OK, and the host was not this process's until now (another
	// process had it, or nobody yet): reload its stored pace state, what
	// the last owner learned, before sending.
	TookOver bool
	// Owned: not OK because another process owns the host.
	Owned bool
}

// PaceMember is a host paced with others under one key, as a crawl with
// --pace-by domain or ip met it: the stores keep one row per grouping and
// host, so that status can list each group's names (the group's learned
// state is kept under Group, beside the hosts' own).
type PaceMember struct {
	By     string    // the grouping: "domain" or "ip"
	Group  string    // the pace key: "domain:example.org", "ip:203.0.113.5"
	Host   string    // the member's host key
	SeenAt time.Time // when a run last paced it so; set by the store
}

// Exclusion is one rule of the operator's exclusion list (polite
// exclude), which every job on the database honours: no request goes to
// what it covers. Rule is in normal form (see crawl/exclude): a host
// ("example.org", every port and scheme), a domain with its subdomains
// (".example.org") or a URL prefix ("https://example.org/private/").
type Exclusion struct {
	Rule    string
	Reason  string // the operator's note (--reason); may be empty
	AddedAt time.Time
}

// WarcFile is a WARC file a run wrote (--warc): which job and run, the
// worker that wrote it ("host~pid") and its path as the run named it.
type WarcFile struct {
	Job    string
	Run    int64
	Worker string
	Path   string
	At     time.Time // when it was begun
}

// Job is a job known to a database: its key (--job, a seed file's
// absolute path, or URL arguments' sorted set) and its display name, the
// short name its WARC files, manifest and reports carry ("" until a run
// of it gave it one).
type Job struct {
	Key  string
	Name string
}

// JobNameTry is the i-th display name a job wanting want may take: want
// itself, then want-2, want-3...
func JobNameTry(want string, i int) string {
	if i <= 1 {
		return want
	}
	return fmt.Sprintf("%s-%d", want, i)
}
