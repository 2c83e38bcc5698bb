package agent

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
)

// TestOptionsClock: one clock, whose nil is the system clock for every
// use; recency is left out only when NoRecency says so.
func TestOptionsClock(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	// Dated relative to the real clock, so that nil (time.Now) rates it
	// recent whatever the day the test runs.
	lastMonth := time.Now().AddDate(0, -1, 0)
	tests := map[string]struct {
		opt       Options
		published time.Time
		basis     string
	}{
		"a fixed clock rates a source of the month before as recent": {
			opt: Options{Now: heuristics.FixedClock(day)}, published: day.AddDate(0, -1, 0),
			basis: "recent (2026-10-23)",
		},
		"a fixed clock rates a source of three years before as old": {
			opt: Options{Now: heuristics.FixedClock(day)}, published: day.AddDate(-3, 0, 0),
			basis: "old (2023-11-23)",
		},
		"nil is the system clock": {
			opt: Options{}, published: lastMonth,
			basis: "recent (" + lastMonth.UTC().Format(time.DateOnly) + ")",
		},
		"NoRecency leaves recency out under a fixed clock": {
			opt: Options{Now: heuristics.FixedClock(day), NoRecency: true}, published: day.AddDate(0, -1, 0),
		},
		"NoRecency leaves recency out under the system clock": {
			opt: Options{NoRecency: true}, published: lastMonth,
		},
	}
	p, err := LoadProfile("research")
	require.NoError(t, err)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			refs := 3
			s := eval.Sample{Query: "heat pumps", Answer: "# Heat pumps\n\nHeat pumps work in the cold ([gov](https://www.energy.gov/a)).\n",
				Sources: []eval.Source{{URL: "https://www.energy.gov/a", Text: "Heat pumps work in the cold.", Published: tc.published, References: &refs, AuthorKnown: true, Author: "A. Author"}}}
			card, err := Score(context.Background(), p, s, tc.opt)
			require.NoError(t, err)
			sq, ok := card.Get("source_quality")
			require.True(t, ok)
			require.Len(t, sq.Evidence.Sources, 1)
			got := sq.Evidence.Sources[0].Basis
			if tc.basis == "" {
				assert.NotContains(t, got, "recent")
				assert.NotContains(t, got, "old")
				assert.Equal(t, "government 10; +1 3 references → 10 (capped from 11)", got)
				return
			}
			assert.Contains(t, got, tc.basis)
		})
	}
}

// TestClockFrom: the clock starts at the given time and runs forward.
func TestClockFrom(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	c := ClockFrom(start)
	a := c()
	b := c()
	assert.False(t, a.Before(start), "the first reading is at or after the start")
	assert.False(t, b.Before(a), "the clock never goes back")
	// A generous bound: the two readings are this test's own, moments apart.
	assert.Less(t, b.Sub(start), time.Hour)
}
