package cmd

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Tree returns polite's commands as the binary offers them (the help and
// completion commands, each command's exit codes, --version), for
// the programs that write the manual pages and completion scripts from
// the help text (cmd/polite-docs). Its commands are for reading: running
// one reads and writes nothing but discards its output.
func Tree() *cobra.Command {
	io := IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard, IsTTY: func() bool { return false }}
	root, _ := newRootCmd(io)
	strictUsage(root, nil)
	root.InitDefaultVersionFlag()
	return root
}

// ExitCodes is the exit-code table a command's --help ends with, "" for a
// command without one.
func ExitCodes(c *cobra.Command) string { return c.Annotations[exitCodesKey] }
