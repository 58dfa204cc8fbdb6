// Command polite-dist packs polite's release archives and their checksum
// file, the same bytes every time for the same files and the same
// $SOURCE_DATE_EPOCH (make dist sets it to the commit's time):
//
//	polite-dist archive -o polite_V_linux_amd64.tar.gz [-root DIR] NAME=PATH...
//	polite-dist sums -o SHA256SUMS FILE...
//
// archive writes a .tar.gz or a .zip (by -o's name) holding each PATH (a
// file, or a folder and everything in it) as NAME under the folder -root.
// Entries are sorted by name, owned by uid and gid 0 with no owner names,
// dated $SOURCE_DATE_EPOCH, mode 0755 for folders and executables and
// 0644 for other files; the gzip header carries no time and no name.
// sums writes "SHA256  NAME" lines, sorted by name, that sha256sum -c
// checks.
//
// It is written in Go (archive/tar, archive/zip, compress/gzip) rather than
// left to the flags of GNU tar and zip, which differ between systems and
// versions and cannot all pin what it pins.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Getenv("SOURCE_DATE_EPOCH"), os.Stderr)) }

const usageText = `usage:
  polite-dist archive -o FILE.tar.gz|FILE.zip [-root DIR] NAME=PATH...
  polite-dist sums -o SHA256SUMS FILE...`

func run(args []string, epoch string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usageText)
		return 2
	}
	fs := flag.NewFlagSet("polite-dist "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the `FILE` to write")
	root := fs.String("root", "", "the folder `DIR` every entry of the archive is under")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() == 0 {
		fmt.Fprintln(stderr, usageText)
		return 2
	}
	var err error
	switch args[0] {
	case "archive":
		var mtime time.Time
		if mtime, err = sourceDate(epoch); err == nil {
			err = writeArchive(*out, *root, fs.Args(), mtime)
		}
	case "sums":
		err = writeSums(*out, fs.Args())
	default:
		fmt.Fprintf(stderr, "polite-dist: unknown command %q\n%s\n", args[0], usageText)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "polite-dist %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// sourceDate is the time of $SOURCE_DATE_EPOCH, which an archive needs.
func sourceDate(epoch string) (time.Time, error) {
	if epoch == "" {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH is not set: the archive's entries are dated by it (make dist sets it to the commit's time)")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(epoch), 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want seconds since 1970", epoch)
	}
	return time.Unix(n, 0).UTC(), nil
}
