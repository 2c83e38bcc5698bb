package agent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/race"
)

// TestEditedProfileIsChecked: Score checks a profile on every call, one
// LoadProfile read too, since a Go program may change its fields after
// (an unknown metric panicked out of Score, a threshold of 0 passed every
// card, a NaN maximum was taken as it was).
func TestEditedProfileIsChecked(t *testing.T) {
	t.Parallel()
	s := eval.Sample{Query: "When was the Eiffel Tower completed?", Answer: "1889.",
		Sources: []eval.Source{{ID: "c1", Text: "Lorem ipsum dolor sit amet."}}}
	edits := map[string]struct {
		profile string
		edit    func(p *Profile)
		field   string
	}{
		"an unknown metric added": {"context", func(p *Profile) {
			p.Specs = append(slices.Clone(p.Specs), ScorerSpec{Metric: "no_such_metric", Max: 1})
		}, "scorers[1].metric"},
		"a threshold of 0": {"context", func(p *Profile) { p.Pass.Threshold, p.Pass.FailAtOrBelow = 0, nil }, "pass.threshold"},
		"a NaN maximum": {"context", func(p *Profile) {
			p.Specs = slices.Clone(p.Specs)
			p.Specs[0].Max = math.NaN()
		}, "scorers[0].max"},
		"another kind":         {"context", func(p *Profile) { p.Kind = KindReport }, "scorers[0].metric"},
		"a fix of no scorer":   {"research", func(p *Profile) { p.Fixes = append(slices.Clone(p.Fixes), FixSpec{Metric: "nope"}) }, "fixes[" + "%d" + "].metric"},
		"a copy given no name": {"research", func(p *Profile) { p.Name = "" }, "name"},
	}
	for name, tc := range edits {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			loaded, err := LoadProfile(tc.profile)
			require.NoError(t, err)
			p := *loaded
			tc.edit(&p)
			_, err = Score(context.Background(), &p, s, Options{})
			ie, ok := errors.AsType[*eval.InputError](err)
			require.True(t, ok, "want an *eval.InputError, got %v", err)
			want := tc.field
			if strings.Contains(want, "%d") {
				want = fmt.Sprintf(want, len(p.Fixes)-1)
			}
			assert.Equal(t, want, ie.Field)
			_, err = Score(context.Background(), loaded, s, Options{})
			require.NoError(t, err, "the profile as loaded still scores")
		})
	}
}

// TestProfileCheckIsCheap: the check Score makes of every profile reads
// only the entries of the profile's metrics, not a list of the whole
// registry per scorer (14 KB a call before), so a context card (one
// scorer) costs about what it did when a parsed profile went unchecked.
func TestProfileCheckIsCheap(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector's allocations move the count: .ci/run runs this test without it")
	}
	for _, name := range []string{"context", "research"} {
		p, err := LoadProfile(name)
		require.NoError(t, err)
		allocs := testing.AllocsPerRun(20, func() { _ = p.check(p.Metrics()) })
		assert.LessOrEqual(t, allocs, float64(2+len(p.Specs)), name)
	}
}
