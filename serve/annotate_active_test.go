package serve

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
)

// TestQueueActiveRoundTripIntoAgree labels a run's queue in its default
// order, the active one, through the API, exports it and measures the
// export with the agree library and the weights (--weight
// meta.label_weight): exactly the estimate, interval and judge's weight
// the queue shows, binary and graded. Each labelled line's weight is
// 1/its chance as the queue gave it; the unlabelled carry none.
func TestQueueActiveRoundTripIntoAgree(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		scale, label string
		labels       int
		value        func(n, i int) any
		graded       bool
		agree        string
	}{
		"binary, 14 labels": {scale: "binary", label: "faithfulness", labels: 14, value: func(_, i int) any { return queueTruth(i) },
			agree: "assay agree --score meta.judge_score --label faithfulness --estimate --weight meta.label_weight labels.jsonl"},
		"graded, 15 labels": {scale: "graded", label: "grade", labels: 15, value: func(n, _ int) any { return 1 + n%5 }, graded: true,
			agree: "assay agree --score meta.judge_grade --label grade --label-type graded --grades 1,2,3,4,5 --estimate --weight meta.label_weight labels.jsonl"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, id := queueServer(t, Config{}, 40)
			q := getQueueJSON(t, s, url.Values{"run": {id}, "scale": {tc.scale}})
			require.Equal(t, "active", q.Order, "the default order")
			for place, it := range q.Items[:39] {
				assert.Equal(t, place+1, it.Active, "scored items in the active order, %s", it.ID)
			}
			assert.Equal(t, "q40", q.Items[39].ID, "the default last")
			assert.Zero(t, q.Items[39].Active)

			for n, it := range q.Items[:tc.labels] {
				var i int
				_, err := fmt.Sscanf(it.ID, "q%d", &i)
				require.NoError(t, err)
				postLabelJSON(t, s, map[string]any{"run": id, "item": it.ID, "value": tc.value(n, i)})
			}
			now := getQueueJSON(t, s, url.Values{"run": {id}, "label": {tc.label}})
			est := now.Estimate
			require.False(t, math.IsNaN(float64(est.Estimate)), est.Note)
			assert.Equal(t, "active", est.Design)
			assert.True(t, est.RandomDraw)
			assert.Empty(t, est.Warning)
			assert.Equal(t, tc.labels, est.Labelled)
			assert.Equal(t, tc.agree, now.Agree)
			chance := map[string]float64{}
			var sum float64
			for _, it := range now.Items {
				chance[it.ID] = it.Inclusion
				sum += it.Inclusion
			}
			assert.InDelta(t, float64(tc.labels), sum, 1e-9, "the chances sum to the labels")
			require.NotEmpty(t, now.Projection)
			assert.Less(t, now.Projection[0].HalfWidth, float64(est.HalfWidth), "ten more labels narrow it")

			code, export := call(t, http.MethodGet, s.URL+now.Export, "")
			require.Equal(t, http.StatusOK, code, export)
			recs, err := dataset.Read("labels.jsonl", strings.NewReader(export))
			require.NoError(t, err)
			require.Len(t, recs, 39)
			weighted := 0
			for _, r := range recs {
				w, ok := r.Sample.Metadata["label_weight"]
				if r.Human == nil {
					assert.False(t, ok, "%s is not labelled: no weight", r.ID)
					continue
				}
				weighted++
				assert.Equal(t, 1/chance[r.ID], w, r.ID)
			}
			assert.Equal(t, tc.labels, weighted)

			mean := agreeEstimate(t, []byte(export), tc.label, tc.graded, true)
			assert.Equal(t, "meta."+"label_weight", mean.Weight)
			assert.Equal(t, est.Estimate, mean.Estimate, "the page's estimate, exactly")
			assert.Equal(t, est.CI95, mean.CI95)
			assert.Equal(t, est.LabelsOnly, mean.LabelsOnly)
			assert.Equal(t, est.Lambda, mean.Lambda)
			assert.Equal(t, est.EffectiveLabels, mean.EffectiveLabels)
			assert.Equal(t, est.Labelled, mean.Labelled)
			assert.Equal(t, est.Unlabelled, mean.Unlabelled)
			t.Logf("estimate %.4f [%.4f, %.4f], lambda %.3f, effective labels %.1f", float64(est.Estimate),
				float64(est.CI95[0]), float64(est.CI95[1]), float64(est.Lambda), float64(est.EffectiveLabels))

			// Without the weights, agree's estimate is another one.
			plain := agreeEstimate(t, []byte(export), tc.label, tc.graded, false)
			assert.NotEqual(t, est.Estimate, plain.Estimate, "the weights count")
		})
	}
}
