//go:build race

package crawl_test

// raceEnabled says the tests run under the race detector.
const raceEnabled = true
