package agent_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/assaylabs/assay/fixtures"
	"github.com/assaylabs/assay/web"
)

// BenchmarkResearchWarm is an offline research run on the embedded corpus
// with its index already built (the usual case after the first run).
func BenchmarkResearchWarm(b *testing.B) {
	l := corpus(b)
	cfg := offlineResearch(b, l)
	for b.Loop() {
		if _, err := cfg.Run(context.Background(), "How do heat pumps perform in cold climates?"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResearchCold builds the corpus index from nothing, then runs.
func BenchmarkResearchCold(b *testing.B) {
	sub, err := fs.Sub(fixtures.Corpus, "corpus")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		l, err := web.OpenLocal(context.Background(), "embedded:bench", sub, filepath.Join(dir, fmt.Sprintf("idx%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := offlineResearch(b, l).Run(context.Background(), "How do heat pumps perform in cold climates?"); err != nil {
			b.Fatal(err)
		}
		_ = l.Close()
	}
}
