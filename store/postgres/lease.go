package postgres

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// leaseSQL takes up to $5 entries of job $1 (of host $2 unless it is
// empty), that are due: queued ones whose next_at has come by $3 (the
// caller's now, or NULL for the server's clock), and in-flight ones whose
// lease ran out by $7 (the store's clock: a worker that died). Rows
// another transaction is taking are skipped, not waited for, so workers
// leasing at once get disjoint entries. They become in flight, leased to
// worker $4 for $6 nanoseconds of the store's clock.
var leaseSQL = leaseOf(`($2 = '' OR f.host = $2)`)

// leaseHostSQL is leaseSQL for one host ($2 not empty): a condition the
// planner can look up in the frontier_queue index, whatever the plan
// cached for the statement (the host's entries alone, not the job's).
var leaseHostSQL = leaseOf(`f.host = $2 AND f.state IN ('queued', 'in-flight')`)

func leaseOf(hostCond string) string {
	return `WITH c AS (SELECT ` + sqlNow("$3") + ` AS now, ` + sqlNow("$7") + ` AS lnow),
picked AS (
	SELECT f.id FROM frontier f, c
	WHERE f.job = $1 AND ` + hostCond + `
		AND ((f.state = 'queued' AND f.next_at <= c.now)
			OR (f.state = 'in-flight' AND f.lease_until <= c.lnow))
	ORDER BY f.priority DESC, f.id
	LIMIT $5
	FOR UPDATE OF f SKIP LOCKED
)
UPDATE frontier f SET state = 'in-flight', lease_owner = $4, lease_until = c.lnow + $6
FROM picked, c
WHERE f.id = picked.id
RETURNING ` + prefixed("f.", entryColumns)
}

// lease takes up to n due entries of the job for worker, of one host or
// (host "") of any, highest priority first, then oldest first; now is
// the caller's clock as a query argument (see nowArg). They are the
// worker's until ttl from the store's now: Record writes their results
// while the lease holds, Heartbeat extends it, and once it runs out (the
// worker died) lease hands them to another worker.
func (f *Frontier) lease(op, job, host string, worker int64, now any, n int, ttl time.Duration) ([]frontier.Entry, error) {
	var es []frontier.Entry
	err := f.write(op, func(ctx context.Context, tx pgx.Tx) error {
		var err error
		q := leaseSQL
		if host != "" {
			q = leaseHostSQL
		}
		es, err = queryEntries(ctx, tx, q, job, host, now, worker, n, int64(ttl), f.nowArg())
		return err
	})
	slices.SortFunc(es, func(a, b frontier.Entry) int {
		if a.Priority != b.Priority {
			return b.Priority - a.Priority
		}
		return int(a.ID - b.ID)
	})
	return es, err
}

// Take marks up to n entries of host that are due at now as in flight and
// returns them, as store.DB.Take. They are leased to the worker that
// Acquire registered (owner 0 before it) for the lease time (LeaseTTL),
// which Heartbeat renews; entries whose lease ran out by the store's clock
// are taken again. Of a host the worker claims in runs (see claimRun),
// it takes no more than the host's pace allows within the lease time.
func (f *Frontier) Take(job, host string, now time.Time, n int) ([]frontier.Entry, error) {
	if d, ok := f.runs.delay(host); ok && d > 0 {
		n = min(n, max(1, int(f.leaseTTL()/d)))
	}
	if n <= 0 {
		return nil, nil
	}
	return f.lease("take from "+host, job, host, f.worker.Load(), toNanos(now), n, f.leaseTTL())
}

// TakeHosts takes up to n entries of each of hosts, a lease each, as
// Take does. A host with none due is left out of the map.
func (f *Frontier) TakeHosts(job string, hosts []string, now time.Time, n int) (map[string][]frontier.Entry, error) {
	taken := make(map[string][]frontier.Entry, len(hosts))
	for _, host := range hosts {
		es, err := f.Take(job, host, now, n)
		if err != nil {
			return nil, err
		}
		if len(es) > 0 {
			taken[host] = es
		}
	}
	return taken, nil
}

// prefixed qualifies each of a comma-separated list of columns.
func prefixed(p, cols string) string {
	fs := strings.Split(cols, ",")
	for i, f := range fs {
		fs[i] = p + strings.TrimSpace(f)
	}
	return strings.Join(fs, ", ")
}
