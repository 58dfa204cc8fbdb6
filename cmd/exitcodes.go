package cmd

import (
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/spf13/cobra"
)

// exitCodeHelp is each command's exit code table, as --help shows it
// under "Exit codes". Every command exits 2 on a usage error: an unknown
// command or flag, a bad flag value, an argument too many or missing.
var exitCodeHelp = map[string]string{
	"polite":       `  2    usage error; each command's help lists its own codes`,
	"polite crawl": report.CrawlExitText(78),
	"polite status": `  0    shown
  1    the database could not be read, or --job names no job in it
  2    usage error`,
	"polite runs": `  0    listed
  1    the database could not be read
  2    usage error`,
	"polite report": `  0    shown or written
  1    no such run, the run has no report, or the file could not be written
  2    usage error: RUN is no run number, --json with --html -`,
	"polite forget": `  0    forgotten
  1    the database could not be written
  2    usage error, or --all from a script without --yes
  3    a crawl holds the database`,
	"polite exclude": `  0    help shown
  2    usage error: an unknown subcommand`,
	"polite exclude add": `  0    every rule added, or already in the list
  1    the database could not be written
  2    usage error: a RULE that is no host, .domain or http(s) URL prefix`,
	"polite exclude list": `  0    listed
  1    the database could not be read
  2    usage error`,
	"polite exclude remove": `  0    every rule removed
  1    a rule was not in the list, or the database could not be written
  2    usage error: a RULE that is no host, .domain or http(s) URL prefix
  3    crawl workers of a shared (PostgreSQL) database are live`,
	"polite changes": `  0    shown
  1    no run yet, no such run, the run has no report, or the database
       could not be read
  2    usage error: RUN is no run number`,
	"polite wacz": `  0    written
  1    no run yet, the job wrote no WARC files, a WARC file or its index
       could not be read, or the file could not be written
  2    usage error: no -o FILE.wacz`,
	"polite robots check": `  0    every URL allowed
  1    some URL disallowed
  2    an error: a bad flag or URL, an unreadable file, database trouble`,
}

// documentExitCodes gives every command under root its exit code table
// for --help; a command not in exitCodeHelp exits 0 or 2.
func documentExitCodes(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		text, ok := exitCodeHelp[c.CommandPath()]
		if !ok {
			text = "  0    done\n  2    usage error"
		}
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		if c.Annotations[exitCodesKey] == "" {
			c.Annotations[exitCodesKey] = text
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
