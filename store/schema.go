package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// migrations build the schema, in order. migrations[i] takes a database
// from user_version i to i+1; each runs in one transaction. Never edit one
// that has shipped: append another.
//
// The SQL keeps to types and syntax PostgreSQL also speaks where that costs
// nothing: TEXT, BIGINT, BLOB (BYTEA there). Times are unix nanoseconds in
// UTC (0 for none), durations nanoseconds.
var migrations = []string{
	// 1: the first schema.
	`
CREATE TABLE host_state (
	host             TEXT PRIMARY KEY,
	delay_ns         BIGINT NOT NULL DEFAULT 0,
	set_at           BIGINT NOT NULL DEFAULT 0,
	baseline_ns      BIGINT NOT NULL DEFAULT 0,
	congestion_ns    BIGINT NOT NULL DEFAULT 0,
	congestion_at    BIGINT NOT NULL DEFAULT 0,
	last_signal      TEXT NOT NULL DEFAULT '',
	floor_ns         BIGINT NOT NULL DEFAULT 0,
	floor_source     TEXT NOT NULL DEFAULT ''
);

CREATE TABLE robots (
	host        TEXT PRIMARY KEY,
	status      INTEGER NOT NULL,
	body        BLOB NOT NULL,
	fetched_at  BIGINT NOT NULL,
	expires_at  BIGINT NOT NULL
);

CREATE TABLE runs (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	job         TEXT NOT NULL,
	started_at  BIGINT NOT NULL,
	ended_at    BIGINT NOT NULL DEFAULT 0,
	exit_code   INTEGER NOT NULL DEFAULT 0,
	summary     TEXT NOT NULL DEFAULT '',
	report      BLOB
);

CREATE TABLE fetches (
	id            INTEGER PRIMARY KEY,
	run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	url           TEXT NOT NULL,
	host          TEXT NOT NULL,
	status        INTEGER NOT NULL,
	reason        TEXT NOT NULL DEFAULT '',
	file          TEXT NOT NULL DEFAULT '',
	sha256        TEXT NOT NULL DEFAULT '',
	bytes         BIGINT NOT NULL DEFAULT 0,
	content_type  TEXT NOT NULL DEFAULT '',
	fetched_at    BIGINT NOT NULL,
	latency_ns    BIGINT NOT NULL DEFAULT 0,
	attempts      INTEGER NOT NULL DEFAULT 0,
	delay_ns      BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX fetches_run ON fetches (run_id, fetched_at, id);

CREATE TABLE frontier (
	id             INTEGER PRIMARY KEY,
	job            TEXT NOT NULL,
	url            TEXT NOT NULL,
	host           TEXT NOT NULL,
	state          TEXT NOT NULL,
	attempts       INTEGER NOT NULL DEFAULT 0,
	next_at        BIGINT NOT NULL DEFAULT 0,
	priority       INTEGER NOT NULL DEFAULT 0,
	depth          INTEGER NOT NULL DEFAULT 0,
	hops           INTEGER NOT NULL DEFAULT 0,
	parent         TEXT NOT NULL DEFAULT '',
	etag           TEXT NOT NULL DEFAULT '',
	last_modified  TEXT NOT NULL DEFAULT '',
	last_status    INTEGER NOT NULL DEFAULT 0,
	reason         TEXT NOT NULL DEFAULT '',
	fetched_at     BIGINT NOT NULL DEFAULT 0,
	file           TEXT NOT NULL DEFAULT '',
	sha256         TEXT NOT NULL DEFAULT '',
	bytes          BIGINT NOT NULL DEFAULT 0,
	UNIQUE (job, url)
);
-- Take walks one host's queued rows in priority order, and QueuedHosts
-- groups queued rows by host; next_at rides along so neither reads the table.
CREATE INDEX frontier_queue ON frontier (job, state, host, priority DESC, id, next_at);
-- Counts and Entries use its (job, state) prefix too: one index less to
-- keep up on every insert and state change.

CREATE TABLE lock (
	id        INTEGER PRIMARY KEY CHECK (id = 1),
	pid       INTEGER NOT NULL,
	hostname  TEXT NOT NULL,
	job       TEXT NOT NULL DEFAULT '',
	since     BIGINT NOT NULL
);
`,
	// 2: a host's hold (a long Retry-After) outlives the run that got it.
	`ALTER TABLE host_state ADD COLUMN hold_until BIGINT NOT NULL DEFAULT 0;`,
	// 3: the crawl lock and each run carry a heartbeat, so that a crawl
	// that died (on any machine) is told from one that runs.
	`ALTER TABLE lock ADD COLUMN beat_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN beat_at BIGINT NOT NULL DEFAULT 0;`,
	// 4: two time scales and honest holds. What a host showed about its
	// capacity (safe and refused gap, when) is kept apart from the
	// backoff, with the half-lives the crawl aged each with; a hold keeps
	// its reason; the last signal its own time (a latency raise is not a
	// congestion). Old rows take the congestion's time as the signal's.
	`
ALTER TABLE host_state ADD COLUMN half_life_ns BIGINT NOT NULL DEFAULT 0;
ALTER TABLE host_state ADD COLUMN signal_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE host_state ADD COLUMN safe_gap_ns BIGINT NOT NULL DEFAULT 0;
ALTER TABLE host_state ADD COLUMN refused_gap_ns BIGINT NOT NULL DEFAULT 0;
ALTER TABLE host_state ADD COLUMN learned_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE host_state ADD COLUMN learned_half_life_ns BIGINT NOT NULL DEFAULT 0;
ALTER TABLE host_state ADD COLUMN hold_reason TEXT NOT NULL DEFAULT '';
UPDATE host_state SET signal_at = congestion_at WHERE last_signal <> '';
`,
	// 5: each URL remembers its last capture in a WARC file (--warc), so
	// that a later fetch of the same payload is written as a revisit
	// referring to it.
	`
ALTER TABLE frontier ADD COLUMN warc_id TEXT NOT NULL DEFAULT '';
ALTER TABLE frontier ADD COLUMN warc_date BIGINT NOT NULL DEFAULT 0;
ALTER TABLE frontier ADD COLUMN warc_digest TEXT NOT NULL DEFAULT '';
`,
	// 6: sitemaps. An entry says whether its URL is a page or a sitemap
	// (read from robots.txt or a seed, or listed by an index), and keeps
	// the lastmod a sitemap gave it, so that a later pass need not ask
	// for a page that has not changed since it was fetched.
	`
ALTER TABLE frontier ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE frontier ADD COLUMN lastmod BIGINT NOT NULL DEFAULT 0;
`,
	// 8: what a job's frontier last took from its seed file (size,
	// modification time, digest, the seeds' origins), so that a resume
	// need not read an unchanged file again. Origins are one a line.
	7: `
CREATE TABLE seed_sources (
	job        TEXT PRIMARY KEY,
	name       TEXT NOT NULL,
	size       BIGINT NOT NULL,
	mod_time   BIGINT NOT NULL,
	sha256     TEXT NOT NULL,
	seeds      BIGINT NOT NULL DEFAULT 0,
	origins    TEXT NOT NULL DEFAULT '',
	loaded_at  BIGINT NOT NULL
);
`,
	// 9: paces shared by several hosts (--pace-by domain or ip). Their
	// learned state is a host_state row under the group's key
	// ("ip:203.0.113.5"); a run keeps its grouping, and each host the
	// group it was paced in under each grouping, for status and forget.
	8: `
ALTER TABLE runs ADD COLUMN pace_by TEXT NOT NULL DEFAULT '';
CREATE TABLE pace_groups (
	pace_by  TEXT NOT NULL,
	host     TEXT NOT NULL,
	grp      TEXT NOT NULL,
	seen_at  BIGINT NOT NULL,
	PRIMARY KEY (pace_by, host)
);
CREATE INDEX pace_groups_grp ON pace_groups (grp);
`,
	// 10: the operator's exclusion list (polite exclude), which every job
	// honours, and its version: one row that every change moves, so that
	// a running crawl reads the list again only when it changed.
	9: `
CREATE TABLE exclusions (
	rule      TEXT PRIMARY KEY,
	reason    TEXT NOT NULL DEFAULT '',
	added_at  BIGINT NOT NULL
);
CREATE TABLE exclusions_version (
	id       INTEGER PRIMARY KEY CHECK (id = 1),
	version  BIGINT NOT NULL
);
INSERT INTO exclusions_version (id, version) VALUES (1, 0);
`,
	// 11: each job's display name (the seed file's base name, made unique
	// in the database), which WARC files, warcinfo, the manifest and the
	// report use instead of the job's key, a local path.
	10: `
CREATE TABLE jobs (
	job   TEXT PRIMARY KEY,
	name  TEXT NOT NULL UNIQUE
);
`,
	// 12: the database's identity, drawn once at random: each run's
	// folder under --out is runs/IDENTITY-RUN, so that two databases
	// writing to one folder never share a run's.
	11: `
CREATE TABLE store_identity (
	id  INTEGER PRIMARY KEY CHECK (id = 1),
	name TEXT NOT NULL
);
INSERT INTO store_identity (id, name) VALUES (1, lower(hex(randomblob(4))));
`,
	// 13: revisits. Each URL keeps the interval its fetches taught, when
	// it is due again, and a summary of its history (fetches, changes,
	// the last change, what its last fetch showed).
	12: `
ALTER TABLE frontier ADD COLUMN revisit_ns BIGINT NOT NULL DEFAULT 0;
ALTER TABLE frontier ADD COLUMN due_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE frontier ADD COLUMN fetch_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE frontier ADD COLUMN change_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE frontier ADD COLUMN changed_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE frontier ADD COLUMN last_change TEXT NOT NULL DEFAULT '';
`,
	// 14: the WARC files each run wrote (--warc), which polite wacz
	// packages as the job's one archive.
	13: `
CREATE TABLE warc_files (
	path     TEXT PRIMARY KEY,
	job      TEXT NOT NULL,
	run_id   BIGINT NOT NULL,
	worker   TEXT NOT NULL DEFAULT '',
	begun_at BIGINT NOT NULL
);
CREATE INDEX warc_files_job ON warc_files (job, run_id);
`,
	// 15: the origin's tdmrep.json beside its robots.txt (a crawl
	// declaring --purpose reads both): its answer, when it was fetched and
	// until when it stands; tdm_fetched_at 0 for none stored.
	14: `
ALTER TABLE robots ADD COLUMN tdm_status INTEGER NOT NULL DEFAULT 0;
ALTER TABLE robots ADD COLUMN tdm_body BLOB NOT NULL DEFAULT x'';
ALTER TABLE robots ADD COLUMN tdm_fetched_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE robots ADD COLUMN tdm_expires_at BIGINT NOT NULL DEFAULT 0;
`,
	// 16: the sitemap whose lastmod an entry keeps, so that a page the
	// lastmod lets a pass skip is counted for that sitemap without a run
	// holding a map of every URL its sitemaps list.
	15: `
ALTER TABLE frontier ADD COLUMN listed_by TEXT NOT NULL DEFAULT '';
`,
}

// errForeign says a file belongs to another application.
var errForeign = errors.New("not a polite database: it belongs to another application")

// migrate brings the schema up to the last migration in one IMMEDIATE
// transaction: two processes opening a new file at once do not both build
// it, and a migration that fails leaves the schema as it was.
func (c *conn) migrate() error {
	tx, err := c.beginWrite("migrate")
	if err != nil {
		return err
	}
	defer tx.Rollback()

	v, err := userVersion(tx)
	if err != nil {
		return err
	}
	switch {
	case v > len(migrations):
		return fmt.Errorf("schema version %d is newer than this polite knows (%d): use a newer polite", v, len(migrations))
	case v == len(migrations):
		return requireOurs(tx, v)
	case v == 0:
		err = refuseForeign(tx)
	default:
		err = requireOurs(tx, v)
	}
	if err != nil {
		return err
	}
	for ; v < len(migrations); v++ {
		// A step left empty is a number reserved for a change that
		// lands separately: nothing to do.
		if migrations[v] == "" {
			continue
		}
		if _, err := tx.Exec(migrations[v]); err != nil {
			return fmt.Errorf("migrate to version %d: %w", v+1, explain(err))
		}
	}
	// PRAGMA takes no parameters; v is our own integer.
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		return fmt.Errorf("migrate to version %d: %w", v, explain(err))
	}
	return commit("migrate", tx)
}

// userVersion reads the schema version.
func userVersion(tx *sql.Tx) (int, error) {
	var v int
	if err := tx.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", explain(err))
	}
	return v, nil
}

// ourTables are the tables every version of the schema has.
var ourTables = []string{"fetches", "frontier", "host_state", "lock", "robots", "runs"}

// requireOurs fails when a database with a schema version lacks polite's
// tables: another application that also sets user_version.
func requireOurs(tx *sql.Tx, v int) error {
	names, err := tableNames(tx)
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(names))
	for _, n := range names {
		have[n] = true
	}
	for _, n := range ourTables {
		if !have[n] {
			return fmt.Errorf("%w (schema version %d without a %s table)", errForeign, v, n)
		}
	}
	return nil
}

// refuseForeign fails when a database without a version already has tables:
// it is some other application's, and polite must not write into it.
func refuseForeign(tx *sql.Tx) error {
	names, err := tableNames(tx)
	if err != nil {
		return err
	}
	if len(names) > 0 {
		if len(names) > 3 {
			names = append(names[:3], "...")
		}
		return fmt.Errorf("%w (%s)", errForeign, strings.Join(names, ", "))
	}
	return nil
}

// tableNames lists the database's own tables, sorted.
func tableNames(tx *sql.Tx) ([]string, error) {
	rows, err := tx.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", explain(err))
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("read schema: %w", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read schema: %w", explain(err))
	}
	return names, nil
}
