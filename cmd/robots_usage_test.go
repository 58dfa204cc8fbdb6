package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// robots check --purpose explains each URL's Content-Usage lines and
// exits 1 when they refuse a declared purpose, as for a disallowed URL.
func TestRobotsCheckPurpose(t *testing.T) {
	file := "User-agent: *\nDisallow: /x\nContent-Usage: / train-ai=n, bots=n\nContent-Usage: /ok/ train-ai=y\n"
	base := []string{"robots", "check", "--file", "-"}
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		out      []string
		notInOut string
	}{
		{"refused", []string{"--purpose", "train-ai", "https://a.example/p"}, 1,
			[]string{"usage         robots.txt line 3: Content-Usage: / train-ai=n, bots=n; read as train-ai=n, bots=n (unknown category)\n",
				"purpose       train-ai refused by robots.txt line 3"}, ""},
		{"a longer path says y", []string{"--purpose", "train-ai", "https://a.example/ok/1"}, 0,
			[]string{"usage         robots.txt line 4: Content-Usage: /ok/ train-ai=y\n", "purpose       train-ai not refused\n"}, ""},
		{"another purpose", []string{"--purpose", "search,archive", "https://a.example/p"}, 0,
			[]string{"purpose       search,archive not refused\n"}, ""},
		{"disallowed: no preferences", []string{"--purpose", "train-ai", "https://a.example/x"}, 1,
			[]string{"DISALLOWED", "usage         none\n"}, "refused by"},
		{"without --purpose: as before", []string{"https://a.example/p"}, 0, []string{"ALLOWED"}, "usage"},
		{"unknown purpose", []string{"--purpose", "scrape", "https://a.example/p"}, 2, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, file, append(base, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.notInOut != "" && strings.Contains(out, tc.notInOut) {
				t.Errorf("output has %q:\n%s", tc.notInOut, out)
			}
		})
	}
	code, out, _ := runCmd(t, file, append(base, "--json", "--purpose", "train-ai", "https://a.example/p")...)
	var js struct {
		Results []struct {
			Usage     []string `json:"usage"`
			RefusedBy string   `json:"refused_by"`
		}
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || code != 1 || len(js.Results) != 1 ||
		len(js.Results[0].Usage) != 1 || !strings.HasPrefix(js.Results[0].RefusedBy, "train-ai refused by robots.txt line 3") {
		t.Errorf("--json: exit %d, %+v (%v)\n%s", code, js, err, out)
	}
}
