package annotation_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/annotation"
	"github.com/assaylabs/assay/stats"
)

// sizedItems are six scored items whose sizes (0.1 + sqrt(worth), at
// threshold 0.5) are a 1.1, b 1.0, c 0.5, d 0.1, e 0.1, f 0.5 (sum 3.3),
// and one the judge did not score.
func sizedItems() []annotation.Item {
	return []annotation.Item{
		{ID: "a", Scored: true, Value: 0.5},   // uncertainty 1
		{ID: "b", Scored: true, Value: 0.405}, // 0.81
		{ID: "c", Scored: true, Value: 0.08},  // 0.16
		{ID: "d", Scored: true, Value: 0},     // 0
		{ID: "e", Scored: true, Value: 1},     // 0
		{ID: "f", Scored: true, Value: 0.92},  // 0.16
		{ID: "x", Defaulted: true, Value: 0.5},
	}
}

// TestInclusion checks the inclusion probabilities of sizedItems with k
// of them labelled: k p / 3.3 while none reaches 1; then the largest are
// taken for certain and the rest share what is left of k.
func TestInclusion(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		k    int
		want map[string]float64
	}{
		"none labelled": {0, map[string]float64{"a": 0, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0, "x": 0}},
		"one: p/3.3":    {1, map[string]float64{"a": 1.1 / 3.3, "b": 1 / 3.3, "c": 0.5 / 3.3, "d": 0.1 / 3.3, "e": 0.1 / 3.3, "f": 0.5 / 3.3, "x": 0}},
		"two: 2p/3.3":   {2, map[string]float64{"a": 2.2 / 3.3, "b": 2 / 3.3, "c": 1 / 3.3, "d": 0.2 / 3.3}},
		// 4 x 1.1/3.3 > 1: a certain; 3 x 1/2.2 > 1: b certain; the other
		// two labels over 1.2: c and f 2 x 0.5/1.2, d and e 2 x 0.1/1.2.
		"four: a and b certain": {4, map[string]float64{"a": 1, "b": 1, "c": 1 / 1.2, "d": 0.2 / 1.2, "e": 0.2 / 1.2, "f": 1 / 1.2}},
		// Then c and f (3 x 0.5/1.2 > 1, 2 x 0.5/0.7 > 1); one label over d
		// and e, 0.1/0.2 each.
		"five: all but d and e certain": {5, map[string]float64{"a": 1, "b": 1, "c": 1, "d": 0.5, "e": 0.5, "f": 1}},
		"six: every one":                {6, map[string]float64{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			items := sizedItems()
			for i := range tc.k {
				items[i].Label = label(1)
			}
			q := annotation.Queue{Items: items, Scale: annotation.Binary, Seed: "sizes"}
			got := map[string]float64{}
			var sum float64
			for _, r := range q.Rank(annotation.ByActive) {
				got[q.Items[r.Index].ID] = r.Inclusion
				sum += r.Inclusion
			}
			for id, w := range tc.want {
				assert.InDelta(t, w, got[id], 1e-9, id)
			}
			assert.InDelta(t, float64(tc.k), sum, 1e-9, "the probabilities sum to the labels")
		})
	}
}

// TestRankByActive pins the active order of sizedItems (a change would
// make labels taken in an earlier version's order look chosen), and
// checks that each prefix holds the items certain at its size.
func TestRankByActive(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		seed  string
		order []string
	}{
		"seed a": {"a", []string{"f", "a", "b", "e", "c", "d", "x"}},
		"seed b": {"b", []string{"a", "c", "b", "f", "e", "d", "x"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := annotation.Queue{Items: sizedItems(), Scale: annotation.Binary, Seed: tc.seed}
			got := q.Rank(annotation.ByActive)
			assert.Equal(t, tc.order, ids(q, got))
			for place, r := range got[:6] {
				assert.Equal(t, place+1, r.Active, q.Items[r.Index].ID)
			}
			assert.Zero(t, got[6].Active, "an unscored item has no place")
			// Labelled in that order, k at a time: each certain item is
			// among the first k.
			for k := 1; k <= 6; k++ {
				items := sizedItems()
				for _, r := range got[:k] {
					items[r.Index].Label = label(1)
				}
				lq := annotation.Queue{Items: items, Scale: annotation.Binary, Seed: tc.seed}
				for _, r := range lq.Rank(annotation.ByActive) {
					if r.Inclusion == 1 {
						assert.NotNil(t, items[r.Index].Label, "k %d: %s is certain, so labelled", k, items[r.Index].ID)
					}
				}
				assert.Equal(t, annotation.ByActive, lq.Estimate(2).Design, "k %d", k)
			}
		})
	}
}

// TestEstimateActive labels 40 scored items of 120 in the active order
// (the judge wrong on a share of its uncertain verdicts): the estimate is
// PPIWeightedMean's on the labels weighted by 1/inclusion, as Weights
// says; a label out of the order makes it no design's, with the plain
// PPI++ figures.
func TestEstimateActive(t *testing.T) {
	t.Parallel()
	var items []annotation.Item
	for i := range 120 {
		items = append(items, annotation.Item{ID: fmt.Sprintf("s%03d", i), Scored: true, Value: float64(i%21) / 20})
	}
	truth := func(i int) float64 {
		v := float64(i%21) / 20
		if (v >= 0.5) != (i%4 == 0 && math.Abs(v-0.5) < 0.3) {
			return 1
		}
		return 0
	}
	q := annotation.Queue{Items: items, Scale: annotation.Binary, Seed: "active"}
	order := q.Rank(annotation.ByActive)
	for _, r := range order[:40] {
		q.Items[r.Index].Label = label(truth(r.Index))
	}
	e := q.Estimate(10)
	require.Empty(t, e.Note)
	assert.Equal(t, annotation.ByActive, e.Design)
	assert.True(t, e.RandomDraw)
	require.Len(t, e.Weights, 120)

	var labels, judged, weights, unlabelled []float64
	for i, it := range q.Items {
		if it.Label == nil {
			assert.Zero(t, e.Weights[i])
			unlabelled = append(unlabelled, it.Value)
			continue
		}
		labels, judged, weights = append(labels, *it.Label), append(judged, it.Value), append(weights, e.Weights[i])
	}
	var sumPi float64
	for _, r := range q.Rank(annotation.ByActive) {
		if q.Items[r.Index].Label != nil {
			assert.InDelta(t, 1/r.Inclusion, e.Weights[r.Index], 1e-12, "weight of %s", q.Items[r.Index].ID)
		}
		sumPi += r.Inclusion
	}
	assert.InDelta(t, 40, sumPi, 1e-9)
	want := stats.PPIWeightedMean(labels, judged, weights, unlabelled)
	assert.Equal(t, want.Estimate, e.PPI.Estimate)
	assert.Equal(t, want.CI95, e.PPI.CI95)
	assert.InDelta(t, (want.CI95[1]-want.CI95[0])/2, e.HalfWidth, 1e-15)
	t.Logf("estimate %.4f ± %.4f, lambda %.3f, effective labels %.1f", e.PPI.Estimate, e.HalfWidth, e.PPI.Lambda, e.PPI.EffectiveLabels)

	// The projection: more labels of the same design narrow it.
	proj := e.Project(10, 25, 79, 80)
	require.Len(t, proj, 3, "80 more would leave none unlabelled")
	prev := e.HalfWidth
	for _, p := range proj {
		assert.Less(t, p.HalfWidth, prev, "%d more", p.More)
		assert.InDelta(t, want.Projected(40+p.More, 80-p.More), p.HalfWidth, 1e-15)
		prev = p.HalfWidth
	}

	// The next in the order skipped, the one after labelled: no design.
	q.Items[order[41].Index].Label = label(1)
	skipped := q.Estimate(10)
	assert.Equal(t, annotation.Order(""), skipped.Design)
	assert.False(t, skipped.RandomDraw)
	assert.Nil(t, skipped.Weights)
}
