package agree_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/stats"
)

// estimateRecord is one record of an estimate's dataset: its label (nil
// for none), its judge value (nil for none) and its group.
type estimateRecord struct {
	label, value any
	group        string
	// weight, when not nil, is meta.weight.
	weight any
}

// writeEstimateData writes records as JSON Lines, the label as
// human.relevance and the value as meta.judge, and returns the path.
func writeEstimateData(t *testing.T, records []estimateRecord) string {
	t.Helper()
	var b strings.Builder
	for i, r := range records {
		rec := map[string]any{"id": fmt.Sprintf("r%d", i+1), "question": "How warm is it?", "answer": "Warm.",
			"contexts": []string{"It is warm today."}, "metadata": map[string]any{"model": r.group}}
		if r.label != nil {
			rec["human"] = map[string]any{"relevance": r.label}
		}
		if r.value != nil {
			rec["metadata"].(map[string]any)["judge"] = r.value
		}
		if r.weight != nil {
			rec["metadata"].(map[string]any)["weight"] = r.weight
		}
		line, err := json.Marshal(rec)
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "data.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// gradedRecords are n records with a grade 1-5 on the first labelled of
// them, the judge's grade the label's or one off, in groups a and b.
func gradedRecords(n, labelled int) []estimateRecord {
	r := rand.New(rand.NewPCG(29, 3))
	out := make([]estimateRecord, n)
	for i := range out {
		g := 1 + r.IntN(5)
		j := min(5, max(1, g+r.IntN(3)-1))
		out[i] = estimateRecord{value: j, group: string(rune('a' + i%2))}
		if i < labelled {
			out[i].label = g
		}
	}
	return out
}

// TestMeasureEstimate: --estimate gives, for the whole and each group,
// what stats.PPIMean gives on the labels and the judge values of the
// records it covers, for a graded label (judge grades as given) and a
// binary one (judge values as chances).
func TestMeasureEstimate(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(29, 4))
	binary := make([]estimateRecord, 200)
	for i := range binary {
		y := r.IntN(2) == 0
		v := 0.8
		if y == (r.Float64() < 0.2) { // wrong a fifth of the time
			v = 0.2
		}
		binary[i] = estimateRecord{value: v, group: string(rune('a' + i%2))}
		if i%5 == 0 { // 40 labels, in both groups
			binary[i].label = y
		}
	}
	tests := map[string]struct {
		records   []estimateRecord
		labelType string
		scale     string
	}{
		"graded": {gradedRecords(300, 60), "", "as given"},
		"binary": {binary, "binary", "value"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, writeEstimateData(t, tc.records))
			j.Label, j.LabelType, j.Score, j.Estimate, j.By = "relevance", tc.labelType, "meta.judge", true, "meta.model"
			out, err := agree.Measure(context.Background(), j)
			require.NoError(t, err)
			res := out.Tables[0].Results[0]
			// want is PPIMean over the records of group ("" for all).
			want := func(group string) stats.PPI {
				var labels, judged, unlabelled []float64
				for _, rec := range tc.records {
					if group != "" && rec.group != group {
						continue
					}
					v := toFloat(rec.value)
					if rec.label == nil {
						unlabelled = append(unlabelled, v)
						continue
					}
					labels, judged = append(labels, toFloat(rec.label)), append(judged, v)
				}
				return stats.PPIMean(labels, judged, unlabelled)
			}
			for _, x := range append([]agree.Result{res}, res.Groups...) {
				w, got := want(x.Group), x.Mean
				require.NotNil(t, got, x.Group)
				assert.Equal(t, tc.scale, got.JudgeScale)
				assert.Equal(t, w.Labelled, got.Labelled, x.Group)
				assert.Equal(t, w.Unlabelled, got.Unlabelled, x.Group)
				assert.InDelta(t, w.Estimate, float64(got.Estimate), 1e-12, x.Group)
				assert.InDelta(t, w.CI95[0], float64(got.CI95[0]), 1e-12, x.Group)
				assert.InDelta(t, w.CI95[1], float64(got.CI95[1]), 1e-12, x.Group)
				assert.InDelta(t, w.LabelsOnly, float64(got.LabelsOnly), 1e-12, x.Group)
				assert.InDelta(t, w.JudgeOnly, float64(got.JudgeOnly), 1e-12, x.Group)
				assert.InDelta(t, w.EffectiveLabels, float64(got.EffectiveLabels), 1e-9, x.Group)
				assert.Greater(t, float64(got.EffectiveLabels), float64(got.Labelled), "%s: a judge this good is worth more labels than it has", x.Group)
			}
			// The agreement itself is over the labelled records alone.
			assert.Equal(t, res.Mean.Labelled, res.N)
			assert.Equal(t, res.Mean.Unlabelled, res.Skipped)
			assert.Len(t, res.Rows, res.N)
		})
	}
}

func toFloat(v any) float64 {
	switch v := v.(type) {
	case int:
		return float64(v)
	case float64:
		return v
	case bool:
		if v {
			return 1
		}
	}
	return 0
}

// TestMeasureEstimateGroupTooFewLabels: a group with fewer labels than an
// estimate needs says so, its figures null in JSON, while the whole has
// its estimate.
func TestMeasureEstimateGroupTooFewLabels(t *testing.T) {
	t.Parallel()
	records := gradedRecords(200, 40)
	for i := range records {
		records[i].group = "big"
		if i < 5 {
			records[i].group = "small" // 5 labelled
		}
	}
	j := job(t, writeEstimateData(t, records))
	j.Label, j.Score, j.Estimate, j.By = "relevance", "meta.judge", true, "meta.model"
	out, err := agree.Measure(context.Background(), j)
	require.NoError(t, err)
	res := out.Tables[0].Results[0]
	require.Len(t, res.Groups, 2)
	small := res.Groups[1]
	require.Equal(t, "small", small.Group)
	assert.Equal(t, fmt.Sprintf("5 labelled records with a judge value; an estimate needs at least %d", agree.MinLabelled), small.Mean.Note)
	assert.True(t, math.IsNaN(float64(small.Mean.Estimate)))
	assert.False(t, math.IsNaN(float64(res.Mean.Estimate)))
	b, err := json.Marshal(small.Mean)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"estimate":null,"ci95":[null,null]`)
	var md strings.Builder
	require.NoError(t, out.Write(&md, nil, agree.Style{}))
	assert.Contains(t, md.String(), "| meta.judge | relevance | small | 5 | 0 | n/a (5 labelled records with a judge value; an estimate needs at least 10) |")
}

// TestMeasureEstimateJudgeRunNow: with a judge run now, it scores the
// records without the label too.
func TestMeasureEstimateJudgeRunNow(t *testing.T) {
	t.Parallel()
	records := make([]estimateRecord, 30)
	for i := range records {
		records[i].group = "a"
		if i < 12 {
			records[i].label = i%3 != 0
		}
	}
	j := job(t, writeEstimateData(t, records))
	j.Label, j.Metrics, j.Estimate = "relevance", []string{judges.MetricTokenOverlap}, true
	out, err := agree.Measure(context.Background(), j)
	require.NoError(t, err)
	m := out.Tables[0].Results[0].Mean
	require.NotNil(t, m)
	assert.Equal(t, 12, m.Labelled)
	assert.Equal(t, 18, m.Unlabelled)
	assert.Equal(t, 0, m.Unscored)
}

// TestMeasureEstimateInputErrors: what an estimate cannot use is an input
// error naming it.
func TestMeasureEstimateInputErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		records   func() []estimateRecord
		labelType string
		want      string
	}{
		"too few labels": {func() []estimateRecord { return gradedRecords(100, 9) }, "",
			"meta.judge: --estimate needs at least 10 labelled records with a judge value, got 9"},
		"no unlabelled record": {func() []estimateRecord { return gradedRecords(50, 50) }, "",
			"--estimate needs records without the label human.relevance"},
		"a labelled record the judge did not score": {func() []estimateRecord {
			rs := gradedRecords(100, 30)
			rs[6].value = nil
			return rs
		}, "", ":7: record r7 is labelled (human.relevance) but has no judge value: meta.judge: no value"},
		"a graded label that is not a number": {func() []estimateRecord {
			rs := gradedRecords(100, 30)
			rs[8].label = "good"
			return rs
		}, "", `:9: human.relevance is "good": --estimate reads every record's label`},
		"a binary label that is a grade": {func() []estimateRecord {
			rs := gradedRecords(100, 30)
			for i := range rs[:30] {
				rs[i].label, rs[i].value = i%2 == 0, 0.5
			}
			rs[3].label = 4
			return rs
		}, "binary", `:4: human.relevance is 4: --estimate reads every record's label to tell labelled records from the rest, and this binary label must be true or false (1 or 0)`},
		"a binary label's judge off the chance scale": {func() []estimateRecord {
			rs := gradedRecords(100, 30)
			for i := range rs[:30] {
				rs[i].label = i%2 == 0
			}
			return rs // values are grades 1-5
		}, "binary", "--estimate with a binary label reads the judge's value as the chance the label is true, from 0 to 1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, writeEstimateData(t, tc.records()))
			j.Label, j.LabelType, j.Score, j.Estimate = "relevance", tc.labelType, "meta.judge", true
			_, err := agree.Measure(context.Background(), j)
			var in *eval.InputError
			require.True(t, errors.As(err, &in), "want an input error, got %v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// weightedRecords are 60 binary records, 15 of them labelled with the
// weight 1/pi of a design that favoured the judge's middling values:
// pi 0.5 at values 0.4 to 0.6, 0.125 elsewhere.
func weightedRecords() []estimateRecord {
	out := make([]estimateRecord, 60)
	for i := range out {
		v := float64(i%11) / 10
		out[i] = estimateRecord{value: v}
		if i%4 == 0 || (i%2 == 0 && v >= 0.4 && v <= 0.6) {
			w := 8.0
			if v >= 0.4 && v <= 0.6 {
				w = 2
			}
			out[i].label, out[i].weight = (v >= 0.5) != (i%3 == 0), w
		}
	}
	return out
}

// TestMeasureEstimateWeighted checks --weight: the estimate is
// stats.PPIWeightedMean of the labels, their weights and every judge
// value; a record without a weight, or with one below 1, and --weight
// without --estimate are input errors.
func TestMeasureEstimateWeighted(t *testing.T) {
	t.Parallel()
	recs := weightedRecords()
	var labels, judged, weights, unlabelled []float64
	for _, r := range recs {
		if r.label == nil {
			unlabelled = append(unlabelled, r.value.(float64))
			continue
		}
		labels, judged, weights = append(labels, b2f(r.label.(bool))), append(judged, r.value.(float64)), append(weights, r.weight.(float64))
	}
	require.GreaterOrEqual(t, len(labels), agree.MinLabelled)
	want := stats.PPIWeightedMean(labels, judged, weights, unlabelled)

	j := job(t, writeEstimateData(t, recs))
	j.Label, j.LabelType, j.Score, j.Estimate, j.Weight = "relevance", "binary", "meta.judge", true, "meta.weight"
	out, err := agree.Measure(context.Background(), j)
	require.NoError(t, err)
	e := out.Tables[0].Results[0].Mean
	require.NotNil(t, e)
	assert.Empty(t, e.Note)
	assert.Equal(t, "meta.weight", e.Weight)
	assert.Equal(t, want.Estimate, float64(e.Estimate))
	assert.Equal(t, want.CI95[0], float64(e.CI95[0]))
	assert.Equal(t, want.CI95[1], float64(e.CI95[1]))
	assert.Equal(t, want.Lambda, float64(e.Lambda))
	unweighted := stats.PPIMean(labels, judged, unlabelled)
	assert.NotEqual(t, unweighted.Estimate, float64(e.Estimate), "the weights change it")
	assert.Contains(t, out.Tables[0].Results[0].EstimateMarkdown(), fmt.Sprintf("| meta.judge | relevance | all | %d | %d | %.3f [%.3f, %.3f] (weighted by meta.weight) |",
		len(labels), len(unlabelled), want.Estimate, want.CI95[0], want.CI95[1]))

	tests := map[string]struct {
		edit     func([]estimateRecord)
		estimate bool
		want     string
	}{
		"a labelled record without a weight": {func(rs []estimateRecord) { rs[4].weight = nil }, true,
			":5: record r5 is labelled but has no weight at meta.weight"},
		"a weight below 1": {func(rs []estimateRecord) { rs[8].weight = 0.5 }, true,
			":9: record r9 is labelled but its weight at meta.weight is 0.5, below 1"},
		"a weight of 0": {func(rs []estimateRecord) { rs[8].weight = 0 }, true,
			":9: record r9 is labelled but its weight at meta.weight is 0, below 1"},
		"a weight that is true": {func(rs []estimateRecord) { rs[8].weight = true }, true,
			":9: record r9 is labelled but has no weight at meta.weight"},
		"a weight that is text": {func(rs []estimateRecord) { rs[8].weight = "heavy" }, true,
			":9: record r9 is labelled but has no weight at meta.weight"},
		"--weight without --estimate": {func([]estimateRecord) {}, false,
			"--weight: weights only the estimate of the mean label: give --estimate too"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rs := weightedRecords()
			tc.edit(rs)
			j := job(t, writeEstimateData(t, rs))
			j.Label, j.LabelType, j.Score, j.Estimate, j.Weight = "relevance", "binary", "meta.judge", tc.estimate, "meta.weight"
			_, err := agree.Measure(context.Background(), j)
			var in *eval.InputError
			require.True(t, errors.As(err, &in), "want an input error, got %v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
