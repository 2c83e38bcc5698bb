package assaytest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/assaytest"
	"github.com/assaylabs/assay/eval"
)

// A zero Judge, and one given a nil context, judge offline under
// context.Background() as the doc comment says, rather than panicking.
func TestZeroJudge(t *testing.T) {
	t.Parallel()
	judges := map[string]func() *assaytest.Judge{
		"zero value":  func() *assaytest.Judge { return &assaytest.Judge{} },
		"nil context": func() *assaytest.Judge { return assaytest.New(assaytest.WithModel(nil), assaytest.WithContext(nil)) }, //nolint:staticcheck // a nil context is what the test is about
	}
	s := eval.Sample{Query: "Who wrote Frankenstein?", Answer: "Mary Shelley wrote Frankenstein.",
		Sources: []eval.Source{{ID: "c1", Text: "Frankenstein is a novel by Mary Shelley."}}}
	for name, newJudge := range judges {
		t.Run(name+": Require", func(t *testing.T) {
			t.Parallel()
			var scores []eval.Score
			r := run(func(tb assaytest.TB) { scores = newJudge().Require(tb, s, "faithfulness>=0.8") })
			assert.Empty(t, r.fatals)
			assert.Empty(t, r.errors)
			require.Len(t, scores, 1)
			assert.Equal(t, "faithfulness", scores[0].Metric)
			assert.InDelta(t, 1.0, scores[0].Value, 1e-9)
		})
		t.Run(name+": RequireDataset", func(t *testing.T) {
			t.Parallel()
			var stats []assaytest.Stats
			r := run(func(tb assaytest.TB) {
				stats = newJudge().RequireDataset(tb, "../fixtures/rag/labelled.jsonl", "faithfulness.mean>=0.5")
			})
			assert.Empty(t, r.fatals)
			assert.Empty(t, r.errors)
			require.Len(t, stats, 1)
			assert.Equal(t, 6, stats[0].Scored)
			assert.InDelta(t, 0.5, stats[0].Mean, 1e-9)
		})
	}
}
