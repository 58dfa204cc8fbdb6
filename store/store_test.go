package store_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

var _ pace.StateStore = (*store.DB)(nil)

// t0 is the fixed time the tests start from.
var t0 = time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC)

// mustOpen opens a fresh database in a temporary folder, closed when the
// test ends, with a clock fixed at t0.
func mustOpen(t *testing.T) *store.DB {
	t.Helper()
	return mustOpenAt(t, filepath.Join(t.TempDir(), "polite.db"))
}

func mustOpenAt(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.Open(path)
	if err != nil {
		t.Fatalf("Open(%s) = %v", path, err)
	}
	db.Now = func() time.Time { return t0 }
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// rawDB opens path with the driver alone, as another application would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatalf("sql.Open(%s) = %v", path, err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

func userVersion(t *testing.T, path string) int {
	t.Helper()
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatalf("read user_version: %v", err)
	}
	return v
}

func TestOpenCreatesFolderAndSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "polite.db")
	mustOpenAt(t, path)
	fi, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatalf("stat folder: %v", err)
	}
	if got := fi.Mode().Perm(); got != 0o700 {
		t.Errorf("folder mode = %o, want 700", got)
	}
	if got, want := userVersion(t, path), store.SchemaVersion; got != want {
		t.Errorf("user_version = %d, want %d", got, want)
	}
	var mode string
	if err := rawDB(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatalf("read journal_mode: %v", err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
}

func TestReopenIsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.db")
	db := mustOpenAt(t, path)
	if err := db.Save(pace.State{Host: "example.com", Delay: time.Second, SetAt: t0}); err != nil {
		t.Fatalf("Save: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for i := range 2 {
		db2, err := store.Open(path)
		if err != nil {
			t.Fatalf("reopen %d: %v", i, err)
		}
		st, ok, err := db2.Load("example.com")
		if err != nil || !ok || st.Delay != time.Second {
			t.Errorf("reopen %d: Load = %+v, %v, %v; want the saved state", i, st, ok, err)
		}
		db2.Close()
	}
	if got, want := userVersion(t, path), store.SchemaVersion; got != want {
		t.Errorf("user_version = %d, want %d", got, want)
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the path to open
		want  string                                // in the error
	}{
		{
			name: "newer schema",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "new.db")
				db, err := store.Open(path)
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				db.Close()
				if _, err := rawDB(t, path).Exec("PRAGMA user_version = 999"); err != nil {
					t.Fatalf("set user_version: %v", err)
				}
				return path
			},
			want: "schema version 999 is newer",
		},
		{
			name: "text file",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "notes.db")
				writeFile(t, path, "these are my notes, not a database\n")
				return path
			},
			want: "file is not a database",
		},
		{
			name: "short text file",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "short.db")
				writeFile(t, path, "hi")
				return path
			},
			want: "file is not a database",
		},
		{
			name: "garbage after a SQLite header",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "garbage.db")
				writeFile(t, path, "SQLite format 3\x00"+strings.Repeat("\xff garbage ", 100))
				return path
			},
			want: "not a database",
		},
		{
			name: "another application's database",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "other.db")
				raw := rawDB(t, path)
				if _, err := raw.Exec("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER)"); err != nil {
					t.Fatalf("create table: %v", err)
				}
				raw.Close()
				return path
			},
			want: "not a polite database",
		},
		{
			name: "another application's database with a version",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "versioned.db")
				raw := rawDB(t, path)
				for _, q := range []string{"CREATE TABLE frontier (x TEXT)", "PRAGMA user_version = 1"} {
					if _, err := raw.Exec(q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				raw.Close()
				return path
			},
			want: "not a polite database",
		},
		{
			name: "folder is a file",
			setup: func(t *testing.T, dir string) string {
				file := filepath.Join(dir, "file")
				writeFile(t, file, "x")
				return filepath.Join(file, "db.sqlite")
			},
			want: "create db folder",
		},
		{
			name: "path is a folder",
			setup: func(t *testing.T, dir string) string {
				return dir
			},
			want: "is a folder",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.setup(t, t.TempDir())
			db, err := store.Open(path)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%s) = nil error, want one containing %q", path, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open(%s) = %q, want it to name the path and say %q", path, err, tt.want)
			}
			if testing.Verbose() {
				t.Logf("error: %v", err)
			}
		})
	}
}

func TestOpenOddPath(t *testing.T) {
	tests := []string{"with space.db", "hash#1.db", "query?x=1.db", "percent%20.db", "ünïcode.db"}
	for _, name := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			db := mustOpenAt(t, path)
			if err := db.Save(pace.State{Host: "example.com", Delay: time.Second}); err != nil {
				t.Fatalf("Save: %v", err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("stat %s: %v; want the database at exactly that path", path, err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatalf("read dir: %v", err)
			}
			for _, e := range entries {
				if !strings.HasPrefix(e.Name(), name) {
					t.Errorf("stray file %q beside %q", e.Name(), name)
				}
			}
		})
	}
}

func TestOpenEmptyFileBecomesDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	writeFile(t, path, "")
	mustOpenAt(t, path)
	if got, want := userVersion(t, path), store.SchemaVersion; got != want {
		t.Errorf("user_version = %d, want %d", got, want)
	}
}

// holdWriteLock takes SQLite's write lock on path from another connection,
// as another process would, until the returned func is called.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	conn, err := rawDB(t, path).Conn(context.Background())
	if err != nil {
		t.Fatalf("conn: %v", err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatalf("begin immediate: %v", err)
	}
	return func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
	}
}

func TestBusyDatabase(t *testing.T) {
	store.SetBusyTimeout(t, 100*time.Millisecond)

	t.Run("write fails clearly after the timeout", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "polite.db")
		db := mustOpenAt(t, path)
		release := holdWriteLock(t, path)
		defer release()
		start := time.Now()
		err := db.Save(pace.State{Host: "example.com"})
		if err == nil || !strings.Contains(err.Error(), "database is busy") {
			t.Errorf("Save while locked = %v, want a database is busy error", err)
		}
		if waited := time.Since(start); waited < 100*time.Millisecond {
			t.Errorf("Save gave up after %s, want it to wait the busy timeout", waited)
		}
		// Reads go on beside the writer (WAL).
		if _, _, err := db.Load("example.com"); err != nil {
			t.Errorf("Load while locked = %v, want nil", err)
		}
	})

	t.Run("open fails clearly naming the path", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "polite.db")
		writeFile(t, path, "")
		release := holdWriteLock(t, path)
		defer release()
		db, err := store.Open(path)
		if err == nil {
			db.Close()
			t.Fatal("Open while locked = nil error, want busy")
		}
		if !strings.Contains(err.Error(), "busy") || !strings.Contains(err.Error(), path) {
			t.Errorf("Open while locked = %q, want busy naming %s", err, path)
		}
	})

	t.Run("a short lock is waited out", func(t *testing.T) {
		store.SetBusyTimeout(t, 3*time.Second)
		path := filepath.Join(t.TempDir(), "polite.db")
		db := mustOpenAt(t, path)
		release := holdWriteLock(t, path)
		// The lock goes once Save has been called, not after a set time:
		// Save meets it held and, rather than fail, waits until it goes.
		saving, done := make(chan struct{}), make(chan struct{})
		go func() {
			<-saving
			release()
			close(done)
		}()
		close(saving)
		if err := db.Save(pace.State{Host: "example.com"}); err != nil {
			t.Errorf("Save after a short lock = %v, want nil", err)
		}
		<-done
	})
}

func TestLockedErrorMessage(t *testing.T) {
	err := &store.LockedError{Holder: frontier.Holder{PID: 123, Hostname: "host1", Job: "nightly",
		Since: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}}
	want := "database is locked by pid 123 on host1 (job nightly) since 2026-11-30T10:00:00Z"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, store.ErrLocked) {
		t.Errorf("errors.Is(%v, ErrLocked) = false, want true", err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
}
