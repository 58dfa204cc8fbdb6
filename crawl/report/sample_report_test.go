package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateSample = flag.Bool("update-sample", false, "rewrite testdata/sample-report.json from sampleReport")

// sampleReportFile is sampleReport as report.json: the browser tests
// (crawl/browsertest) open the page written from it.
var sampleReportFile = filepath.Join("testdata", "sample-report.json")

// TestSampleReportFile keeps testdata/sample-report.json equal to
// sampleReport (go test -run TestSampleReportFile -update-sample rewrites
// it), and checks that the report read back from it writes the same
// report.html, so that the browser tests see the page the tests here check.
func TestSampleReportFile(t *testing.T) {
	t.Parallel()
	want, err := json.MarshalIndent(sampleReport(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *updateSample {
		if err := os.WriteFile(sampleReportFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(sampleReportFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from sampleReport; run go test -run TestSampleReportFile -update-sample ./crawl/report/", sampleReportFile)
	}
	var read Report
	if err := json.Unmarshal(got, &read); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := sampleReport().WriteHTML(&a); err != nil {
		t.Fatal(err)
	}
	if err := read.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("report.html of the report read from %s differs from sampleReport's", sampleReportFile)
	}
}
