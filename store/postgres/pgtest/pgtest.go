// Package pgtest gives tests and the benchmark throwaway schemas of the
// PostgreSQL that store/postgres/testdata/pgtest.sh (and .ci/run) starts
// and names in POLITE_TEST_POSTGRES.
package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Env names the variable that holds the test server's URL.
const Env = "POLITE_TEST_POSTGRES"

// URL returns the test server's URL. Without one the test skips, saying
// how to start one; under CI (CI=true) it fails instead, as CI starts a
// server and a missing URL means a broken setup.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is not set: .ci/run starts PostgreSQL and exports it", Env)
		}
		t.Skipf("%s is not set: run the tests under store/postgres/testdata/pgtest.sh (it starts a throwaway PostgreSQL on loopback), e.g. store/postgres/testdata/pgtest.sh go test ./store/postgres/", Env)
	}
	return u
}

// Schema creates an empty schema for the test, named after prefix and
// dropped when the test ends, and returns a URL whose connections use it:
// tests are independent and may run in parallel on one server.
func Schema(t testing.TB, prefix string) string {
	t.Helper()
	u, drop, err := NewSchema(context.Background(), URL(t), prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return u
}

// NewSchema creates an empty schema named after prefix on the server at
// base, and returns a URL whose connections use it and the function that
// drops it.
func NewSchema(ctx context.Context, base, prefix string) (string, func() error, error) {
	name := fmt.Sprintf("%s_%08x", sanitize(prefix), rand.Uint32())
	exec := func(sql string) error {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			return fmt.Errorf("connect to %s: %w", Env, err)
		}
		defer c.Close(context.Background())
		_, err = c.Exec(ctx, sql)
		return err
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, fmt.Errorf("parse %s: %w", Env, err)
	}
	if err := exec(`CREATE SCHEMA ` + name); err != nil {
		return "", nil, fmt.Errorf("create schema %s: %w", name, err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	drop := func() error {
		if err := exec(`DROP SCHEMA ` + name + ` CASCADE`); err != nil {
			return fmt.Errorf("drop schema %s: %w", name, err)
		}
		return nil
	}
	return u.String(), drop, nil
}

// Conn is a connection to u for a test's own looks, closed when it ends.
func Conn(t testing.TB, u string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// sanitize keeps a schema name to lower-case letters, digits and
// underscores, at most 40 of them.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()[:min(b.Len(), 40)]
}
