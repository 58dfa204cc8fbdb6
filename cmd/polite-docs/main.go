// Command polite-docs writes polite's manual pages and shell completion
// scripts from its commands' help text, the one source of both:
//
//	polite-docs [-version V] [-man DIR] [-completions DIR]
//
// -man writes a page per command (polite.1, polite-crawl.1, ...) with
// spf13/cobra/doc, each ending with the command's exit codes; their date
// is $SOURCE_DATE_EPOCH when set, so that a release's pages are the same
// however often they are built. -completions writes the bash, zsh and fish
// scripts cobra generates (polite.bash, _polite, polite.fish).
//
// It is a program of its own rather than a hidden command of polite, so
// that the man page renderer (go-md2man) stays out of the binary users
// run, and so that the pages and scripts are written once on the build
// machine for the archives of every platform, whose binaries it may not
// be able to run.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("polite-docs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.String("version", "", "the version the pages name (default: none)")
	manDir := fs.String("man", "", "write the manual pages into `DIR`")
	complDir := fs.String("completions", "", "write the completion scripts into `DIR`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*manDir == "" && *complDir == "") {
		fmt.Fprintln(stderr, "usage: polite-docs [-version V] [-man DIR] [-completions DIR]")
		return 2
	}
	if *manDir != "" {
		date, err := sourceDate(os.Getenv("SOURCE_DATE_EPOCH"))
		if err == nil {
			err = writeManPages(*manDir, *version, date)
		}
		if err != nil {
			fmt.Fprintf(stderr, "polite-docs: %v\n", err)
			return 1
		}
	}
	if *complDir != "" {
		if err := writeCompletions(*complDir); err != nil {
			fmt.Fprintf(stderr, "polite-docs: %v\n", err)
			return 1
		}
	}
	return 0
}
