package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

// BenchmarkPrintResults measures writing the results of 200 samples x 3
// judges as JSON, the tail of a large `assay judge` run.
func BenchmarkPrintResults(b *testing.B) {
	rs := make([]run.Result, 0, 600)
	for i := range 200 {
		id := fmt.Sprintf("s%d", i)
		rs = append(rs,
			run.Result{ID: id, Metric: "faithfulness", Value: 0.5, Points: 0.5, Max: 1, Method: "llm:openai:fake",
				Reason: "1 of 2 claims supported by the contexts",
				Evidence: eval.Evidence{
					Claims: []eval.Claim{
						{Text: "The first statement of the answer.", Verdict: eval.VerdictSupported, SourceID: "c1"},
						{Text: "The second statement of the answer.", Verdict: eval.VerdictUnsupported},
					},
					Issues: []string{`unsupported: "The second statement of the answer."`},
					Counts: map[string]float64{"claims": 2, "supported": 1},
				},
				Usage: eval.Usage{Calls: 2, TokensIn: 579, TokensOut: 66}},
			run.Result{ID: id, Metric: "context_precision", Value: 1, Points: 1, Max: 1, Method: "llm:openai:fake",
				Reason: "1 of 1 context useful; rank-weighted precision 1.00",
				Evidence: eval.Evidence{
					Sources: []eval.SourceRating{{URL: "c1", Rating: 1, Basis: "on topic"}},
					Counts:  map[string]float64{"contexts": 1, "useful": 1},
				},
				Usage: eval.Usage{Calls: 1, TokensIn: 257, TokensOut: 17}},
			run.Result{ID: id, Metric: "source_relevance", Value: 0.75, Points: 4, Max: 5, Method: "llm:openai:fake",
				Reason: "mean grade 4.0 of 5; 1 of 1 source at 3 or more",
				Evidence: eval.Evidence{
					Sources: []eval.SourceRating{{URL: "c1", Rating: 4, Basis: "strongly relevant"}},
				},
				Usage: eval.Usage{Calls: 1, TokensIn: 223, TokensOut: 13}},
		)
	}
	for _, format := range []string{"json", "yaml", "text"} {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := printResults(io.Discard, format, rs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
