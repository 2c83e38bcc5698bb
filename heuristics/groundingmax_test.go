package heuristics

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// A grounding max with more than two decimals: a fully cited report earns
// exactly its max (not a rounding of it above or below, which would pass
// a card beyond its maximum or fail require_full on a fully cited
// report), and no coverage earns more than max.
func TestGroundingPointsStayWithinMax(t *testing.T) {
	t.Parallel()
	report := func(cited, uncited int) string {
		var b strings.Builder
		for i := range cited {
			fmt.Fprintf(&b, "Fact number %d is true [source](https://a%d.gov/x \"fact %d\").\n", i, i, i)
		}
		for i := range uncited {
			fmt.Fprintf(&b, "Uncited fact number %d stands here.\n", i)
		}
		return b.String()
	}
	tests := map[string]struct {
		g       Grounding
		md      string
		want    float64
		atLeast float64 // a partial score: at most Max, at least this
	}{
		"max 4.125 scaled, all cited":  {g: Grounding{Max: 4.125}, md: report(4, 0), want: 4.125},
		"max 4.124 scaled, all cited":  {g: Grounding{Max: 4.124}, md: report(4, 0), want: 4.124},
		"max 0.11 scaled, all cited":   {g: Grounding{Max: 0.11}, md: report(4, 0), want: 0.11},
		"max 7.777 scaled, all cited":  {g: Grounding{Max: 7.777}, md: report(4, 0), want: 7.777},
		"max 5 (seed), all cited":      {g: Grounding{}, md: report(4, 0), want: 5},
		"own band at max 2.345":        {g: Grounding{Max: 2.345, Bands: []Band{{Min: 100, From: 2.345, To: 2.345}}}, md: report(4, 0), want: 2.345},
		"own band rising to max 2.346": {g: Grounding{Max: 2.346, Bands: []Band{{Min: 100, From: 2.346, To: 2.346}, {Min: 50, From: 2.3, To: 2.346}}}, md: report(199, 1), atLeast: 2.3},
		// 87.5% of max 4.125 scaled: 0.825*3 + 0.825*0.9*2.5/10 = 2.6606 -> 2.66.
		"max 4.125, 7 of 8 cited": {g: Grounding{Max: 4.125}, md: report(7, 1), want: 2.66},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := tc.g.Score(context.Background(), eval.Sample{Answer: tc.md})
			require.NoError(t, err)
			assert.LessOrEqual(t, sc.Points, sc.Max, "points above max")
			assert.LessOrEqual(t, sc.Value, 1.0)
			if tc.atLeast > 0 {
				assert.GreaterOrEqual(t, sc.Points, tc.atLeast)
				return
			}
			assert.Equal(t, tc.want, sc.Points) // exactly: require_full compares points with max
		})
	}
}
