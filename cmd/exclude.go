package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/exclude"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// excludeOptions are the flags of polite exclude's subcommands.
type excludeOptions struct {
	Reason string // add: the operator's note
	JSON   bool   // list
	Now    func() time.Time
	Loc    *time.Location // where times are shown; time.Local when nil
}

// excludeDB is what polite exclude needs: the database's exclusion list.
type excludeDB interface {
	crawl.Exclusions
}

func newExcludeCmd(io IO, g *globals) *cobra.Command {
	opts := &excludeOptions{Now: time.Now}
	cmd := &cobra.Command{
		Use:   "exclude add|list|remove",
		Short: "Keep polite away from hosts and URLs, for every job on the database",
		Long: `Keep an exclusion list that every crawl on the database honours, whatever
its job or seed file: polite sends nothing to what a rule covers, and
reports such URLs as excluded by the operator, naming the rule. A RULE is

  example.org                   that host, on every port and under both schemes:
                                no request of any kind (robots.txt, sitemaps,
                                links and redirects into it included)
  .example.org  *.example.org   example.org and every name under it
  https://example.org/private/  the URLs that start with it once normalised,
                                under http and https alike; the host's other
                                URLs are crawled (a prefix is a string prefix:
                                end it with / to mean a folder)

A rule takes effect at once: a crawl running on the database (or every
live worker of a shared PostgreSQL database) stops sending to it from its
next dispatch pass on. The URLs stay in their jobs; remove the rule and the
next run fetches them again. remove exits 3 while crawl workers of a shared
database are live, as forget does.`,
		Example: `  polite exclude add shop.example.com --reason "asked us to stop on 2026-11-30"
  polite exclude add .tracker.example https://example.org/calendar/
  polite exclude list
  polite exclude remove shop.example.com`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%w: unknown command %q for polite exclude: add, list or remove (see polite exclude --help)", errUsage, args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	add := &cobra.Command{
		Use:   "add RULE...",
		Short: "Add rules to the exclusion list",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return g.withDB(func(db appDB) error { return runExcludeAdd(io.Out, db, args, opts) })
		},
	}
	add.Flags().StringVar(&opts.Reason, "reason", "", "why, for the record (shown by list and status)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the exclusion list's rules",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return g.withDB(func(db appDB) error { return runExcludeList(io.Out, db, opts) })
		},
	}
	list.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	remove := &cobra.Command{
		Use:   "remove RULE...",
		Short: "Remove rules from the exclusion list",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return g.withDB(func(db appDB) error { return runExcludeRemove(io.Out, db, args) })
		},
	}
	cmd.AddCommand(add, list, remove)
	return cmd
}

// excludeRules reads the rules as given into their normal form; a rule
// that is none is a usage error naming it.
func excludeRules(args []string) ([]exclude.Rule, error) {
	rules := make([]exclude.Rule, 0, len(args))
	for _, a := range args {
		r, err := exclude.Parse(a)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// kindText says what a rule of kind k covers, for a person.
func kindText(k exclude.Kind) string {
	switch k {
	case exclude.Host:
		return "host, every port and scheme"
	case exclude.Domain:
		return "the name and every name under it"
	case exclude.Prefix:
		return "URL prefix, under http and https"
	}
	return string(k)
}

func runExcludeAdd(w io.Writer, db excludeDB, args []string, o *excludeOptions) error {
	rules, err := excludeRules(args)
	if err != nil {
		return err
	}
	for _, r := range rules {
		added, err := db.AddExclusion(frontier.Exclusion{Rule: r.Text, Reason: o.Reason, AddedAt: o.Now()})
		switch {
		case err != nil:
			return err
		case added:
			fmt.Fprintf(w, "excluded %s (%s)\n", r.Text, kindText(r.Kind))
		case o.Reason != "":
			fmt.Fprintf(w, "%s: already excluded; reason updated\n", r.Text)
		default:
			fmt.Fprintf(w, "%s: already excluded\n", r.Text)
		}
	}
	return nil
}

func runExcludeRemove(w io.Writer, db excludeDB, args []string) error {
	rules, err := excludeRules(args)
	if err != nil {
		return err
	}
	// Live workers of a shared database would each keep what they
	// excluded this run while the others fetch it: as forget, refuse.
	if err := noLiveWorkers(db, "exclude remove"); err != nil {
		return err
	}
	var missing []string
	for _, r := range rules {
		removed, err := db.RemoveExclusion(r.Text)
		if err != nil {
			return err
		}
		if !removed {
			missing = append(missing, r.Text)
			continue
		}
		fmt.Fprintf(w, "removed %s: the next run fetches what it kept away\n", r.Text)
	}
	if len(missing) > 0 {
		return fmt.Errorf("not in the exclusion list: %s (see polite exclude list)", strings.Join(missing, ", "))
	}
	return nil
}

// exclusionRow is one rule as list and status show it.
type exclusionRow struct {
	Rule    string       `json:"rule"`
	Kind    exclude.Kind `json:"kind"`
	Reason  string       `json:"reason,omitempty"`
	AddedAt time.Time    `json:"added_at"`
}

// exclusionRows reads the exclusion list.
func exclusionRows(db interface {
	Exclusions() ([]frontier.Exclusion, error)
}) ([]exclusionRow, error) {
	xs, err := db.Exclusions()
	if err != nil {
		return nil, err
	}
	rows := make([]exclusionRow, len(xs))
	for i, x := range xs {
		r, err := exclude.Parse(x.Rule)
		kind := r.Kind
		if err != nil {
			kind = "unknown" // written by another polite
		}
		rows[i] = exclusionRow{Rule: x.Rule, Kind: kind, Reason: x.Reason, AddedAt: x.AddedAt.UTC()}
	}
	return rows, nil
}

func runExcludeList(w io.Writer, db excludeDB, o *excludeOptions) error {
	rows, err := exclusionRows(db)
	if err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(nonNil(rows))
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no exclusions (polite exclude add RULE adds one)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	writeExclusions(tw, rows, o.Now(), o.Loc)
	return tw.Flush()
}

// writeExclusions prints the rules as a table.
func writeExclusions(tw *tabwriter.Writer, rows []exclusionRow, now time.Time, loc *time.Location) {
	if loc == nil {
		loc = time.Local
	}
	fmt.Fprintln(tw, "EXCLUDED\tKIND\tADDED\tREASON")
	for _, r := range rows {
		why := r.Reason
		if why == "" {
			why = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s (%s)\t%s\n", r.Rule, r.Kind, r.AddedAt.In(loc).Format("2006-01-02 15:04"),
			ago(max(0, now.Sub(r.AddedAt))), why)
	}
}
