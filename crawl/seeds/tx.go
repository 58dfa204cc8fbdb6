package seeds

import (
	"slices"
	"sort"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// seedTxBatches is how many batches share one transaction when the
// Loader has a LoadTx: a transaction rewrites the partly filled index
// pages of every host it touches, so ten batches in one write a third of
// the pages ten transactions do.
const seedTxBatches = 10

// LoadTx is the role of a store whose Enqueue calls of a seed load can
// share a transaction: BeginLoad starts one, EndLoad commits it. Nothing
// else writes in between. A store without it commits each batch on its
// own.
type LoadTx interface {
	BeginLoad() error
	EndLoad() error
}

// byHost returns es in the order of their hosts' names, each host's
// entries in their order in es, in out's memory: a stable sort by host,
// which moves each entry once.
func byHost(es, out []frontier.Entry) []frontier.Entry {
	at := map[string]int{}
	for i := range es {
		at[es[i].Host]++
	}
	hosts := make([]string, 0, len(at))
	for h := range at {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	next := 0
	for _, h := range hosts {
		n := at[h]
		at[h] = next
		next += n
	}
	out = slices.Grow(out[:0], len(es))[:len(es)]
	for i := range es {
		k := at[es[i].Host]
		out[k] = es[i]
		at[es[i].Host] = k + 1
	}
	return out
}
