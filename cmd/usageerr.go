package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// strictUsage makes every usage mistake under root an errUsage (exit 2):
// an argument a command does not take, an unknown command or help topic,
// and (with a suggestion when one is close) an unknown flag. It runs once
// the help and completion commands exist.
func strictUsage(root *cobra.Command, args []string) {
	root.SetHelpCommand(newHelpCmd())
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	root.SetFlagErrorFunc(flagError)
	documentExitCodes(root)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() && !c.Runnable() {
			c.RunE = func(c *cobra.Command, args []string) error {
				if len(args) > 0 {
					return unknownCommand(c, args[0])
				}
				return c.Help()
			}
		}
		if c.Args == nil && c.HasSubCommands() {
			c.Args = cobra.ArbitraryArgs // checked by the RunE above
		}
		if check := c.Args; check != nil {
			c.Args = func(c *cobra.Command, args []string) error {
				err := check(c, args)
				if err != nil && !errors.Is(err, errUsage) {
					return fmt.Errorf("%w: %v (see %s --help)", errUsage, err, c.CommandPath())
				}
				return err
			}
		}
		c.SuggestionsMinimumDistance = 2
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if s := c.SuggestionsFor(name); len(s) > 0 {
		return fmt.Errorf("%w: %s; did you mean %s?", errUsage, msg, strings.Join(s, " or "))
	}
	return fmt.Errorf("%w: %s (see %s --help)", errUsage, msg, c.CommandPath())
}

// flagError is the error of a flag that did not parse: a usage error that
// names the command's help, and for an unknown flag the nearest known one.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if s := nearestFlag(c, name); s != "" {
			return fmt.Errorf("%w: %s; did you mean --%s?", errUsage, msg, s)
		}
	}
	return fmt.Errorf("%w: %s (see %s --help)", errUsage, msg, c.CommandPath())
}

// nearestFlag is the flag of c (its own or inherited) closest to name, if
// it is within two edits or name is a prefix of it.
func nearestFlag(c *cobra.Command, name string) string {
	best, bestD := "", 3
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// newHelpCmd is polite help [COMMAND]: the help of a command, and a usage
// error for a topic that is none.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help about any command: its flags, examples and exit codes.",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			parent, _, err := c.Root().Find(args)
			if err != nil || parent == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range parent.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				topic := strings.Join(args, " ")
				msg := fmt.Sprintf("unknown help topic %q", topic)
				if len(args) > 0 {
					if s := c.Root().SuggestionsFor(args[0]); len(s) > 0 {
						return fmt.Errorf("%w: %s; did you mean %s?", errUsage, msg, strings.Join(s, " or "))
					}
				}
				return fmt.Errorf("%w: %s (polite --help lists the commands)", errUsage, msg)
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
	}
}
