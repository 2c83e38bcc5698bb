package assaytest_test

import (
	"testing"

	"github.com/assaylabs/assay/assaytest"
	"github.com/assaylabs/assay/eval"
)

// TestAsAUserWould uses the package exactly as a user's module does from
// its own tests: the package's functions on the test's *testing.T, the
// model from the environment (offline here, as in CI), a sample built in
// the test and a dataset file in testdata.
func TestAsAUserWould(t *testing.T) {
	t.Parallel()
	answer := eval.Sample{
		Query:  "Who wrote the novel Frankenstein?",
		Answer: "Mary Shelley wrote Frankenstein, which was first published in 1818.",
		Sources: []eval.Source{
			{ID: "wiki", Text: "Frankenstein is a novel by Mary Shelley, first published in London in 1818."},
		},
	}
	scores := assaytest.Require(t, answer, "faithfulness>=0.8", "context_precision>=0.5")
	if len(scores) != 2 || scores[0].Metric != "faithfulness" {
		t.Fatalf("Require returned %+v, want the faithfulness and context_precision scores", scores)
	}

	stats := assaytest.RequireDataset(t, "testdata/faithful.jsonl", "faithfulness.mean>=0.9", "faithfulness.min>=0.8", "faithfulness.defaulted<=0")
	if len(stats) != 1 || stats[0].N != 3 {
		t.Fatalf("RequireDataset returned %+v, want faithfulness over the 3 samples", stats)
	}
}
