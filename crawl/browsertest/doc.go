// Package browsertest opens report.html in headless Chromium: the page a
// crawl writes, as a browser draws and builds it. It holds tests only;
// they start a browser each, so they live apart from crawl's fast tests.
// The report they open is package report's sample report (crawl/report/
// testdata/sample-report.json, kept equal to it by its TestSampleReportFile).
package browsertest
