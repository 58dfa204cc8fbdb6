package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The lanes of polite's packages, as docs/architecture.md draws them: the
// folders are the architecture. The CLI (cmd) drives the engine (crawl),
// the engine assembles its leaves (crawl/*), and the leaves lean on pace
// and robots, which decide from what they are handed. The stores (store,
// store/postgres) implement the interfaces crawl and its leaves declare,
// and nothing below cmd but test support knows them. Test-support
// packages (…test) sit beside what they support, and only tests and the
// programs under cmd/polite-* use them.
//
// TestPackageLanes checks every package `go list ./...` prints against
// its row in lanes, and two rules over all packages: none but test
// support and programs imports its parent directory's package, and none
// but those imports a test-support package (or package testing). Only
// non-test code is looked at: a test may import what it needs.

// modulePath is the module's import path; the table names the module's
// packages relative to it ("crawl/fetch", "." for the root).
const modulePath = "github.com/polite-crawler/polite"

// laneKind is the part a package plays.
type laneKind int

const (
	laneBinary   laneKind = iota // the module root: package main of the polite binary
	laneCLI                      // cmd: the commands
	laneProgram                  // cmd/polite-*: package main programs beside the CLI
	laneEngine                   // crawl: the engine
	laneLeaf                     // crawl/*: the engine's parts
	laneDecider                  // pace, robots: decisions from what they are handed
	laneStore                    // store/...: the databases
	laneSupport                  // …test: test support, beside what it supports
	laneTestOnly                 // …test: tests alone (a doc.go and _test files)
)

func (k laneKind) String() string {
	return [...]string{"binary", "CLI", "program", "engine", "leaf", "decider", "store", "test support", "test-only"}[k]
}

// lane is one package's rule. Packages are named relative to the module;
// "./..." stands for every package of the module but the row's own. Other
// names are import paths (std or third-party).
type lane struct {
	pkg  string
	kind laneKind
	// may is what a test-support package supports and so may import,
	// though the rule of its folder forbids it; what those packages import
	// in turn is theirs, not its.
	may []string
	// not may not be imported, neither directly nor through any other
	// package (except through may).
	not []string
	// notDirect may not be imported by the package's own files; a
	// dependency of it may (robots: temoto/robotstxt imports net/http).
	notDirect []string
	// stdOnly: nothing outside the standard library, even indirectly.
	stdOnly bool
}

// crawlLeafNot is the rule of every package under crawl/ but crawl: a part
// of the engine knows neither the engine nor what drives it, nor any
// database. A test-support package under crawl/ may import what it
// supports (its may) despite it.
var crawlLeafNot = []string{
	"crawl", "cmd", "store", "store/postgres",
	"database/sql", "modernc.org/sqlite", "github.com/jackc/pgx/v5", "github.com/spf13/cobra",
}

// leaf returns the crawl leaves' rule with extra added.
func leaf(extra ...string) []string { return append(slices.Clone(crawlLeafNot), extra...) }

// lanes has one row for every package of the module.
var lanes = []lane{
	// The binary hands everything to cmd.
	{pkg: ".", kind: laneBinary, notDirect: []string{"crawl", "store", "store/postgres", "pace", "robots"}},
	// The commands open the stores through store and store/postgres, never
	// through a driver of their own.
	{pkg: "cmd", kind: laneCLI, notDirect: []string{"database/sql", "modernc.org/sqlite", "github.com/jackc/pgx/v5"}},
	// The programs drive crawl and its test origin themselves, not the CLI.
	{pkg: "cmd/polite-bench", kind: laneProgram, not: []string{"cmd"}},
	{pkg: "cmd/polite-origin", kind: laneProgram, not: []string{"cmd"}},
	// The release programs: polite-docs writes the manual pages and
	// completion scripts from the commands' help, so it reads cmd and
	// nothing deeper itself; polite-dist packs archives with the standard
	// library alone.
	{pkg: "cmd/polite-docs", kind: laneProgram, notDirect: []string{"crawl", "store", "store/postgres", "pace", "robots"}},
	{pkg: "cmd/polite-dist", kind: laneProgram, not: []string{"./..."}, stdOnly: true},

	// The engine declares the Store it needs (crawl.Store) and is handed
	// one: it knows no store, no database and no command.
	{pkg: "crawl", kind: laneEngine, not: []string{
		"cmd", "store", "store/postgres",
		"database/sql", "modernc.org/sqlite", "github.com/jackc/pgx/v5", "github.com/spf13/cobra",
	}},

	// The engine's leaves. The ones that are records, clocks, parsers and
	// formats import no polite package at all.
	{pkg: "crawl/clock", kind: laneLeaf, not: leaf("./..."), stdOnly: true},
	{pkg: "crawl/frontier", kind: laneLeaf, not: leaf("./...", "net", "net/http"), stdOnly: true},
	{pkg: "crawl/urls", kind: laneLeaf, not: leaf("./...")},
	{pkg: "crawl/discover", kind: laneLeaf, not: leaf()},
	{pkg: "crawl/warc", kind: laneLeaf, not: leaf("./...")},
	{pkg: "crawl/wacz", kind: laneLeaf, not: leaf("./...", "net", "net/http", "os/exec"), stdOnly: true},
	{pkg: "crawl/sitemap", kind: laneLeaf, not: leaf("./...", "net", "net/http", "os/exec"), stdOnly: true},
	{pkg: "crawl/fetch", kind: laneLeaf, not: leaf()},
	{pkg: "crawl/hostgroup", kind: laneLeaf, not: leaf(), notDirect: []string{"net/http"}},
	{pkg: "crawl/output", kind: laneLeaf, not: leaf()},
	{pkg: "crawl/report", kind: laneLeaf, not: leaf()},
	{pkg: "crawl/robotscache", kind: laneLeaf, not: leaf()},
	{pkg: "crawl/seeds", kind: laneLeaf, not: leaf()},
	// The revisit schedule is arithmetic over a URL's history: no network,
	// no file, no other part of the crawl but its records.
	{pkg: "crawl/revisit", kind: laneLeaf, not: leaf("net", "net/http", "crawl/fetch", "crawl/output", "crawl/report"),
		notDirect: []string{"os"}},
	// What an answer means for its entry is a pure function of the
	// entry, the answer and the run's situation: no I/O, no clock.
	{pkg: "crawl/fate", kind: laneLeaf, not: leaf("crawl/output", "crawl/report"), notDirect: []string{"os", "time"}},
	// The exclusion list matches rules against URLs and host keys, and
	// reads them through the Store it declares: it fetches and writes
	// nothing itself.
	{pkg: "crawl/exclude", kind: laneLeaf, not: leaf("crawl/fetch", "crawl/output", "crawl/report"),
		notDirect: []string{"net/http", "os"}},
	// Usage preferences are parsed and decided from what fetch and
	// robots hand over: the package makes no request and writes nothing.
	{pkg: "crawl/usage", kind: laneLeaf, not: leaf("crawl/output", "crawl/report"), notDirect: []string{"os"}},

	// Test support under crawl/. crawltest (the throttling test origin and
	// crawl's end-to-end fixtures) runs crawls on a SQLite store: it may
	// import crawl and store, and through them what they import, but
	// nothing else the leaves may not (no command, no PostgreSQL, no
	// driver of its own).
	{pkg: "crawl/crawltest", kind: laneSupport, may: []string{"crawl", "store"}, not: []string{
		"cmd", "store/postgres",
		"database/sql", "modernc.org/sqlite", "github.com/jackc/pgx/v5", "github.com/spf13/cobra",
	}},
	{pkg: "crawl/fetch/fetchtest", kind: laneSupport, may: []string{"crawl/fetch"}, not: leaf()},
	{pkg: "crawl/report/reporttest", kind: laneSupport, may: []string{"crawl/report"}, not: leaf()},
	{pkg: "crawl/warc/warciotest", kind: laneSupport, may: []string{"crawl/warc"}, not: leaf()},
	// Packages of tests alone: the rule holds for their doc.go; their
	// tests may import anything.
	{pkg: "crawl/browsertest", kind: laneTestOnly, not: leaf()},
	{pkg: "crawl/e2etest", kind: laneTestOnly, not: leaf()},

	// pace decides with the standard library alone, and does no I/O.
	{pkg: "pace", kind: laneDecider, stdOnly: true, not: []string{"./...", "net", "net/http", "os/exec", "database/sql"}},
	// robots adds only its parser. temoto/robotstxt itself imports
	// net/http; robots must not use it, nor the network, nor files.
	{pkg: "robots", kind: laneDecider, notDirect: []string{"net/http", "net", "os"},
		not: []string{"./...", "database/sql", "modernc.org/sqlite"}},

	// The SQLite store implements crawl's interfaces in crawl/frontier's
	// records; it knows neither the engine nor the commands, nor HTTP.
	{pkg: "store", kind: laneStore, not: []string{"net/http", "crawl", "cmd", "github.com/jackc/pgx/v5"}},
	// What both stores share about columns: no store, no driver.
	{pkg: "store/internal/column", kind: laneStore, not: []string{
		"store", "store/postgres", "crawl", "cmd",
		"database/sql", "modernc.org/sqlite", "github.com/jackc/pgx/v5",
	}},
	// Whether a process of this machine is alive: no store, no driver.
	{pkg: "store/internal/proc", kind: laneStore, not: []string{
		"store", "store/postgres", "crawl", "cmd",
		"database/sql", "modernc.org/sqlite", "github.com/jackc/pgx/v5",
	}},
	{pkg: "store/postgres", kind: laneStore, not: []string{"net/http", "crawl", "cmd"},
		notDirect: []string{"database/sql", "modernc.org/sqlite"}},
	// Throwaway PostgreSQL schemas for tests and the bench, through pgx
	// alone (which itself imports database/sql).
	{pkg: "store/postgres/pgtest", kind: laneSupport, may: []string{"store/postgres"},
		not: []string{"crawl", "cmd", "store", "modernc.org/sqlite"}, notDirect: []string{"database/sql"}},
	// The stores' conformance suite is written against the interfaces
	// alone (crawl.Store, robotscache.Cache, pace.StateStore): it knows
	// neither store nor any database driver.
	{pkg: "store/storetest", kind: laneSupport, not: []string{
		"store", "store/postgres", "store/internal/column", "store/internal/proc", "cmd",
		"database/sql", "modernc.org/sqlite", "github.com/jackc/pgx/v5",
	}},
}

// TestPackageLanes keeps the lanes: a row for every package, each
// package's rule, no import of a parent, no test support in non-test code.
func TestPackageLanes(t *testing.T) {
	g := loadLaneGraph(t)
	t.Run("table", func(t *testing.T) { g.checkTable(t) })
	t.Run("parents", func(t *testing.T) { g.checkParents(t) })
	t.Run("test-support", func(t *testing.T) { g.checkTestSupport(t) })
	for _, l := range lanes {
		t.Run("rule/"+l.pkg, func(t *testing.T) { g.checkLane(t, l) })
	}
}

// TestArchitectureNamesEveryPackage keeps docs/architecture.md a map of
// every package: each must be named there by its path in the module.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	g := loadLaneGraph(t)
	doc, err := os.ReadFile(filepath.Join("docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range g.listed {
		rel := laneRel(p)
		if rel == "." {
			continue
		}
		// The path as a whole: crawl/fetch/fetchtest does not name
		// crawl/fetch, nor crawl/fetch crawl. A trailing slash is a folder.
		re := regexp.MustCompile(`(?:^|[^\w./-])` + regexp.QuoteMeta(rel) + `/?(?:[^\w/-]|$)`)
		if !re.Match(doc) {
			t.Errorf("docs/architecture.md does not mention %s", rel)
		}
	}
}

// laneGraph is the module's packages and everything they import, from one
// go list.
type laneGraph struct {
	pkgs   map[string]*lanePackage // every package of the build, by import path
	listed []string                // what go list ./... prints, sorted
}

type lanePackage struct {
	ImportPath string
	Name       string
	Standard   bool
	DepOnly    bool
	GoFiles    []string
	Imports    []string // the non-test files' imports
	Error      *struct{ Err string }
}

var (
	laneGraphOnce sync.Once
	laneGraphMemo *laneGraph
	laneGraphErr  error
)

func loadLaneGraph(t *testing.T) *laneGraph {
	t.Helper()
	laneGraphOnce.Do(func() { laneGraphMemo, laneGraphErr = listLaneGraph() })
	if laneGraphErr != nil {
		t.Fatal(laneGraphErr)
	}
	return laneGraphMemo
}

func listLaneGraph() (*laneGraph, error) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		goTool = "go"
	}
	args := []string{"list", "-e", "-deps", "-json=ImportPath,Name,Standard,DepOnly,GoFiles,Imports,Error", "./..."}
	cmd := exec.Command(goTool, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	g := &laneGraph{pkgs: map[string]*lanePackage{}}
	var errs []error
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		p := new(lanePackage)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: %v", err)
		}
		g.pkgs[p.ImportPath] = p
		if !p.DepOnly && laneInModule(p.ImportPath) {
			g.listed = append(g.listed, p.ImportPath)
			if p.Error != nil {
				errs = append(errs, fmt.Errorf("go list %s: %s", laneRel(p.ImportPath), p.Error.Err))
			}
		}
	}
	sort.Strings(g.listed)
	return g, errors.Join(errs...)
}

func laneInModule(p string) bool {
	return p == modulePath || strings.HasPrefix(p, modulePath+"/")
}

// laneRel is p as the table names it.
func laneRel(p string) string {
	if p == modulePath {
		return "."
	}
	if rest, ok := strings.CutPrefix(p, modulePath+"/"); ok {
		return rest
	}
	return p
}

// abs is the import path of a name in the table: a package of the module
// by its relative path, else the name itself.
func (g *laneGraph) abs(name string) string {
	if name == "." {
		return modulePath
	}
	if p := modulePath + "/" + name; g.pkgs[p] != nil && !g.pkgs[p].DepOnly {
		return p
	}
	return name
}

// reach walks the non-test imports from p, not into the packages in stop,
// and returns every package met with the one that imports it on the way.
func (g *laneGraph) reach(p string, stop map[string]bool) map[string]string {
	from := map[string]string{p: ""}
	queue := []string{p}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur != p && stop[cur] {
			continue
		}
		pkg := g.pkgs[cur]
		if pkg == nil {
			continue
		}
		for _, imp := range pkg.Imports {
			if _, seen := from[imp]; !seen {
				from[imp] = cur
				queue = append(queue, imp)
			}
		}
	}
	return from
}

// via says how p reaches dep: "imports X" or "imports X through A -> X".
func laneVia(p, dep string, from map[string]string) string {
	chain := []string{laneRel(dep)}
	for cur := from[dep]; cur != "" && cur != p; cur = from[cur] {
		chain = append(chain, laneRel(cur))
	}
	if len(chain) == 1 {
		return fmt.Sprintf("%s imports %s", laneRel(p), laneRel(dep))
	}
	slices.Reverse(chain)
	return fmt.Sprintf("%s imports %s (through %s)", laneRel(p), laneRel(dep), strings.Join(chain, " -> "))
}

// laneSortedKeys returns the packages of from but p itself, in order.
func laneSortedKeys(from map[string]string, p string) []string {
	var keys []string
	for k := range from {
		if k != p {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// checkLane checks one package against its row.
func (g *laneGraph) checkLane(t *testing.T, l lane) {
	p := g.abs(l.pkg)
	pkg := g.pkgs[p]
	if pkg == nil || pkg.DepOnly {
		t.Skipf("%s is no package of the module (see the table subtest)", l.pkg)
	}
	stop := map[string]bool{}
	for _, m := range l.may {
		stop[g.abs(m)] = true
	}
	from := g.reach(p, stop)
	for _, f := range l.not {
		if f == "./..." {
			for _, dep := range laneSortedKeys(from, p) {
				if laneInModule(dep) && !stop[dep] {
					t.Errorf("%s: no polite package allowed", laneVia(p, dep, from))
				}
			}
			continue
		}
		if dep := g.abs(f); !stop[dep] {
			if _, ok := from[dep]; ok {
				t.Error(laneVia(p, dep, from))
			}
		}
	}
	for _, f := range l.notDirect {
		if slices.Contains(pkg.Imports, g.abs(f)) {
			t.Errorf("%s imports %s", l.pkg, f)
		}
	}
	if l.stdOnly {
		for _, dep := range laneSortedKeys(from, p) {
			// Where the path leaves the standard library, not what follows.
			if d, by := g.pkgs[dep], g.pkgs[from[dep]]; d != nil && !d.Standard && (from[dep] == p || by != nil && by.Standard) {
				t.Errorf("%s: only the standard library allowed", laneVia(p, dep, from))
			}
		}
	}
}

// checkTable checks that the table has one row for every package go list
// prints, no row for a package that is gone, and rows that hold together.
func (g *laneGraph) checkTable(t *testing.T) {
	rows := map[string]lane{}
	for _, l := range lanes {
		if _, dup := rows[l.pkg]; dup {
			t.Errorf("%s has two rows", l.pkg)
		}
		rows[l.pkg] = l
	}
	for _, p := range g.listed {
		if _, ok := rows[laneRel(p)]; !ok {
			t.Errorf("%s has no row in lanes (deps_test.go): give it its rule", laneRel(p))
		}
	}
	for _, l := range lanes {
		p := g.abs(l.pkg)
		pkg := g.pkgs[p]
		if pkg == nil || pkg.DepOnly {
			t.Errorf("the row of %s names a package that no longer exists", l.pkg)
			continue
		}
		if want, ok := g.kindOf(pkg); ok && want != l.kind {
			t.Errorf("%s's row says %s; the package is a %s", l.pkg, l.kind, want)
		}
		if len(l.may) > 0 && l.kind != laneSupport {
			t.Errorf("%s's row has may, which only test support has", l.pkg)
		}
		for _, m := range l.may {
			if !laneInModule(g.abs(m)) {
				t.Errorf("%s's row: may names %s, no package of the module", l.pkg, m)
			}
			if slices.Contains(l.not, m) {
				t.Errorf("%s's row both allows and forbids %s", l.pkg, m)
			}
		}
		for _, f := range slices.Concat(l.not, l.notDirect) {
			if f != "./..." && g.pkgs[g.abs(f)] == nil {
				t.Errorf("%s's row forbids %s, which is no package of this build", l.pkg, f)
			}
		}
		if strings.HasPrefix(l.pkg, "crawl/") {
			for _, f := range crawlLeafNot {
				covered := slices.Contains(l.not, f) || slices.Contains(l.may, f) ||
					slices.Contains(l.not, "./...") && laneInModule(g.abs(f))
				if !covered {
					t.Errorf("%s's row leaves out the crawl leaves' rule: it must forbid %s", l.pkg, f)
				}
			}
		}
	}
}

// kindOf is the part the package's path and files say it plays, where
// they say it.
func (g *laneGraph) kindOf(pkg *lanePackage) (laneKind, bool) {
	rel := laneRel(pkg.ImportPath)
	switch {
	case rel == ".":
		return laneBinary, true
	case rel == "cmd":
		return laneCLI, true
	case strings.HasPrefix(rel, "cmd/") && pkg.Name == "main":
		return laneProgram, true
	case strings.HasSuffix(rel, "test") && slices.Equal(pkg.GoFiles, []string{"doc.go"}):
		return laneTestOnly, true
	case strings.HasSuffix(rel, "test"):
		return laneSupport, true
	case rel == "crawl":
		return laneEngine, true
	case strings.HasPrefix(rel, "crawl/"):
		return laneLeaf, true
	case rel == "store" || strings.HasPrefix(rel, "store/"):
		return laneStore, true
	}
	return 0, false
}

// laneTestish reports whether p is test support or tests alone.
func laneTestish(p string) bool { return strings.HasSuffix(laneRel(p), "test") }

// checkParents checks that no package imports its parent directory's
// package (the nearest folder above it that is a package), but test
// support and programs.
func (g *laneGraph) checkParents(t *testing.T) {
	for _, p := range g.listed {
		if laneTestish(p) || g.pkgs[p].Name == "main" {
			continue
		}
		parent := ""
		for dir := path.Dir(p); laneInModule(dir); dir = path.Dir(dir) {
			if d := g.pkgs[dir]; d != nil && !d.DepOnly {
				parent = dir
				break
			}
		}
		if parent == "" {
			continue
		}
		from := g.reach(p, nil)
		if _, ok := from[parent]; ok {
			t.Errorf("%s: a package may not import its parent directory's package", laneVia(p, parent, from))
		}
	}
}

// checkTestSupport checks that the non-test code of every package but the
// test-support and test-only ones and the programs under cmd/polite-*
// imports no test-support package, nor package testing.
func (g *laneGraph) checkTestSupport(t *testing.T) {
	for _, p := range g.listed {
		if laneTestish(p) || (strings.HasPrefix(laneRel(p), "cmd/") && g.pkgs[p].Name == "main") {
			continue
		}
		from := g.reach(p, nil)
		for _, dep := range laneSortedKeys(from, p) {
			if (laneInModule(dep) && laneTestish(dep)) || dep == "testing" {
				t.Errorf("%s: test support in non-test code", laneVia(p, dep, from))
			}
		}
	}
}
