package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/polite-crawler/polite/cmd"
)

// sourceDate is the time $SOURCE_DATE_EPOCH names (seconds since 1970),
// or now when it is empty.
func sourceDate(epoch string) (time.Time, error) {
	if epoch == "" {
		return time.Now().UTC(), nil
	}
	n, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want seconds since 1970", epoch)
	}
	return time.Unix(n, 0).UTC(), nil
}

// writeManPages writes a section 1 page for polite and each of its
// commands into dir, and returns nothing else there.
func writeManPages(dir, version string, date time.Time) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	source := "polite"
	if version != "" {
		source += " " + version
	}
	for _, c := range manCommands(cmd.Tree()) {
		page, err := manPage(c, source, date)
		if err != nil {
			return fmt.Errorf("man page of %s: %w", c.CommandPath(), err)
		}
		if err := os.WriteFile(filepath.Join(dir, manName(c)), page, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// manCommands is every command with a page: the ones --help lists.
func manCommands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && !c.IsAdditionalHelpTopicCommand() {
			out = append(out, manCommands(c)...)
		}
	}
	return out
}

// manName is a command's page file: "polite-robots-check.1".
func manName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
}

// manPage is cobra/doc's page of c with the command's exit codes added
// as an EXIT STATUS section, before SEE ALSO as man-pages(7) orders them.
func manPage(c *cobra.Command, source string, date time.Time) ([]byte, error) {
	c.DisableAutoGenTag = true
	var b bytes.Buffer
	h := &doc.GenManHeader{Section: "1", Date: &date, Source: source, Manual: "polite manual"}
	if err := doc.GenMan(c, h, &b); err != nil {
		return nil, err
	}
	page := b.String()
	codes := cmd.ExitCodes(c)
	if codes == "" {
		return []byte(page), nil
	}
	section := ".SH EXIT STATUS\n.PP\n.nf\n" + roffLines(codes) + ".fi\n"
	if i := strings.Index(page, ".SH SEE ALSO"); i >= 0 {
		page = page[:i] + section + "\n" + page[i:]
	} else {
		page += "\n" + section
	}
	return []byte(page), nil
}

// roffLines is text as roff input lines shown as they are: backslashes
// and hyphens escaped, no line taken for a request.
func roffLines(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		line = strings.ReplaceAll(line, `\`, `\e`)
		line = strings.ReplaceAll(line, "-", `\-`)
		b.WriteString(`\&` + line + "\n")
	}
	return b.String()
}
