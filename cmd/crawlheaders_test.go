package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The four ways in: --header, --header-host, --header-file and
// $POLITE_HEADERS; a file's and the environment's headers are secret.
func TestCrawlHeaders(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h")
	if err := os.WriteFile(file, []byte("# token\n\nX-Api-Key: k1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := &crawlOptions{
		Headers:     []string{"Accept: application/json"},
		HostHeaders: []string{"data.example.org=X-Trace: 1"},
		HeaderFile:  file,
		Getenv: func(k string) string {
			if k == headerEnv {
				return "Authorization: Bearer e1\nX-Other: o"
			}
			return ""
		},
	}
	hs, err := o.headers()
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, h := range hs {
		got = append(got, h.Name+"|"+h.Host+"|"+map[bool]string{true: "secret", false: "plain"}[h.Secret])
	}
	want := "Accept||plain X-Trace|data.example.org|plain X-Api-Key||secret Authorization||secret X-Other||secret"
	if strings.Join(got, " ") != want {
		t.Errorf("headers %q, want %q", strings.Join(got, " "), want)
	}
}

func TestCrawlHeaderFileRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, err string
	}{
		{"missing", filepath.Join(dir, "nope"), "no such file"},
		{"a folder", dir, "not a regular file"},
		{"too big", write("big", strings.Repeat("X-A: b\n", maxHeaderFile/7+1), 0o600), "over"},
		{"bad line", write("bad", "X-A: b\nsecret-token\n", 0o600), ":2: "},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests,
			struct{ name, path, err string }{"group readable", write("g", "X-A: b\n", 0o640), "group or others"},
			struct{ name, path, err string }{"world writable", write("w", "X-A: b\n", 0o602), "group or others"})
	}
	for _, tt := range tests {
		o := &crawlOptions{HeaderFile: tt.path, Getenv: func(string) string { return "" }}
		_, err := o.headers()
		if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "secret-token") {
			t.Errorf("%s: error %v; want a usage error saying %q, no line shown", tt.name, err, tt.err)
		}
	}
}
