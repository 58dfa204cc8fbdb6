package cmd

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/store"
)

// completeFromDB teaches shell completion the user's own values: known
// hosts (forget, --host), jobs (--job), run numbers (report) and the
// exclusion list's rules (exclude remove) from the database, and the
// values of the enum flags.
func completeFromDB(root *cobra.Command, g *globals) {
	enum := func(vals ...string) cobra.CompletionFunc {
		return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return withPrefix(vals, prefix), cobra.ShellCompDirectiveNoFileComp
		}
	}
	fromDB := func(list func(*store.DB) ([]string, error)) cobra.CompletionFunc {
		return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return withPrefix(g.completions(list), prefix), cobra.ShellCompDirectiveNoFileComp
		}
	}
	hosts, jobs, runs, rules := fromDB(dbHosts), fromDB(knownJobs), fromDB(knownRuns), fromDB(excludedRules)
	mustRegister(root, "log-format", enum("text", "json"))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, fn := range map[string]cobra.CompletionFunc{
			"host": hosts, "job": jobs,
			"scope": enum("host", "domain", "any"), "requisites": enum("off", "same-host", "any-host"), "progress": enum("auto", "always", "never"),
		} {
			if c.LocalNonPersistentFlags().Lookup(name) != nil {
				mustRegister(c, name, fn)
			}
		}
		switch c.Name() {
		case "forget":
			c.ValidArgsFunction = hosts
		case "remove": // polite exclude remove
			c.ValidArgsFunction = rules
		case "report":
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return runs(cmd, args, prefix)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func mustRegister(c *cobra.Command, flag string, fn cobra.CompletionFunc) {
	if err := c.RegisterFlagCompletionFunc(flag, fn); err != nil {
		panic(fmt.Sprintf("complete --%s of %s: %v", flag, c.CommandPath(), err)) // polite's own mistake
	}
}

// completions lists values from the database; nothing when there is no
// database yet (completion never creates one) or it cannot be read.
func (g *globals) completions(list func(*store.DB) ([]string, error)) []string {
	p, err := g.dbPath()
	if err != nil {
		return nil
	}
	if _, err := os.Stat(p); err != nil {
		return nil
	}
	db, err := store.Open(p)
	if err != nil {
		return nil
	}
	defer db.Close()
	vals, err := list(db)
	if err != nil {
		return nil
	}
	return vals
}

// withPrefix keeps the values (each "value" or "value\tdescription") that
// start with prefix.
func withPrefix(vals []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, v := range vals {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// dbHosts are the hosts with a learned state or a cached robots.txt.
func dbHosts(db *store.DB) ([]string, error) { return knownHosts(db) }

// excludedRules are the exclusion list's rules, with their reasons.
func excludedRules(db *store.DB) ([]string, error) {
	xs, err := db.Exclusions()
	var out []string
	for _, x := range xs {
		out = append(out, strings.TrimSuffix(x.Rule+"\t"+x.Reason, "\t"))
	}
	return out, err
}

// knownJobs are the jobs that ran, the most recent first.
func knownJobs(db *store.DB) ([]string, error) {
	runs, err := db.Runs(0)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var jobs []string
	for _, r := range runs {
		if !seen[r.Job] {
			seen[r.Job] = true
			jobs = append(jobs, fmt.Sprintf("%s\tlast run %d, %s", r.Job, r.ID, r.StartedAt.Local().Format("2006-01-02 15:04")))
		}
	}
	return jobs, nil
}

// knownRuns are the run numbers, newest first, described by job and start.
func knownRuns(db *store.DB) ([]string, error) {
	runs, err := db.Runs(100)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range runs {
		out = append(out, strconv.FormatInt(r.ID, 10)+"\t"+fmt.Sprintf("job %s, %s", r.Job, r.StartedAt.Local().Format("2006-01-02 15:04")))
	}
	return out, nil
}
