// Package pgtest gives a test a throwaway schema of the PostgreSQL that
// store/postgres/testdata/pgtest.sh (and .ci/run) starts and names in
// POLITE_TEST_POSTGRES.
package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Env names the variable that holds the test server's URL.
const Env = "POLITE_TEST_POSTGRES"

// Schema returns the URL of a new, empty schema of the test PostgreSQL
// (its search_path set), dropped when the test ends, and a connection to
// it for the test's own looks. Without a server the test skips, saying
// how to start one; with CI=true it fails instead, since CI starts one.
func Schema(t testing.TB, prefix string) (string, *pgx.Conn) {
	t.Helper()
	base := os.Getenv(Env)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but " + Env + " is not set: .ci/run starts PostgreSQL and exports it")
		}
		t.Skip(Env + " is not set: run under store/postgres/testdata/pgtest.sh, which starts a throwaway PostgreSQL on loopback")
	}
	ctx := context.Background()
	name := fmt.Sprintf("%s_%08x", prefix, rand.Uint32())
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", Env, err)
	}
	if _, err := c.Exec(ctx, `CREATE SCHEMA `+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Exec(ctx, `DROP SCHEMA `+name+` CASCADE`)
		c.Close(ctx)
	})
	if _, err := c.Exec(ctx, `SET search_path TO `+name); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), c
}
