package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseSeedArgs(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seeds, []byte("https://example.org/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file whose name reads as a URL is a file.
	urlFile := filepath.Join(dir, "http:")
	if err := os.MkdirAll(urlFile, 0o755); err != nil {
		t.Fatal(err)
	}
	weird := filepath.Join(urlFile, "x")
	if err := os.WriteFile(weird, []byte("https://example.org/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)
	tests := []struct {
		name    string
		args    []string
		wantJob string
		wantErr string
	}{
		{"seed file", []string{seeds}, seeds, ""},
		{"stdin", []string{"-"}, "stdin@2026-12-01T08:30:00Z", ""},
		{"one URL", []string{"https://example.org/"}, "urls:https://example.org/", ""},
		{"URLs: their sorted, normalised set", []string{"https://example.org/", "HTTP://B.example:8080/x?q=1#top", "https://example.org:443/"},
			"urls:http://b.example:8080/x?q=1 https://example.org/", ""},
		{"a file named like a URL is a file", []string{weird}, weird, ""},
		{"no such file, no URL", []string{filepath.Join(dir, "nope.txt")}, "", "no such file, and not an http(s) URL"},
		{"a host without a scheme", []string{"example.org"}, "", "did you mean https://example.org?"},
		{"another scheme", []string{"ftp://files.example.org/"}, "", `scheme "ftp" is not http or https`},
		{"a folder", []string{dir}, "", "is a folder"},
		{"two files", []string{seeds, seeds}, "", "not several sources"},
		{"a file and URLs", []string{seeds, "https://example.org/"}, "", "not several sources"},
		{"stdin and URLs", []string{"-", "https://example.org/"}, "", "not several sources"},
		{"a good URL and a bad one", []string{"https://example.org/", "example.org"}, "", "neither a seed file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := parseSeedArgs(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, errUsage) {
					t.Fatalf("error %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := src.job(now); got != tt.wantJob {
				t.Errorf("job %q, want %q", got, tt.wantJob)
			}
		})
	}
}

// The job of a seed file is its absolute path, however it is named.
func TestSeedFileJobIsItsAbsolutePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "seeds.txt"), []byte("https://a.example/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	src, err := parseSeedArgs([]string{"./seeds.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(filepath.Join(dir, "seeds.txt"))
	if got := src.job(time.Now()); got != want {
		t.Errorf("job %q, want %q", got, want)
	}
}

func TestResolveContact(t *testing.T) {
	cfg := t.TempDir()
	write := func(name, text string) string {
		d := filepath.Join(cfg, name, "polite")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "contact"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(cfg, name)
	}
	withFile := write("good", "# who runs this crawl\n\n  mailto:crawl@example.org  \n")
	empty := write("empty", "# nothing\n\n")
	home := filepath.Dir(write(filepath.Join("home", ".config"), "h@example.org\n"))
	tests := []struct {
		name     string
		flag     string
		env      map[string]string
		want     string
		wantFrom string
		wantErr  string
	}{
		{"nothing set", "", map[string]string{"XDG_CONFIG_HOME": t.TempDir()}, ProjectURL, "", ""},
		{"flag", "https://me.example/", map[string]string{"POLITE_CONTACT": "x@example.org"}, "https://me.example/", "--contact", ""},
		{"env", "", map[string]string{"POLITE_CONTACT": "x@example.org", "XDG_CONFIG_HOME": withFile}, "x@example.org", "POLITE_CONTACT", ""},
		{"file", "", map[string]string{"XDG_CONFIG_HOME": withFile}, "mailto:crawl@example.org", filepath.Join(withFile, "polite", "contact"), ""},
		{"file under HOME", "", map[string]string{"HOME": home}, "h@example.org", filepath.Join(home, ".config", "polite", "contact"), ""},
		{"empty file", "", map[string]string{"XDG_CONFIG_HOME": empty}, "", "", "holds no contact"},
		{"header injection", "", map[string]string{"POLITE_CONTACT": "x@example.org\r\nX-Evil: 1"}, "", "", "control"},
		{"bracket", "me (really)", nil, "", "", "bracket"},
		{"too long", strings.Repeat("a", 201), nil, "", "", "longer than 200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, from, err := resolveContact(tt.flag, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, errUsage) {
					t.Fatalf("error %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || from != tt.wantFrom {
				t.Errorf("got %q from %q (%v), want %q from %q", got, from, err, tt.want, tt.wantFrom)
			}
		})
	}
}
