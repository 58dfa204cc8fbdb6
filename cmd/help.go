package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagGroupKey is the flag annotation that names a flag's heading in
// --help; flags without one are listed under "Other flags".
const flagGroupKey = "polite_group"

// exitCodesKey is the command annotation whose text --help shows under
// "Exit codes".
const exitCodesKey = "polite_exit_codes"

// groupFlags puts the named flags under a heading of --help, in the order
// given (flags are listed in the order of their group's first call).
func groupFlags(fs *pflag.FlagSet, group string, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, flagGroupKey, []string{group}); err != nil {
			panic(fmt.Sprintf("group flag %s: %v", n, err)) // a typo in polite's own code
		}
	}
}

// usage writes a command's usage: cobra's layout, with local flags under
// their group headings and the command's exit codes at the end.
func usage(c *cobra.Command) error {
	w := c.OutOrStderr()
	fmt.Fprint(w, "Usage:")
	if c.Runnable() {
		fmt.Fprintf(w, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s [command]", c.CommandPath())
	}
	if c.HasExample() {
		fmt.Fprintf(w, "\n\nExamples:\n%s", c.Example)
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprint(w, "\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(w, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	writeFlagGroups(w, c.LocalFlags())
	if c.HasAvailableInheritedFlags() {
		fmt.Fprint(w, "\n\nGlobal Flags:\n")
		writeFlags(w, flagList(c.InheritedFlags()))
	}
	if codes := c.Annotations[exitCodesKey]; codes != "" {
		fmt.Fprintf(w, "\n\nExit codes:\n%s", strings.TrimRight(codes, "\n"))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	fmt.Fprintln(w)
	return nil
}

// writeFlagGroups lists the flags of fs under their headings, in the order
// they were defined; with no groups at all, under "Flags".
func writeFlagGroups(w io.Writer, fs *pflag.FlagSet) {
	var order []string
	groups := map[string][]*pflag.Flag{}
	grouped := false
	fs.VisitAll(func(f *pflag.Flag) { grouped = grouped || len(f.Annotations[flagGroupKey]) > 0 })
	for _, f := range flagList(fs) {
		g := "Other flags"
		if a := f.Annotations[flagGroupKey]; len(a) > 0 {
			g = a[0]
		} else if grouped && f.Name == "help" {
			continue // under headings, -h is no news
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], f)
	}
	if len(order) == 1 && order[0] == "Other flags" {
		order[0] = "Flags"
		groups["Flags"] = groups["Other flags"]
	}
	// One column for every group, so that the headings read as one table.
	width := 0
	for _, f := range flagList(fs) {
		width = max(width, len(flagName(f)))
	}
	for _, g := range order {
		fmt.Fprintf(w, "\n\n%s:\n", g)
		writeFlagsWidth(w, groups[g], width)
	}
}

// flagList returns the visible flags of fs in definition order.
func flagList(fs *pflag.FlagSet) []*pflag.Flag {
	fs.SortFlags = false
	var fl []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			fl = append(fl, f)
		}
	})
	return fl
}

func writeFlags(w io.Writer, fl []*pflag.Flag) {
	width := 0
	for _, f := range fl {
		width = max(width, len(flagName(f)))
	}
	writeFlagsWidth(w, fl, width)
}

func writeFlagsWidth(w io.Writer, fl []*pflag.Flag, width int) {
	for i, f := range fl {
		if i > 0 {
			fmt.Fprintln(w)
		}
		_, text := pflag.UnquoteUsage(f)
		if def := flagDefault(f); def != "" {
			text += " (default " + def + ")"
		}
		fmt.Fprintf(w, "%-*s   %s", width, flagName(f), text)
	}
}

// flagName is "  -o, --out DIR" or "      --floor duration".
func flagName(f *pflag.Flag) string {
	name := "      --" + f.Name
	if f.Shorthand != "" {
		name = "  -" + f.Shorthand + ", --" + f.Name
	}
	if v, _ := pflag.UnquoteUsage(f); v != "" {
		name += " " + v
	}
	return name
}

// flagDefault is the default as --help shows it, "" when there is none
// worth showing (false, 0, empty).
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "0s", "[]":
		return ""
	}
	if f.Value.Type() == "string" {
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}
