package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/assaylabs/assay/eval"
)

// writeBenchResults writes n samples' results of three metrics, with
// evidence as an LLM judge writes it, to a results.jsonl under b's
// temporary folder.
func writeBenchResults(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), FileResults)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for i := range n {
		id := fmt.Sprintf("s%d", i)
		for _, m := range []string{"faithfulness", "context_precision", "source_relevance"} {
			r := Result{ID: id, Metric: m, Value: float64(i%7) / 7, Points: 1, Max: 1, Method: "llm:openai:fake", Reason: "1 of 2 claims supported by the contexts",
				Evidence: eval.Evidence{
					Claims:  []eval.Claim{{Text: "The first statement of the answer.", Verdict: "supported", SourceID: "c1"}, {Text: "The second statement.", Verdict: "unsupported"}},
					Sources: []eval.SourceRating{{URL: "c1", Rating: 4, Basis: "relevant with useful detail"}},
					Issues:  []string{`unsupported: "The second statement."`},
					Counts:  map[string]float64{"claims": 2, "supported": 1},
				},
				Usage: eval.Usage{CacheHits: 2, CachedTokensIn: 629, CachedTokensOut: 66}}
			if err := enc.Encode(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReadResultsBounded reads the results a report shows from a
// run of 200 samples and three metrics, as a bench run does after its
// last call.
func BenchmarkReadResultsBounded(b *testing.B) {
	path := writeBenchResults(b, 200)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadResultsBounded(path, 50); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShownResults chooses the results report.html shows of a new
// run of 200 samples and three metrics (the lowest 134 of each, as
// report.ReadShown asks), as bench does after its last call: read from
// results.jsonl again, and from the results the run held as it wrote
// them (Run.Bounded).
func BenchmarkShownResults(b *testing.B) {
	src, err := ReadResults(writeBenchResults(b, 200))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	r, err := Create(dir, Config{RunID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	for res := range src.All() {
		if err := r.Append(res); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() { _ = r.Close() })
	b.Run("file", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ReadResultsBounded(filepath.Join(dir, FileResults), 134); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("held", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Bounded(134); err != nil {
				b.Fatal(err)
			}
		}
	})
}
