package bench_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/run"
)

// TestOutcomeWriteBaselineShared checks that the terminal says, as
// summary.json and the Markdown summary do, when the baseline and the
// run have samples the other lacks: without it a baseline of another
// dataset reads "- -> -" with no reason given.
func TestOutcomeWriteBaselineShared(t *testing.T) {
	t.Parallel()
	nan := run.Num(math.NaN())
	tests := map[string]struct {
		shared, onlyA, onlyB int
		want, notWant        string
	}{
		"another dataset": {
			shared: 0, onlyA: 7, onlyB: 6,
			want: "  compared on the 0 sample(s) both runs have; A has 7 that B lacks, B has 6 that A lacks\n",
		},
		"a baseline stopped early": {
			shared: 4, onlyA: 0, onlyB: 2,
			want: "  compared on the 4 sample(s) both runs have; A has 0 that B lacks, B has 2 that A lacks\n",
		},
		"the same samples": {
			shared: 6, notWant: "compared on",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := &bench.Outcome{Config: run.Config{RunID: "run-b"}, Summary: run.Summary{
				RunID: "run-b",
				Baseline: &run.Comparison{BaselineRunID: "run-a", Shared: tc.shared, OnlyBaseline: tc.onlyA, OnlyCurrent: tc.onlyB,
					Metrics: []run.MetricComparison{{Metric: "faithfulness", BaselineMean: nan, CurrentMean: nan, Delta: nan, P: nan}}},
			}}
			var out, log bytes.Buffer
			require.NoError(t, o.Write(&out, &log))
			if tc.want != "" {
				assert.Contains(t, log.String(), "bench: against baseline run-a:\n"+tc.want)
			}
			if tc.notWant != "" {
				assert.NotContains(t, log.String(), tc.notWant)
			}
		})
	}
}
