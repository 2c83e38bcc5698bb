package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

// BenchmarkWriteHTML draws report.html for a run of 200 samples judged on
// three metrics, each result with evidence as an LLM judge writes it, as
// a bench run does after its last call.
func BenchmarkWriteHTML(b *testing.B) {
	metrics := []string{"faithfulness", "context_precision", "source_relevance"}
	var lines strings.Builder
	enc := json.NewEncoder(&lines)
	texts := map[string]SampleText{}
	for i := range 200 {
		id := fmt.Sprintf("s%d", i)
		texts[id] = SampleText{Question: Text{Text: fmt.Sprintf("What does study %d find about sleep and memory?", i)},
			Answer:   Text{Text: fmt.Sprintf("Study %d finds that sleep helps memory. Participants slept eight hours.", i)},
			Contexts: []Context{{Label: "c1", Text: Text{Text: fmt.Sprintf("Study %d reports that sleep consolidates memory in adults.", i)}}}}
		for _, m := range metrics {
			r := run.Result{ID: id, Metric: m, Value: float64(i%7) / 7, Points: 1, Max: 1, Method: "llm:openai:fake", Reason: "1 of 2 claims supported by the contexts",
				Evidence: eval.Evidence{
					Claims:  []eval.Claim{{Text: "The first statement of the answer.", Verdict: "supported", SourceID: "c1"}, {Text: "The second statement.", Verdict: "unsupported"}},
					Sources: []eval.SourceRating{{URL: "c1", Rating: 4, Basis: "relevant with useful detail"}},
					Issues:  []string{`unsupported: "The second statement."`},
					Counts:  map[string]float64{"claims": 2, "supported": 1},
				}}
			if err := enc.Encode(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	results, err := run.ReadResultsFrom(run.FileResults, strings.NewReader(lines.String()))
	if err != nil {
		b.Fatal(err)
	}
	cfg := run.Config{RunID: "bench", Started: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), Metrics: metrics}
	s := run.Summary{}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteHTML(io.Discard, cfg, s, results, Data{Texts: texts}); err != nil {
			b.Fatal(err)
		}
	}
}
