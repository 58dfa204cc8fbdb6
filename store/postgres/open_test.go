package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func TestOpenUnreachableNamesServerAndCreatesNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	port := freePort(t)
	u := fmt.Sprintf("postgres://polite:secret@127.0.0.1:%d/polite?sslmode=disable&connect_timeout=5", port)
	_, err := Open(context.Background(), u)
	if err == nil {
		t.Fatal("Open of a closed port: no error")
	}
	want := fmt.Sprintf("PostgreSQL 127.0.0.1:%d/polite unreachable or refusing", port)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q, want it to contain %q", err, want)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error %q shows the password", err)
	}
	if es, _ := os.ReadDir(dir); len(es) > 0 {
		t.Errorf("Open created %s in the working folder", es[0].Name())
	}
}

func TestOpenBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, want string
	}{
		{"a file path", "polite.db", `"polite.db" is not a postgres:// or postgresql:// URL`},
		{"another scheme hides the password", "mysql://u:pw@h/db", `"mysql://u:xxxxx@h/db" is not a postgres://`},
		{"unparsable", "postgres://h:notaport/db", "bad PostgreSQL URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(context.Background(), tt.url)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open(%q) error = %v, want it to contain %q", tt.url, err, tt.want)
			}
		})
	}
}

func TestOpenRefusingServerNamesIt(t *testing.T) {
	t.Parallel()
	base := serverURL(t)
	cfg, err := pgx.ParseConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	u := fmt.Sprintf("postgres://%s@%s:%d/polite_no_such_db?sslmode=disable", cfg.User, cfg.Host, cfg.Port)
	_, err = Open(context.Background(), u)
	want := fmt.Sprintf("PostgreSQL %s:%d/polite_no_such_db unreachable or refusing", cfg.Host, cfg.Port)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Open of a missing database: error = %v, want %q and the server's reason", err, want)
	}
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	// Workers starting at once on a new database build the schema once.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			db, err := Open(context.Background(), u)
			if err == nil {
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent Open %d: %v", i, err)
		}
	}
	db := mustOpen(t, u, nil)
	var v int
	if err := db.c.pool.QueryRow(context.Background(), `SELECT version FROM schema_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != len(migrations) {
		t.Errorf("schema version = %d, want %d", v, len(migrations))
	}

	// A newer schema is refused.
	if _, err := db.c.pool.Exec(context.Background(), `UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), u)
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Errorf("Open of a newer schema: error = %v, want it refused", err)
	}
}

func TestMigrateRefusesForeignSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, setup, want string
	}{
		{"tables without a version", `CREATE TABLE customers (id int)`, "(customers)"},
		{"a version without our tables", `CREATE TABLE schema_version (version int); INSERT INTO schema_version VALUES (1)`, "without a fetches table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newSchema(t)
			c, err := pgx.Connect(context.Background(), u)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(context.Background())
			if _, err := c.Exec(context.Background(), tt.setup); err != nil {
				t.Fatal(err)
			}
			_, err = Open(context.Background(), u)
			if !errors.Is(err, errForeign) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open: error = %v, want errForeign naming %q", err, tt.want)
			}
		})
	}
}
