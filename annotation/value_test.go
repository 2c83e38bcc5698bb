package annotation_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/annotation"
)

// TestAValueThatIsNoNumberIsNoValue: an item the judge "scored" with a
// value that is not a finite number (NaN, an infinity) is ranked,
// counted and estimated as one the judge gave no value: it used to make
// every item's size, inclusion probability and weight NaN, and the
// estimate NaN with no note and a warning that the labels follow no
// order.
func TestAValueThatIsNoNumberIsNoValue(t *testing.T) {
	t.Parallel()
	values := []float64{0.9, 0.1, 0.6, 0.3, 0.8, 0.45, 0.2, 1, 0, 0.7}
	// The first five of the active order labelled: the judge's verdict,
	// wrong on the third.
	labels := map[string]float64{}
	queueWith := func(odd annotation.Item) annotation.Queue {
		q := annotation.Queue{Scale: annotation.Binary, Seed: "nan"}
		for i, v := range values {
			q.Items = append(q.Items, annotation.Item{ID: string(rune('a' + i)), Scored: true, Value: v})
		}
		q.Items = append(q.Items, odd)
		for i := range q.Items {
			if v, ok := labels[q.Items[i].ID]; ok {
				q.Items[i].Label = label(v)
			}
		}
		return q
	}
	for n, r := range queueWith(annotation.Item{ID: "z"}).Rank(annotation.ByActive)[:5] {
		v := 0.0
		if (values[r.Index] >= 0.5) != (n == 2) {
			v = 1
		}
		labels[string(rune('a'+r.Index))] = v
	}
	want := queueWith(annotation.Item{ID: "z"}) // no value
	wantRank, wantEst := want.Rank(annotation.ByActive), want.Estimate(2)
	require.False(t, math.IsNaN(wantEst.PPI.Estimate), "%+v", wantEst)
	tests := map[string]float64{"NaN": math.NaN(), "+Inf": math.Inf(1), "-Inf": math.Inf(-1)}
	for name, v := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := queueWith(annotation.Item{ID: "z", Scored: true, Value: v})
			assert.Equal(t, want.Counts(), q.Counts())
			assert.Equal(t, wantRank, q.Rank(annotation.ByActive))
			e := q.Estimate(2)
			assert.Equal(t, annotation.ByActive, e.Design)
			assert.Equal(t, wantEst.Weights, e.Weights)
			assert.Equal(t, wantEst.PPI.Estimate, e.PPI.Estimate)
			assert.Equal(t, wantEst.HalfWidth, e.HalfWidth)
			assert.Equal(t, wantEst.Project(1, 2), e.Project(1, 2))
		})
	}
}
