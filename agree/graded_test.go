package agree

import (
	"iter"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

// gradedRows are rows judged values with points/max, labelled grades.
func gradedRows(values, points []float64, max float64, grades []float64) []Row {
	rows := make([]Row, len(values))
	for i := range values {
		g := grades[i]
		rows[i] = Row{ID: string(rune('a' + i)), Value: values[i], Grade: &g, Max: max}
		if points != nil {
			rows[i].Points = points[i]
		}
	}
	return rows
}

func TestGraded(t *testing.T) {
	t.Parallel()
	// Judge grades 1,2,3 against labels 1,3,3 on grades 1..3, by hand:
	// linear kappa 1 - (1/6)/(4.5/9) = 2/3; quadratic 1 - (1/12)/(3.75/9)
	// = 0.8. Krippendorff: n1=2, n2=1, n3=3 pairable values; interval
	// alpha 1 - 5*2/58, ordinal 1 - 5*8/180. MAE 1/3. Correlations of
	// 1,2,3 (or any increasing values) with 1,3,3: Spearman and Pearson
	// sqrt(3)/2, tau-b 2/sqrt(6).
	onGrades := gradedWant{kl: 2.0 / 3, kq: 0.8, ai: 1 - 10.0/58, ao: 1 - 40.0/180, mae: 1.0 / 3,
		spearman: math.Sqrt(3) / 2, tau: 2 / math.Sqrt(6), pearson: math.Sqrt(3) / 2, checkPearson: true}
	labels := []float64{1, 3, 3}
	tests := map[string]struct {
		rows   []Row
		grades []float64
		want   gradedWant
	}{
		"values are grades (a second rater)": {gradedRows([]float64{1, 2, 3}, nil, 0, labels), []float64{1, 2, 3}, with(onGrades, "as given")},
		"values in [0, 1] mapped linearly":   {gradedRows([]float64{0, 0.5, 1}, nil, 0, labels), []float64{1, 2, 3}, with(onGrades, "linear")},
		// Points are the grades when Max is the top grade; the raw values
		// only enter the correlations (same ranks, another Pearson).
		"native points": {gradedRows([]float64{0.1, 0.2, 0.9}, []float64{1, 2, 3}, 3, labels), []float64{1, 2, 3},
			func() gradedWant { w := with(onGrades, "points"); w.checkPearson = false; return w }()},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := Graded(tc.rows, tc.grades)
			assert.Equal(t, tc.grades, g.Grades)
			assert.Equal(t, tc.want.how, g.JudgeOnGrades)
			for name, c := range map[string]struct {
				e    Estimate
				want float64
			}{
				"kappa_linear": {g.KappaLinear, tc.want.kl}, "kappa_quadratic": {g.KappaQuadratic, tc.want.kq},
				"alpha_interval": {g.AlphaInterval, tc.want.ai}, "alpha_ordinal": {g.AlphaOrdinal, tc.want.ao}, "mae": {g.MAE, tc.want.mae},
				"spearman": {g.Spearman, tc.want.spearman}, "kendall_tau_b": {g.KendallTauB, tc.want.tau},
			} {
				assert.InDelta(t, c.want, float64(c.e.Value), 1e-9, name)
				assert.LessOrEqual(t, float64(c.e.CI95[0]), float64(c.e.CI95[1]), name)
			}
			if tc.want.checkPearson {
				assert.InDelta(t, tc.want.pearson, float64(g.Pearson.Value), 1e-9)
			}
			// Three rows: a resample whose labels are all equal (rows 2
			// and 3 only, 8 in 27, or row 1 thrice, 1 in 27) leaves the
			// correlations undefined, a third of 2000; they are counted.
			assert.Greater(t, g.Spearman.Dropped, 550)
			assert.Less(t, g.Spearman.Dropped, 780)
			assert.Zero(t, g.MAE.Dropped, "the MAE is always defined")
			assert.Contains(t, g.Dropped(), "spearman ")
		})
	}
}

type gradedWant struct {
	how                    string
	kl, kq, ai, ao, mae    float64
	spearman, tau, pearson float64
	checkPearson           bool
}

func with(w gradedWant, how string) gradedWant {
	w.how = how
	return w
}

func TestOnGradesChoosesTheScale(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		values, labels, grades []float64
		wantJudge, wantSet     []float64
		how                    string
	}{
		// Without --grades, whole values above 1 are a rater's grades, and
		// their grades join the labels'.
		"a second rater's grades": {[]float64{1, 5, 2}, []float64{2, 4, 2}, nil, []float64{1, 5, 2}, []float64{1, 2, 4, 5}, "as given"},
		// 0 and 1 are a judge's values, even whole: mapped onto 1..3.
		"judge values 0 and 1": {[]float64{0, 1, 1}, []float64{1, 2, 3}, nil, []float64{1, 3, 3}, []float64{1, 2, 3}, "linear"},
		// 0.3 on 1..5 is 2.2: grade 2; 0.4 is 2.6: grade 3.
		"nearest grade": {[]float64{0.3, 0.4}, []float64{1, 5}, []float64{1, 2, 3, 4, 5}, []float64{2, 3}, []float64{1, 2, 3, 4, 5}, "linear"},
		"no rows":       {nil, nil, []float64{0, 1, 2, 3}, nil, []float64{0, 1, 2, 3}, "as given"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rows := gradedRows(tc.values, nil, 0, tc.labels)
			judge, set, how := onGrades(rows, tc.values, tc.labels, tc.grades)
			assert.Equal(t, tc.wantJudge, judge)
			assert.Equal(t, tc.wantSet, set)
			assert.Equal(t, tc.how, how)
		})
	}
}

const sourcesData = `{"id":"a","question":"q","human":{"rel":5,"ok":true},"metadata":{"model":"m1","judge":{"grade":4},"score":0.9}}
{"id":"b","question":"q","human":{"rel":1,"ok":false},"metadata":{"model":"m2","judge":{"grade":2},"score":"0.2"}}
{"id":"c","question":"q","human":{"rel":3,"ok":true},"metadata":{"model":"m1","judge":{"grade":3},"score":0.6}}
{"id":"d","question":"q","human":{"rel":2,"ok":false},"metadata":{"judge":{"grade":1},"score":0.4}}
{"id":"e","question":"q","human":{},"metadata":{"model":"m2","score":0.5}}
{"id":"f","question":"q","human":{"rel":4,"ok":true},"metadata":{"model":"m2","judge":{},"score":"high"}}
`

func TestRecordField(t *testing.T) {
	t.Parallel()
	recs, err := dataset.Read("sources.jsonl", strings.NewReader(sourcesData))
	require.NoError(t, err)
	tests := map[string]struct {
		path string
		want any
		ok   bool
	}{
		"id":                {"id", "a", true},
		"a label":           {"human.rel", 5.0, true},
		"metadata, nested":  {"meta.judge.grade", 4.0, true},
		"metadata, long":    {"metadata.model", "m1", true},
		"absent":            {"meta.nope", nil, false},
		"through a number":  {"meta.score.x", nil, false},
		"an unknown root":   {"question", nil, false},
		"a root on its own": {"human", nil, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := Field(recs[0], tc.path)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.ok || tc.path == "meta.nope" || tc.path == "meta.score.x", CheckFieldPath(tc.path) == nil)
		})
	}
	assert.ErrorContains(t, CheckFieldPath("meta..x"), "write id, human.NAME or meta.NAME")
}

func TestLabelScan(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		labels  string
		graded  bool
		grades  []float64
		binary  int
		numeric int
	}{
		"grades 1-5":            {`5 3 1 "4"`, true, []float64{1, 3, 4, 5}, 1, 4},
		"0 and 1 are binary":    {`0 1 1 0`, false, []float64{0, 1}, 4, 4},
		"booleans are binary":   {`true false true`, false, nil, 3, 0},
		"two grades, not 0/1":   {`2 3`, true, []float64{2, 3}, 0, 2},
		"yes/no are no numbers": {`"yes" "no"`, false, nil, 2, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := LabelScan{Label: "x"}
			for i, l := range strings.Fields(tc.labels) {
				recs, err := dataset.Read("l.jsonl", strings.NewReader(`{"id":"`+strconv.Itoa(i)+`","question":"q","human":{"x":`+l+`}}`))
				require.NoError(t, err)
				s.Add(recs[0])
			}
			assert.Equal(t, tc.graded, s.Graded())
			assert.Equal(t, tc.grades, s.Grades())
			assert.Equal(t, tc.binary, s.Binary)
			assert.Equal(t, tc.numeric, s.Numeric)
		})
	}
}

// TestAgreeValuesByGroup: a field's values against a graded and a binary
// label, per group; each group is the whole measured on its rows alone.
func TestAgreeValuesByGroup(t *testing.T) {
	t.Parallel()
	data := func() iter.Seq2[dataset.Record, error] {
		return dataset.Records("sources.jsonl", strings.NewReader(sourcesData))
	}

	g, err := Values(data(), "meta.judge.grade", ScoreField("meta.judge.grade"), Options{Label: "rel", Graded: true, By: "meta.model"})
	require.NoError(t, err)
	assert.Equal(t, "graded", g.LabelType)
	assert.Equal(t, 1, g.Skipped, "e has no grade")
	assert.Equal(t, 4, g.N)
	assert.Equal(t, 1, g.Errors, "f has no judge grade")
	assert.Equal(t, "meta.judge.grade: no value (give every labelled record one, or drop the record)", g.Rows[4].Err)
	// Judge 4,2,3,1 against 5,1,3,2: ranks 4,2,3,1 and 4,1,3,2, Spearman
	// 1 - 6*(0+1+0+1)/(4*15) = 0.8.
	assert.InDelta(t, 0.8, float64(g.Spearman.Value), 1e-9)
	assert.Equal(t, "as given", g.JudgeOnGrades)
	require.Len(t, g.Groups, 3)
	var names []string
	for _, gr := range g.Groups {
		names = append(names, gr.Group)
		assert.Nil(t, gr.Rows, "rows are on the whole only")
	}
	assert.Equal(t, []string{NoGroup, "m1", "m2"}, names, "sorted; d has no model")
	assert.Equal(t, []int{1, 2, 1}, []int{g.Groups[0].N, g.Groups[1].N, g.Groups[2].N})
	assert.Equal(t, 1, g.Groups[2].Errors, "f is in m2")
	// m1: judge 4,3 against 5,3: a perfect rank order.
	assert.InDelta(t, 1, float64(g.Groups[1].Spearman.Value), 1e-9)

	th := 0.5
	b, err := Values(data(), "meta.score", ScoreField("meta.score"), Options{Label: "ok", Threshold: &th, By: "meta.model"})
	require.NoError(t, err)
	assert.Equal(t, "binary", b.LabelType)
	// a 0.9T, b 0.2F ("0.2" is read), c 0.6T, d 0.4F; f "high" is an error.
	assert.Equal(t, 4, b.N)
	assert.Equal(t, 1, b.Errors)
	assert.Equal(t, `meta.score: want a number, got high`, b.Rows[4].Err)
	assert.Equal(t, stats.Confusion{TP: 2, TN: 2}, b.Fixed.Confusion)
	assert.InDelta(t, 1, b.Fixed.MCC, 1e-12)
	require.NotNil(t, b.Calibration)
	// (0.1^2 + 0.2^2 + 0.4^2 + 0.4^2)/4.
	assert.InDelta(t, 0.0925, b.Calibration.Brier, 1e-12)
	require.Len(t, b.Groups, 3)
	assert.Equal(t, "m2", b.Groups[2].Group)
	assert.Equal(t, stats.Confusion{TN: 1}, b.Groups[2].Fixed.Confusion)
}

// TestStoredScores: a stored run's results join the records by id, with
// their defaults and errors; a record the run lacks is an error row.
func TestStoredScores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := run.Create(dir, run.Config{RunID: "r1", Dataset: "sources.jsonl", Metrics: []string{"source_relevance"}, Model: "offline"})
	require.NoError(t, err)
	for _, r := range []run.Result{
		{ID: "a", Metric: "source_relevance", Value: 0.75, Points: 4, Max: 5},
		{ID: "b", Metric: "source_relevance", Value: 0.25, Points: 2, Max: 5},
		{ID: "c", Metric: "source_relevance", Value: 0.5, Defaulted: true, Error: "judge: 429 after 3 tries"},
		{ID: "d", Metric: "other", Value: 1},
		{ID: "f", Metric: "source_relevance", Skipped: true, Reason: "no sources"},
	} {
		require.NoError(t, w.Append(r))
	}
	require.NoError(t, w.Close())
	folder, err := run.ReadFolder(dir)
	require.NoError(t, err)

	g, err := Values(dataset.Records("sources.jsonl", strings.NewReader(sourcesData)), "source_relevance", StoredScores(folder.Results, "source_relevance"),
		Options{Label: "rel", Graded: true, Grades: []float64{1, 2, 3, 4, 5}})
	require.NoError(t, err)
	require.Len(t, g.Rows, 5)
	assert.Equal(t, Row{ID: "a", Line: 1, Value: 0.75, Grade: ptr(5.0), Points: 4, Max: 5}, g.Rows[0])
	assert.True(t, g.Rows[2].Defaulted)
	assert.Equal(t, "judge: 429 after 3 tries", g.Rows[2].Err)
	assert.Contains(t, g.Rows[3].Err, "the run has no source_relevance result for this record", "d's result is another metric's")
	assert.Equal(t, "no sources", g.Rows[4].Err)
	assert.Equal(t, 2, g.N)
	assert.Equal(t, 1, g.Defaulted)
	assert.Equal(t, 2, g.Errors)
	assert.Equal(t, "points", g.JudgeOnGrades)
	// Points 4, 2 against 5, 1: |4-5| + |2-1| over 2.
	assert.InDelta(t, 1, float64(g.MAE.Value), 1e-12)
}

func ptr[T any](v T) *T { return &v }

// BenchmarkGraded10k measures Graded over 10,000 rows, as assay agree on
// 10,000 graded records does: every statistic and its 2,000-resample
// bootstrap interval.
func BenchmarkGraded10k(b *testing.B) { benchGraded(b, 10_000) }

// BenchmarkGraded100k is BenchmarkGraded10k at 100,000 rows.
func BenchmarkGraded100k(b *testing.B) { benchGraded(b, 100_000) }

func benchGraded(b *testing.B, n int) {
	r := rand.New(rand.NewPCG(29, 1))
	rows := make([]Row, n)
	for i := range rows {
		g := float64(1 + r.IntN(5))
		rows[i] = Row{Value: min(1, max(0, g/5-0.1+(r.Float64()-0.5)*0.3)), Grade: &g}
	}
	for b.Loop() {
		Graded(rows, nil)
	}
}
