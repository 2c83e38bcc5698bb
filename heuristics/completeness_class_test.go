package heuristics

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestPrepositionsAreNoGaps: a query's prepositions of time and place
// ("amid", "throughout", "since") name no topic, so a report that covers
// every other word of the query has no gap; a topic beside them is still
// one.
func TestPrepositionsAreNoGaps(t *testing.T) {
	t.Parallel()
	const report = `# Reservoirs and rice

## Findings

Drought cut reservoir levels below half this year [1]. Farmers delayed rice planting by a month [2].
Drought-tolerant rice yields matched older varieties [3].

## Sources

1. https://www.rid.go.th/dam
2. https://www.oae.go.th/plant
3. https://www.ricethailand.go.th/variety
`
	tests := map[string]struct {
		query string
		gaps  []string
	}{
		"amid":                    {query: "Rice planting amid drought", gaps: nil},
		"throughout and since":    {query: "Reservoir levels throughout the drought and rice yields since", gaps: nil},
		"within, without, across": {query: "Rice varieties within reach, without irrigation, across farmers", gaps: []string{`"reach" not covered`, `"irrigation" not covered`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Completeness{}.Score(context.Background(), eval.Sample{Query: tc.query, Answer: report})
			require.NoError(t, err)
			assert.Equal(t, tc.gaps, sc.Evidence.Gaps)
		})
	}
}
