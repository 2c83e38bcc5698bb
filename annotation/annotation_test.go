package annotation_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/annotation"
)

// z is the normal quantile of 0.975.
const z = 1.959963984540054

func label(v float64) *float64 { return &v }

func ids(q annotation.Queue, rs []annotation.Ranked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = q.Items[r.Index].ID
	}
	return out
}

func TestRankByWorth(t *testing.T) {
	t.Parallel()
	items := []annotation.Item{
		{ID: "q1", Scored: true, Value: 0.9},
		{ID: "q2", Scored: true, Value: 0.5},
		{ID: "q3", Scored: true, Value: 0},
		{ID: "q4", Defaulted: true, Value: 0.5},
		{ID: "q5", Scored: true, Value: 1, HasAgreement: true, Agreement: 0.6},
		{ID: "q6", Scored: true, Value: 0.7, Label: label(1)},
		{ID: "q10", Scored: true, Value: 0.55},
	}
	type want struct {
		uncertainty, disagreement, worth float64
	}
	tests := map[string]struct {
		threshold float64
		order     []string
		figures   map[string]want
	}{
		// At 0.5 the farthest a value can be is 0.5: q1 at 0.9 is 0.4
		// away, uncertainty 0.2; q5 passes in 3 of 5 draws, a majority
		// share of 0.6, disagreement 2(1-0.6) = 0.8, worth 1-(1)(0.2).
		"threshold 0.5": {
			threshold: 0.5,
			order:     []string{"q2", "q4", "q10", "q5", "q1", "q3", "q6"},
			figures: map[string]want{
				"q1":  {0.2, 0, 0.2},
				"q2":  {1, 0, 1},
				"q3":  {0, 0, 0},
				"q4":  {1, 0, 1},
				"q5":  {0, 0.8, 0.8},
				"q6":  {0.6, 0, 0.6},
				"q10": {0.9, 0, 0.9},
			},
		},
		// At 0.8 the farthest is 0.8 (a value of 0): q2 at 0.5 is 0.3
		// away, 1 - 0.3/0.8 = 0.625; q1 at 0.9, 1 - 0.1/0.8 = 0.875.
		"threshold 0.8": {
			threshold: 0.8,
			order:     []string{"q4", "q5", "q1", "q10", "q2", "q3", "q6"},
			figures: map[string]want{
				"q1":  {0.875, 0, 0.875},
				"q2":  {0.625, 0, 0.625},
				"q3":  {0, 0, 0},
				"q5":  {0.75, 0.8, 1 - 0.25*0.2},
				"q10": {0.6875, 0, 0.6875},
			},
		},
		"no threshold is 0.5": {
			order: []string{"q2", "q4", "q10", "q5", "q1", "q3", "q6"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := annotation.Queue{Items: items, Scale: annotation.Binary, Threshold: tc.threshold, Seed: "s"}
			got := q.Rank(annotation.ByWorth)
			assert.Equal(t, tc.order, ids(q, got))
			for _, r := range got {
				w, ok := tc.figures[q.Items[r.Index].ID]
				if !ok {
					continue
				}
				assert.InDelta(t, w.uncertainty, r.Uncertainty, 1e-12, "%s uncertainty", q.Items[r.Index].ID)
				assert.InDelta(t, w.disagreement, r.Disagreement, 1e-12, "%s disagreement", q.Items[r.Index].ID)
				assert.InDelta(t, w.worth, r.Worth, 1e-12, "%s worth", q.Items[r.Index].ID)
				assert.Equal(t, q.Items[r.Index].HasAgreement, r.HasDisagreement)
			}
		})
	}
}

// TestRankByDraw pins the random draw: a change of it would make the
// labels taken in an earlier version's order look chosen.
func TestRankByDraw(t *testing.T) {
	t.Parallel()
	var items []annotation.Item
	for i := 1; i <= 8; i++ {
		items = append(items, annotation.Item{ID: fmt.Sprintf("q%d", i), Scored: true, Value: float64(i) / 10})
	}
	tests := map[string]struct {
		seed  string
		label []int
		order []string
	}{
		"seed a":                          {seed: "a", order: []string{"q6", "q8", "q2", "q1", "q3", "q4", "q5", "q7"}},
		"seed b":                          {seed: "b", order: []string{"q1", "q7", "q2", "q4", "q8", "q6", "q5", "q3"}},
		"seed a, q3 and q7 labelled last": {seed: "a", label: []int{2, 6}, order: []string{"q6", "q8", "q2", "q1", "q4", "q5", "q3", "q7"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			its := append([]annotation.Item(nil), items...)
			for _, i := range tc.label {
				its[i].Label = label(1)
			}
			q := annotation.Queue{Items: its, Scale: annotation.Binary, Seed: tc.seed}
			got := q.Rank(annotation.ByDraw)
			assert.Equal(t, tc.order, ids(q, got))
			seen := map[int]bool{}
			for _, r := range got {
				seen[r.Draw] = true
			}
			assert.Len(t, seen, len(items), "each item its own place in the draw")
			assert.Equal(t, got, q.Rank(annotation.ByDraw), "the same seed, the same order")
		})
	}
}

func TestOnScale(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		item  annotation.Item
		scale annotation.Scale
		want  float64
	}{
		"binary: the value":                       {annotation.Item{Value: 0.62, Points: 4, Max: 5}, annotation.Binary, 0.62},
		"graded: the judge's own grade":           {annotation.Item{Value: 0.75, Points: 4, Max: 5}, annotation.Graded, 4},
		"graded: 0.6 of 1-5 is 3.4, so 3":         {annotation.Item{Value: 0.6, Points: 6, Max: 10}, annotation.Graded, 3},
		"graded: 3.5 goes to the lower":           {annotation.Item{Value: 0.625}, annotation.Graded, 3},
		"graded: 3.52 goes to 4":                  {annotation.Item{Value: 0.63}, annotation.Graded, 4},
		"graded: above 1 is the top":              {annotation.Item{Value: 1.2}, annotation.Graded, 5},
		"graded: below 0 is the bottom":           {annotation.Item{Value: -1}, annotation.Graded, 1},
		"graded: a grade of 0 of 5 is not on 1-5": {annotation.Item{Value: 0, Points: 0, Max: 5}, annotation.Graded, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, tc.item.OnScale(tc.scale), 1e-12)
		})
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		scale, order string
		wantScale    annotation.Scale
		wantOrder    annotation.Order
		err          string
	}{
		"defaults":       {wantScale: annotation.Binary, wantOrder: annotation.ByActive},
		"by worth":       {order: "worth", wantScale: annotation.Binary, wantOrder: annotation.ByWorth},
		"graded by draw": {scale: "graded", order: "draw", wantScale: annotation.Graded, wantOrder: annotation.ByDraw},
		"a bad scale":    {scale: "likert", err: `want binary or graded, got "likert"`},
		"a bad order":    {order: "random", err: `want active, worth or draw, got "random"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err1 := annotation.ParseScale(tc.scale)
			o, err2 := annotation.ParseOrder(tc.order)
			if tc.err != "" {
				require.Error(t, errorOf(err1, err2))
				assert.Equal(t, tc.err, errorOf(err1, err2).Error())
				return
			}
			require.NoError(t, err1)
			require.NoError(t, err2)
			assert.Equal(t, tc.wantScale, s)
			assert.Equal(t, tc.wantOrder, o)
		})
	}
}

func errorOf(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func TestCheckLabel(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		scale annotation.Scale
		v     float64
		err   string
	}{
		"binary pass":   {annotation.Binary, 1, ""},
		"binary fail":   {annotation.Binary, 0, ""},
		"binary half":   {annotation.Binary, 0.5, "a binary label is pass (1, true) or fail (0, false), got 0.5"},
		"grade 1":       {annotation.Graded, 1, ""},
		"grade 5":       {annotation.Graded, 5, ""},
		"grade 0":       {annotation.Graded, 0, "a grade is a whole number from 1 to 5, got 0"},
		"grade 2.5":     {annotation.Graded, 2.5, "a grade is a whole number from 1 to 5, got 2.5"},
		"no such scale": {annotation.Scale("stars"), 3, `no scale "stars": want binary or graded`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tc.scale.CheckLabel(tc.v)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.err)
		})
	}
}

// handItems are stats' hand-worked PPI case as a queue: labels
// y = 1,0,1,1 on judge values f = 1,0,0,1, and eight scored items not
// labelled, u = 1,1,0,0,1,1,0,1; lambda = 16/47, the estimate
// 3/4 + 2/47, its variance 109/3008. Beside them, two items the judge
// did not score (one labelled), which the estimate leaves out.
func handItems() []annotation.Item {
	var items []annotation.Item
	for i, yf := range [][2]float64{{1, 1}, {0, 0}, {1, 0}, {1, 1}} {
		items = append(items, annotation.Item{ID: fmt.Sprintf("l%d", i+1), Scored: true, Value: yf[1], Label: label(yf[0])})
	}
	for i, u := range []float64{1, 1, 0, 0, 1, 1, 0, 1} {
		items = append(items, annotation.Item{ID: fmt.Sprintf("u%d", i+1), Scored: true, Value: u})
	}
	return append(items,
		annotation.Item{ID: "d1", Defaulted: true, Value: 0.5, Label: label(0)},
		annotation.Item{ID: "e1", Value: 0})
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	q := annotation.Queue{Items: handItems(), Scale: annotation.Binary, Seed: "hand"}
	assert.Equal(t, annotation.Counts{Items: 14, Labelled: 5, Scored: 12, Unscored: 2, Defaulted: 1, LabelledScored: 4}, q.Counts())

	tests := map[string]struct {
		min      int
		estimate float64
		half     float64
		note     string
	}{
		"four labels, four needed": {min: 4, estimate: 0.75 + 2.0/47, half: z * math.Sqrt(109.0/3008)},
		"four labels, ten needed":  {min: 10, estimate: math.NaN(), half: math.NaN(), note: "4 labelled items with a judge value; an estimate needs at least 10"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := q.Estimate(tc.min)
			assert.Equal(t, tc.note, e.Note)
			assert.Equal(t, 4, e.PPI.Labelled)
			assert.Equal(t, 8, e.PPI.Unlabelled)
			if math.IsNaN(tc.estimate) {
				assert.True(t, math.IsNaN(e.PPI.Estimate) && math.IsNaN(e.HalfWidth), "no estimate: %+v", e)
				return
			}
			assert.InDelta(t, tc.estimate, e.PPI.Estimate, 1e-12)
			assert.InDelta(t, 16.0/47, e.PPI.Lambda, 1e-12)
			assert.InDelta(t, tc.half, e.HalfWidth, 1e-12)
		})
	}

	// Every scored item labelled: no estimate, the labels are the mean.
	all := handItems()
	for i := range all[:12] {
		all[i].Label = label(1)
	}
	e := annotation.Queue{Items: all, Scale: annotation.Binary}.Estimate(2)
	assert.Equal(t, "every item the judge scored is labelled: the labels alone are the mean", e.Note)
	assert.True(t, math.IsNaN(e.PPI.Estimate))
}

func TestEstimateGraded(t *testing.T) {
	t.Parallel()
	// Stats' second hand case on 1-5: grades y = 1,3,1,3 with the judge
	// at 1,2,1,2 (its own points), u = 1,2 four times: lambda clipped to
	// 1, the estimate mean(y) + mean(u) - mean(f) = 2, variance 3/32.
	var items []annotation.Item
	for i, yf := range [][2]float64{{1, 1}, {3, 2}, {1, 1}, {3, 2}} {
		items = append(items, annotation.Item{ID: fmt.Sprintf("l%d", i), Scored: true, Points: yf[1], Max: 5, Label: label(yf[0])})
	}
	for i := range 8 {
		items = append(items, annotation.Item{ID: fmt.Sprintf("u%d", i), Scored: true, Points: float64(1 + i%2), Max: 5})
	}
	e := annotation.Queue{Items: items, Scale: annotation.Graded}.Estimate(4)
	assert.Empty(t, e.Note)
	assert.InDelta(t, 2, e.PPI.Estimate, 1e-12)
	assert.InDelta(t, 1, e.PPI.Lambda, 1e-12)
	assert.InDelta(t, z*math.Sqrt(3.0/32), e.HalfWidth, 1e-12)
}

func TestRandomDraw(t *testing.T) {
	t.Parallel()
	base := func() annotation.Queue {
		var items []annotation.Item
		for i := 1; i <= 8; i++ {
			items = append(items, annotation.Item{ID: fmt.Sprintf("q%d", i), Scored: true, Value: float64(i) / 10})
		}
		items = append(items, annotation.Item{ID: "d", Defaulted: true, Value: 0.5})
		return annotation.Queue{Items: items, Scale: annotation.Binary, Seed: "a"}
	}
	// The draw of seed a: q6, q8, q2, q1, q3, q4, q5, q7 (TestRankByDraw).
	tests := map[string]struct {
		labelled []string
		want     bool
	}{
		"none":                               {nil, true},
		"the first three of the draw":        {[]string{"q6", "q8", "q2"}, true},
		"the first two and an unscored item": {[]string{"q6", "q8", "d"}, true},
		"the second without the first":       {[]string{"q8"}, false},
		"the most uncertain, by worth":       {[]string{"q5", "q4"}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := base()
			for i := range q.Items {
				for _, id := range tc.labelled {
					if q.Items[i].ID == id {
						q.Items[i].Label = label(0)
					}
				}
			}
			assert.Equal(t, tc.want, q.Estimate(2).RandomDraw)
		})
	}
}

func TestProject(t *testing.T) {
	t.Parallel()
	q := annotation.Queue{Items: handItems(), Scale: annotation.Binary}
	// The figures of the hand case (see stats' TestPPIProjected): var(y)
	// 3/16, var(f) 1/4, cov 1/8 over n labels, var(u) 15/64 over N; at
	// (n, N) lambda is chosen afresh.
	half := func(n, bigN float64) float64 {
		d := 15.0/64/bigN + 0.25/n
		lambda := min(max(0.125/n/d, 0), 1)
		return z * math.Sqrt(3.0/16/n-lambda*(2*0.125/n-lambda*d))
	}

	tests := map[string]struct {
		min  int
		more []int
		want []annotation.Projection
	}{
		"2, 4 and 8 more: 8 would leave none unlabelled": {min: 4, more: []int{2, 4, 8}, want: []annotation.Projection{
			{More: 2, Labelled: 6, HalfWidth: half(6, 6)},
			{More: 4, Labelled: 8, HalfWidth: half(8, 4)},
		}},
		"no estimate yet (ten needed), still projected": {min: 10, more: []int{7}, want: []annotation.Projection{
			{More: 7, Labelled: 11, HalfWidth: half(11, 1)},
		}},
		"zero and negative steps are none": {min: 4, more: []int{0, -3}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := q.Estimate(tc.min).Project(tc.more...)
			require.Len(t, got, len(tc.want))
			for i, w := range tc.want {
				assert.Equal(t, w.More, got[i].More)
				assert.Equal(t, w.Labelled, got[i].Labelled)
				assert.InDelta(t, w.HalfWidth, got[i].HalfWidth, 1e-12)
			}
		})
	}
	one := annotation.Queue{Items: []annotation.Item{{ID: "a", Scored: true, Value: 1, Label: label(1)}, {ID: "b", Scored: true, Value: 0}, {ID: "c", Scored: true, Value: 1}}}
	assert.Empty(t, one.Estimate(2).Project(1), "one label measures no variance")
	// Four more labels, by hand: lambda 4/23, V = 3/128 - 1/368.
	assert.InDelta(t, z*math.Sqrt(3.0/128-1.0/368), half(8, 4), 1e-12)
}
