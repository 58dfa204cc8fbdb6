package usage

import (
	"strings"
	"testing"
)

func FuzzStatement(f *testing.F) {
	for _, s := range []string{"train-ai=y, search=n", `train-ai=y, train-ai, search=n, search="n"`, "train-ai;allow=n, train-ai=y", "a=(1 2);x, b=?0", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := ParseStatement(s)
		for _, l := range Categories {
			if v := st.Get(l); v < Unknown || v > Disallow {
				t.Fatalf("%s: value %d", l, v)
			}
		}
		_ = st.String()
		if st.Err != "" && len(st.Prefs) != 0 {
			t.Fatalf("unparsed statement with preferences %v", st.Prefs)
		}
	})
}

func FuzzMeta(f *testing.F) {
	f.Add(`<head><meta name="tdm-reservation" content="1"></head>`)
	f.Add("<meta name=tdm-reservation content=0><meta")
	f.Fuzz(func(t *testing.T, page string) {
		if s, ok := Meta([]byte(page)); ok && (s.TDM == nil || (*s.TDM != 0 && *s.TDM != 1)) {
			t.Fatalf("bad signal %+v", s)
		}
	})
}

func FuzzTDMRep(f *testing.F) {
	f.Add(`[{"location":"/*","tdm-reservation":1}]`, "/a")
	f.Add(`[{"location":"/a*b$","tdm-reservation":0}]`, "/a-b")
	f.Fuzz(func(t *testing.T, body, path string) {
		file, err := ParseTDMRep([]byte(body))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "tdmrep.json") {
				t.Fatalf("error %q does not name tdmrep.json", err)
			}
			return
		}
		if s, ok := file.For(path); ok && (s.TDM == nil || (*s.TDM != 0 && *s.TDM != 1)) {
			t.Fatalf("bad signal %+v", s)
		}
	})
}
