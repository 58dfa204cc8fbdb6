package store

import (
	"database/sql"
	"fmt"
)

// The statements a crawl runs for every URL, parsed once when the database
// opens instead of once per transaction: at a thousand pages a second,
// SQLite's parser was a tenth of the crawl's time.
const (
	takeMarkSQL = `UPDATE frontier SET state = ? WHERE id = ?`
	updateSet   = `UPDATE frontier SET host = ?, state = ?, attempts = ?, next_at = ?, priority = ?,
		depth = ?, hops = ?, parent = ?, etag = ?, last_modified = ?, last_status = ?, reason = ?,
		fetched_at = ?, file = ?, sha256 = ?, bytes = ?, warc_id = ?, warc_date = ?, warc_digest = ?,
		kind = ?, lastmod = ?, listed_by = ?, revisit_ns = ?, due_at = ?, fetch_count = ?, change_count = ?,
		changed_at = ?, last_change = ? `
	updateByIDSQL  = updateSet + `WHERE id = ?`
	updateByURLSQL = updateSet + `WHERE job = ? AND url = ?`
	addFetchSQL    = `INSERT INTO fetches (run_id, url, host, status, reason, file, sha256,
		bytes, content_type, fetched_at, latency_ns, attempts, delay_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	putRobotsSQL = `INSERT INTO robots (host, status, body, fetched_at, expires_at,
		tdm_status, tdm_body, tdm_fetched_at, tdm_expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (host) DO UPDATE SET status = excluded.status, body = excluded.body,
		fetched_at = excluded.fetched_at, expires_at = excluded.expires_at,
		tdm_status = excluded.tdm_status, tdm_body = excluded.tdm_body,
		tdm_fetched_at = excluded.tdm_fetched_at, tdm_expires_at = excluded.tdm_expires_at`
)

// The reads a crawl makes once per dispatch pass (the exclusion list's
// version) or once per host (its pace state, its robots.txt copy),
// prepared on the readers at Open. Each is one statement, which SQLite
// reads from one snapshot: no transaction around it.
const (
	exclusionsVersionSQL = `SELECT version FROM exclusions_version WHERE id = 1`
	loadStateSQL         = `SELECT ` + stateColumns + ` FROM host_state WHERE host = ?`
	loadRobotsSQL        = `SELECT host, status, body, fetched_at, expires_at,
		tdm_status, tdm_body, tdm_fetched_at, tdm_expires_at FROM robots WHERE host = ?`
)

// hotStatements lists what prepare parses at Open.
func hotStatements() []string {
	return []string{takeSQL, takeMarkSQL, updateByIDSQL, updateByURLSQL, addFetchSQL, putRobotsSQL, enqueueSQL(enqueueRows),
		enqueueNewSQL(enqueueRows), enqueueAlikeSQL(enqueueRows)}
}

// prepare parses the hot statements on the writer connection (it runs at
// Open, while no transaction holds the writer's only connection).
func (c *conn) prepare() (err error) {
	c.stmts, err = prepareAll(c.w, hotStatements())
	return err
}

// prepareReads parses the hot reads on the readers.
func (c *conn) prepareReads() (err error) {
	c.reads, err = prepareAll(c.r, []string{exclusionsVersionSQL, loadStateSQL, loadRobotsSQL})
	return err
}

// prepareAll parses qs on db, each by its text.
func prepareAll(db *sql.DB, qs []string) (map[string]*sql.Stmt, error) {
	stmts := make(map[string]*sql.Stmt, len(qs))
	for _, q := range qs {
		s, err := db.Prepare(q)
		if err != nil {
			return nil, fmt.Errorf("prepare statements: %w", explain(err))
		}
		stmts[q] = s
	}
	return stmts, nil
}

// stmt returns q bound to tx: the statement parsed at Open when q is a hot
// one, else parsed now for this transaction. Either closes with tx.
func (c *conn) stmt(tx *sql.Tx, q string) (*sql.Stmt, error) {
	if s, ok := c.stmts[q]; ok {
		return tx.Stmt(s), nil
	}
	s, err := tx.Prepare(q)
	if err != nil {
		return nil, explain(err)
	}
	return s, nil
}
