//go:build !linux

package crawltest

// ramDir finds no RAM-backed folder outside Linux: the tests keep TMPDIR.
func ramDir() string { return "" }
