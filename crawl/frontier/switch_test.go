package frontier

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// importPath is this package's, as the files that use it import it.
const importPath = "github.com/polite-crawler/polite/crawl/frontier"

// TestVocabularySwitchesExhaustive reads every Go file of polite but its
// tests: a switch one of whose cases names a constant of a vocabulary
// (Reason, Stop, RunStop, Budget) lists every constant of that vocabulary,
// so that a new constant cannot slip through a switch that interprets the
// others.
func TestVocabularySwitchesExhaustive(t *testing.T) {
	t.Parallel()
	typeOf := map[string]string{} // constant name -> its vocabulary
	for typ, consts := range vocabConsts {
		for name := range consts {
			typeOf[name] = typ
		}
	}
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		name := vocabName(f)
		if name == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sw, ok := n.(*ast.SwitchStmt)
			if !ok {
				return true
			}
			listed := map[string]map[string]bool{} // vocabulary -> constants its cases name
			for _, s := range sw.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					if c := constName(e, name); typeOf[c] != "" {
						if listed[typeOf[c]] == nil {
							listed[typeOf[c]] = map[string]bool{}
						}
						listed[typeOf[c]][c] = true
					}
				}
			}
			for typ, got := range listed {
				checked++
				var missing []string
				for c := range vocabConsts[typ] {
					if !got[c] {
						missing = append(missing, c)
					}
				}
				sort.Strings(missing)
				if len(missing) > 0 {
					t.Errorf("%s: switch over %s does not list %s", fset.Position(sw.Pos()), typ, strings.Join(missing, ", "))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Error("no switch over a vocabulary found: the test reads nothing")
	}
}

// vocabName is how f names this package's identifiers: "." in this
// package's own files, the import's name in the files that import it, and
// "" in the others (which cannot name the constants).
func vocabName(f *ast.File) string {
	if f.Name.Name == "frontier" {
		return "."
	}
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == importPath {
			if im.Name != nil {
				return im.Name.Name
			}
			return "frontier"
		}
	}
	return ""
}

// constName is the identifier e names, when it names one of this
// package's as name does: a bare identifier here ("."), frontier.X
// elsewhere.
func constName(e ast.Expr, name string) string {
	switch x := e.(type) {
	case *ast.Ident:
		if name == "." {
			return x.Name
		}
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && id.Name == name {
			return x.Sel.Name
		}
	}
	return ""
}
