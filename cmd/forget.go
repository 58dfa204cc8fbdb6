package cmd

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

// forgetOptions are the flags of polite forget.
type forgetOptions struct {
	Hosts []string
	All   bool
	Yes   bool
	// Interactive reports whether a person can be asked: stdin and stderr
	// are terminals.
	Interactive func() bool
}

func newForgetCmd(io IO, g *globals) *cobra.Command {
	opts := &forgetOptions{Interactive: func() bool {
		f, ok := io.In.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())) && io.IsTTY != nil && io.IsTTY()
	}}
	cmd := &cobra.Command{
		Use:   "forget HOST... | --all",
		Short: "Drop what polite learned about hosts",
		Long: `Drop what polite learned and holds about hosts: the stored delay, latency
baseline, congestion memory, floor and hold (a long Retry-After), and the
cached robots.txt. The next run meets the host as new: it starts at --start
and fetches robots.txt again. The hosts' URLs are kept, and those left
waiting (deferred, or queued for later) are eligible again at once, in every
job. A HOST may be given as host, host:port or a URL.

A host a crawl paced in a group (--pace-by domain or ip) shared its pace
with the group's other hosts: forgetting it drops what the group learned
too (its delay, limit and hold), and the host's membership; the other
hosts stay members, and meet the group as new. A group's key, as polite
status shows it (ip:203.0.113.5, domain:example.org), forgets the group
alone.

--all forgets every host. From a terminal it asks first; from a script or
cron it needs --yes. While a crawl holds the database, forget exits 3: the
crawl would save its own idea of the hosts when it ends; on a shared
(PostgreSQL) database it exits 3 while any crawl worker is live, naming them.`,
		Example: `  polite forget api.example.org
  polite forget https://shop.example.com:8443/ localhost:8080
  polite forget ip:203.0.113.5
  polite forget --all --yes`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Hosts = args
			return g.withDB(func(db appDB) error {
				return runForget(io, db, opts)
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.All, "all", false, "forget every host")
	f.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask before --all")
	return cmd
}

// forgetDB is what polite forget needs.
type forgetDB interface {
	Acquire(frontier.Holder) error
	Release(frontier.Holder) error
	States() ([]pace.State, error)
	RobotsCopies() ([]frontier.RobotsCopy, error)
	Forget(hosts ...string) (int, error)
	PaceGroups() ([]frontier.PaceMember, error)
}

func runForget(io IO, db forgetDB, o *forgetOptions) error {
	switch {
	case o.All && len(o.Hosts) > 0:
		return fmt.Errorf("%w: give hosts or --all, not both", errUsage)
	case !o.All && len(o.Hosts) == 0:
		return fmt.Errorf("%w: name the hosts to forget, or --all (see polite forget --help)", errUsage)
	}
	keys := make([]string, 0, len(o.Hosts))
	for _, h := range o.Hosts {
		k, err := hostArg(h)
		if err != nil {
			return err
		}
		keys = append(keys, k)
	}
	// Hold the crawl lock: a crawl running now would write its hosts back.
	// A shared database has no one lock: live workers refuse it the same way.
	if err := noLiveWorkers(db, "forget"); err != nil {
		return err
	}
	holder := frontier.ThisProcess("(polite forget)")
	if err := db.Acquire(holder); err != nil {
		return err
	}
	defer db.Release(holder)

	if o.All {
		known, err := knownHosts(db)
		if err != nil {
			return err
		}
		if len(known) == 0 {
			_, err := fmt.Fprintln(io.Out, "no hosts known: nothing to forget")
			return err
		}
		if !o.Yes {
			if o.Interactive == nil || !o.Interactive() {
				return fmt.Errorf("%w: --all forgets %d %s; add --yes when not asked at a terminal", errUsage, len(known), plural(len(known), "host", "hosts"))
			}
			fmt.Fprintf(io.ErrOut, "Forget the delays and robots.txt copies of all %d known %s? [y/N] ", len(known), plural(len(known), "host", "hosts"))
			line, _ := bufio.NewReader(io.In).ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
				_, err := fmt.Fprintln(io.Out, "nothing forgotten")
				return err
			}
		}
		n, err := db.Forget()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(io.Out, "forgot %d %s\n", n, plural(n, "host", "hosts"))
		return err
	}

	members, err := db.PaceGroups()
	if err != nil {
		return err
	}
	for _, k := range keys {
		n, err := db.Forget(k)
		if err != nil {
			return err
		}
		if n == 0 {
			fmt.Fprintf(io.Out, "%s: nothing known\n", k)
			continue
		}
		fmt.Fprintf(io.Out, "forgot %s%s\n", k, groupsForgotten(members, k))
	}
	return nil
}

// groupsForgotten says what forgetting host dropped of the groups it was
// paced in: " and what its group ip:203.0.113.5 learned (shared with
// b.example)"; "" when it was in none.
func groupsForgotten(members []frontier.PaceMember, host string) string {
	var groups, others []string
	for _, m := range members {
		if m.Host == host && !slices.Contains(groups, m.Group) {
			groups = append(groups, m.Group)
		}
	}
	for _, m := range members {
		if m.Host != host && slices.Contains(groups, m.Group) && !slices.Contains(others, m.Host) {
			others = append(others, m.Host)
		}
	}
	if len(groups) == 0 {
		return ""
	}
	s := fmt.Sprintf(" and what its %s %s learned", plural(len(groups), "group", "groups"), strings.Join(groups, ", "))
	if len(others) > 0 {
		s += " (shared with " + strings.Join(others, ", ") + ")"
	}
	return s
}

// noLiveWorkers returns an error wrapping store.ErrLocked (exit 3) that
// names the crawl workers of a shared database that are alive, for
// command: each would keep its own idea of what command changes.
func noLiveWorkers(db any, command string) error {
	ws, err := liveWorkers(db)
	if err != nil || len(ws) == 0 {
		return err
	}
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = fmt.Sprintf("worker %d (pid %d on %s, job %s)", w.ID, w.PID, w.Host, w.Job)
	}
	return fmt.Errorf("%w: %d crawl %s live: %s; run %s when they have ended",
		store.ErrLocked, len(ws), plural(len(ws), "worker is", "workers are"), strings.Join(names, ", "), command)
}

// hostArg turns a HOST argument (host, host:port or URL) into the host key
// polite stores; a group's key (ip:ADDRESS, domain:NAME) is taken as it is.
func hostArg(arg string) (string, error) {
	if by, rest, ok := strings.Cut(strings.ToLower(strings.TrimSpace(arg)), ":"); ok && (by == "ip" || by == "domain") && rest != "" &&
		!strings.HasPrefix(rest, "//") && strings.Trim(rest, "0123456789") != "" {
		return by + ":" + rest, nil
	}
	k, err := urls.HostKey(arg)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errUsage, err)
	}
	return k, nil
}

// knownHosts returns every host with a stored delay or robots.txt copy.
func knownHosts(db forgetDB) ([]string, error) {
	states, err := db.States()
	if err != nil {
		return nil, err
	}
	copies, err := db.RobotsCopies()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var hs []string
	for _, s := range states {
		if !seen[s.Host] {
			seen[s.Host] = true
			hs = append(hs, s.Host)
		}
	}
	for _, c := range copies {
		if !seen[c.Host] {
			seen[c.Host] = true
			hs = append(hs, c.Host)
		}
	}
	return hs, nil
}
