//go:build !race

package e2etest

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
