package frontier

import (
	"encoding"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// vocabulary is what each vocabulary type has: its text, written exactly.
type vocabulary interface {
	~string
	fmt.Stringer
	encoding.TextMarshaler
}

// vocabConsts are the constants of each vocabulary type by name; the test
// checks them against the constants the package declares.
var vocabConsts = map[string]map[string]string{
	"Reason": names(map[string]Reason{
		"ReasonTooLarge": ReasonTooLarge, "ReasonPrivateAddress": ReasonPrivateAddress, "ReasonBadEncoding": ReasonBadEncoding,
		"ReasonCanceled": ReasonCanceled, "ReasonDNS": ReasonDNS, "ReasonTLS": ReasonTLS, "ReasonRefused": ReasonRefused,
		"ReasonReset": ReasonReset, "ReasonTimeout": ReasonTimeout, "ReasonBadHeaders": ReasonBadHeaders,
		"ReasonNetwork": ReasonNetwork, "ReasonBadURL": ReasonBadURL, "ReasonRobots": ReasonRobots,
		"ReasonBadRedirect": ReasonBadRedirect, "ReasonRedirectScheme": ReasonRedirectScheme,
		"ReasonRedirectLoop": ReasonRedirectLoop, "ReasonTooManyRedirects": ReasonTooManyRedirects,
		"ReasonSitemapUnchanged": ReasonSitemapUnchanged, "ReasonTLSUnknownAuthority": ReasonTLSUnknownAuthority,
		"ReasonTLSExpired": ReasonTLSExpired, "ReasonTLSNameMismatch": ReasonTLSNameMismatch, "ReasonTLSAlert": ReasonTLSAlert,
		"ReasonTLSVersion": ReasonTLSVersion, "ReasonOperator": ReasonOperator,
	}),
	"Stop": names(map[string]Stop{
		"StopDone": StopDone, "StopUnreachable": StopUnreachable, "StopPrivate": StopPrivate, "StopRobots": StopRobots,
		"StopCrawlDelay": StopCrawlDelay, "StopTLS": StopTLS, "StopDeferred": StopDeferred, "StopBudget": StopBudget,
		"StopInterrupted": StopInterrupted, "StopError": StopError, "StopOperator": StopOperator, "StopAuth": StopAuth,
	}),
	"RunStop": names(map[string]RunStop{
		"RunDone": RunDone, "RunBudget": RunBudget, "RunInterrupted": RunInterrupted, "RunError": RunError,
	}),
	"Change": names(map[string]Change{
		"ChangeNew": ChangeNew, "ChangeChanged": ChangeChanged, "ChangeUnchanged": ChangeUnchanged,
		"ChangeGone": ChangeGone, "ChangeNotDue": ChangeNotDue,
	}),
	"Budget": names(map[string]Budget{
		"BudgetMaxRequests": BudgetMaxRequests, "BudgetMaxBytes": BudgetMaxBytes, "BudgetMaxDuration": BudgetMaxDuration,
		"BudgetMaxPerHost": BudgetMaxPerHost, "BudgetRetry": BudgetRetry,
	}),
}

func names[T ~string](m map[string]T) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// declaredConsts parses the package and returns its constants of each
// named type, by name, with their text.
func declaredConsts(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				typ, ok := vs.Type.(*ast.Ident)
				if !ok {
					continue
				}
				for i, n := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: not a literal", n.Name)
					}
					v, _ := strconv.Unquote(lit.Value)
					if out[typ.Name] == nil {
						out[typ.Name] = map[string]string{}
					}
					out[typ.Name][n.Name] = v
				}
			}
		}
	}
	return out
}

// parseDir parses the Go files of dir but its tests.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var fs []*ast.File
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// TestVocabularyConstants: the test's lists are every constant each
// vocabulary type declares, and no other type is a vocabulary but State
// and Kind (whose words predate these).
func TestVocabularyConstants(t *testing.T) {
	t.Parallel()
	declared := declaredConsts(t, ".")
	for typ, consts := range declared {
		if typ == "State" || typ == "Kind" {
			continue
		}
		want := vocabConsts[typ]
		if want == nil {
			t.Errorf("type %s has constants but is not in vocabConsts", typ)
			continue
		}
		for name, v := range consts {
			if got, ok := want[name]; !ok || got != v {
				t.Errorf("%s %s = %q is not in vocabConsts", typ, name, v)
			}
		}
		for name := range want {
			if _, ok := consts[name]; !ok {
				t.Errorf("vocabConsts has %s %s, which the package does not declare", typ, name)
			}
		}
	}
}

// checkVocabulary checks a vocabulary's constants: each is known, its
// String is non-empty and no other's, MarshalText writes exactly it and
// UnmarshalText (and JSON) reads it back; text that is no constant is not
// known, and is read back as it was written.
func checkVocabulary[T vocabulary, P interface {
	*T
	encoding.TextUnmarshaler
}](t *testing.T, consts []T, known func(T) bool) {
	t.Helper()
	if len(consts) == 0 {
		t.Fatal("no constants")
	}
	seen := map[string]bool{}
	for _, c := range append(consts, T("some other text")) {
		s := c.String()
		if s == "" || s != string(c) || seen[s] {
			t.Errorf("%q: String %q empty, not the text or not distinct", string(c), s)
		}
		seen[s] = true
		if isConst := s != "some other text"; known(c) != isConst {
			t.Errorf("%q: known %v, want %v", s, known(c), isConst)
		}
		text, err := c.MarshalText()
		if err != nil || string(text) != s {
			t.Errorf("%q: MarshalText %q, %v", s, text, err)
		}
		var back T
		if err := P(&back).UnmarshalText(text); err != nil || back != c {
			t.Errorf("%q: UnmarshalText %q, %v", s, back, err)
		}
		data, err := json.Marshal(c)
		if err != nil || string(data) != strconv.Quote(s) {
			t.Errorf("%q: JSON %s, %v", s, data, err)
		}
		back = ""
		if err := json.Unmarshal(data, &back); err != nil || back != c {
			t.Errorf("%q: read from JSON %q, %v", s, back, err)
		}
	}
}

func constsOf[T ~string](typ string) []T {
	var out []T
	for _, v := range vocabConsts[typ] {
		out = append(out, T(v))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func TestReasonVocabulary(t *testing.T) {
	t.Parallel()
	checkVocabulary(t, constsOf[Reason]("Reason"), Reason.Classified)
	for _, r := range []Reason{HTTPReason(404), HTTPReason(503)} {
		if !r.Classified() {
			t.Errorf("%q: not classified", r)
		}
	}
	if got := HTTPReason(503); got != "http-503" {
		t.Errorf("HTTPReason(503) = %q", got)
	}
	if got := ReasonTimeout.RetrySpent(); got != "timeout (retry budget spent)" || got.Classified() {
		t.Errorf("RetrySpent = %q (classified %v), want timeout (retry budget spent), free text", got, got.Classified())
	}
	by := ExcludedBy(".example.org")
	if rule, ok := by.Rule(); by != "excluded by the operator: .example.org" || !ok || rule != ".example.org" || !by.Classified() {
		t.Errorf("ExcludedBy = %q, Rule %q %v, classified %v; want excluded by the operator: .example.org, its rule, classified",
			by, rule, ok, by.Classified())
	}
	if rule, ok := ReasonRobots.Rule(); ok {
		t.Errorf("robots.Rule() = %q, true; want no rule", rule)
	}
	for _, r := range []Reason{"", "http-", "http-5x3", "http-5030", "deferred: Retry-After beyond --max-retry-after",
		"excluded by the operator: "} {
		if r.Classified() {
			t.Errorf("%q: classified", r)
		}
	}
}

func TestStopVocabulary(t *testing.T) {
	t.Parallel()
	checkVocabulary(t, constsOf[Stop]("Stop"), Stop.Known)
}

func TestRunStopVocabulary(t *testing.T) {
	t.Parallel()
	checkVocabulary(t, constsOf[RunStop]("RunStop"), RunStop.Known)
	want := map[RunStop]Stop{RunDone: StopBudget, RunBudget: StopBudget, RunInterrupted: StopInterrupted, RunError: StopError}
	for _, s := range constsOf[RunStop]("RunStop") {
		if got := s.HostStop(); got != want[s] {
			t.Errorf("%s.HostStop() = %q, want %q", s, got, want[s])
		}
	}
}

func TestBudgetVocabulary(t *testing.T) {
	t.Parallel()
	checkVocabulary(t, constsOf[Budget]("Budget"), Budget.Known)
}

// TestReasonTLS: the refused handshakes, and only they, stop a host: a
// handshake that timed out or was cut is a timeout or a reset, retried.
func TestReasonTLS(t *testing.T) {
	t.Parallel()
	refused := map[Reason]bool{ReasonTLS: true, ReasonTLSUnknownAuthority: true, ReasonTLSExpired: true,
		ReasonTLSNameMismatch: true, ReasonTLSAlert: true, ReasonTLSVersion: true}
	for _, r := range constsOf[Reason]("Reason") {
		if got := r.TLS(); got != refused[r] {
			t.Errorf("%q.TLS() = %v, want %v", r, got, refused[r])
		}
	}
	for _, r := range []Reason{"", HTTPReason(495), "tls-expired (retry budget spent)", "tls-other"} {
		if r.TLS() {
			t.Errorf("%q.TLS() = true, want false", r)
		}
	}
}

func TestChangeVocabulary(t *testing.T) {
	t.Parallel()
	checkVocabulary(t, constsOf[Change]("Change"), Change.Known)
}
