package seeds

// seedTxBatches is how many batches share one transaction when the
// Loader has a LoadTx, 100,000 seeds: a transaction rewrites the partly
// filled index pages of every host it touches, so 100,000 seeds in one
// write a third of the pages that ten transactions of 10,000 do.
const seedTxBatches = 100_000 / seedBatch

// LoadTx is the role of a store whose Enqueue calls of a seed load can
// share a transaction: BeginLoad starts one, EndLoad commits it. Nothing
// else writes in between. A store without it commits each batch on its
// own.
type LoadTx interface {
	BeginLoad(bytes int64) error // bytes: the seed source's size
	EndLoad() error
}
