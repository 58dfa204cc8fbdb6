package seeds

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/store"
)

// BenchmarkSeedLoad loads a seed file shaped as the benchmark's seeds
// scenario (200 origins on loopback, the lines interleaved) into a new
// database, as a crawl does: opened, then loaded in shared transactions.
// go test -bench SeedLoad -benchtime 1x -cpuprofile cpu.out ./crawl/seeds/
func BenchmarkSeedLoad(b *testing.B) {
	const lines, hosts = 200_000, 200
	line := func(i int) string { return fmt.Sprintf("http://127.0.0.1:%d/page/%d", 40000+i%hosts, i) }
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		db, err := store.Open(filepath.Join(b.TempDir(), "polite.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		l := &Loader{Job: "j", Log: log, Origins: origins{}, sr: NewReader("gen", &genSeeds{n: lines, line: line}), Tx: db}
		if err := l.fill(ctx); err != nil {
			b.Fatal(err)
		}
		if err := l.Load(ctx, db, time.Now(), func() error { return nil }); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if l.Added() != lines {
			b.Fatalf("%d added, want %d", l.Added(), lines)
		}
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "URLs/s")
}
