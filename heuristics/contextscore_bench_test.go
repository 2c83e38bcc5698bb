package heuristics

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/assaylabs/assay/eval"
)

// BenchmarkContextScore scores 10 chunks of about 2 KB each (seed 002 asks
// for p99 under 50 ms; we aim under 0.2 ms per call).
func BenchmarkContextScore(b *testing.B) {
	var chunks []eval.Source
	var ctxText strings.Builder
	for i := range 10 {
		var t strings.Builder
		for t.Len() < 2048 {
			fmt.Fprintf(&t, "In March 2024 the Federal Reserve in Washington reported that %d banks raised capital by %d.%d percent on 2024-03-%02d. ", 10+i, i, t.Len()%10, 1+i)
		}
		rr := 0.9 - float64(i)*0.05
		chunks = append(chunks, eval.Source{ID: fmt.Sprintf("doc-%d", i%4), Text: t.String(), Score: 0.8 - float64(i)*0.03, RerankScore: &rr,
			Metadata: map[string]any{"sectionTitle": fmt.Sprintf("s%d", i%3)}})
		ctxText.WriteString(t.String())
	}
	s := eval.Sample{Query: "How much capital did banks raise in March 2024?", Sources: chunks, Context: &eval.Context{Text: ctxText.String(), TokenCount: 5000}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (ContextQuality{}).Score(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
}
