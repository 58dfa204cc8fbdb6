package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// envURL names the variable that points the tests at a PostgreSQL
// database they may create schemas in; testdata/pgtest.sh sets it.
const envURL = "POLITE_TEST_POSTGRES"

// serverURL returns the test server's URL. Without one the test skips,
// saying how to get one; under CI (CI=true) it fails instead, as CI
// starts a server and a missing URL means a broken setup.
func serverURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is not set: .ci/run starts PostgreSQL and exports it", envURL)
		}
		t.Skipf("%s is not set: run the tests under store/postgres/testdata/pgtest.sh (it starts a throwaway PostgreSQL on loopback), e.g. store/postgres/testdata/pgtest.sh go test ./store/postgres/", envURL)
	}
	return u
}

// newSchema creates an empty schema for the test, dropped when it ends,
// and returns a URL whose connections use it: tests are independent
// and may run in parallel on one database.
func newSchema(t *testing.T) string {
	t.Helper()
	base := serverURL(t)
	name := fmt.Sprintf("t_%s_%08x", strings.ToLower(sanitize(t.Name())), rand.Uint32())
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", envURL, err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `CREATE SCHEMA `+name); err != nil {
		t.Fatalf("create schema %s: %v", name, err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP SCHEMA `+name+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", envURL, err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()[:min(b.Len(), 40)]
}

// mustOpen opens the database at u, on clock c (nil: the server's), and
// closes it when the test ends. Each call is another pool of
// connections: a worker of its own.
func mustOpen(t *testing.T, u string, c *fakeClock) *DB {
	t.Helper()
	db, err := Open(context.Background(), u)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if c != nil {
		db.Now = c.Now
	}
	return db
}

// fakeClock is a clock the test moves; safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func newClock() *fakeClock { return &fakeClock{t: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
