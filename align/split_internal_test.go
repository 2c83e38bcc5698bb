package align

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
)

// labelled are rows with the labels given, in order, ids r1, r2, ...
func labelled(labels ...float64) []row {
	out := make([]row, len(labels))
	for i, l := range labels {
		id := "r" + strconv.Itoa(i+1)
		out[i] = row{rec: dataset.Record{ID: id, Sample: eval.Sample{ID: id}}, label: l}
	}
	return out
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestSplitHoldsOutEachLabel: the split holds out its share of the rows
// and keeps at least one row of each binary label on both sides, for
// every seed; the same seed gives the same parts, and each row is in
// exactly one.
func TestSplitHoldsOutEachLabel(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		labels  []float64
		holdout float64
		held    int
	}{
		"eleven passes and two fails, a quarter held out": {labels: append(repeat(1, 11), repeat(0, 2)...), holdout: 0.25, held: 3},
		"two fails among thirty passes, a tenth held out": {labels: append(repeat(0, 2), repeat(1, 30)...), holdout: 0.1, held: 3},
		"even labels, four in ten held out":               {labels: append(repeat(1, 10), repeat(0, 10)...), holdout: 0.4, held: 8},
		"most rows held out, three fails":                 {labels: append(repeat(0, 3), repeat(1, 12)...), holdout: 0.8, held: 12},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rows := labelled(tc.labels...)
			for seed := range uint64(64) {
				train, held := split(rows, tc.holdout, seed)
				require.Len(t, held, tc.held, "seed %d", seed)
				require.Len(t, train, len(rows)-tc.held, "seed %d", seed)
				seen := map[string]int{}
				for _, part := range [][]row{train, held} {
					kinds := map[float64]bool{}
					for _, r := range part {
						seen[r.rec.ID]++
						kinds[r.label] = true
					}
					assert.Len(t, kinds, 2, "seed %d: a part without one of the labels", seed)
				}
				assert.Len(t, seen, len(rows), "seed %d", seed)
				for id, n := range seen {
					assert.Equal(t, 1, n, "seed %d: %s", seed, id)
				}
				again, heldAgain := split(rows, tc.holdout, seed)
				assert.Equal(t, train, again)
				assert.Equal(t, held, heldAgain)
			}
		})
	}
}
