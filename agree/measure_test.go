package agree_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/run"
)

const (
	labelled = "../fixtures/rag/labelled.jsonl"
	graded   = "../fixtures/rag/graded.jsonl"
)

// splitMetric is a metric whose offline and model thresholds differ, as
// a stored run reads them.
const splitMetric = "agree_test_split"

// splitRegistry is the built-in metrics and splitMetric.
func splitRegistry(t *testing.T) *metric.Registry {
	t.Helper()
	reg := agent.Builtins().Clone()
	require.NoError(t, reg.Add(metric.Entry{
		Name: splitMetric, Kind: metric.KindHeuristic, Dataset: true, Threshold: metric.Threshold{Offline: 0.9, Model: 0.6},
		Build: func(metric.Model) eval.Scorer { return judges.TokenOverlap{} },
	}))
	return reg
}

// job is a Job over data with the offline judges and the command line's
// defaults, its data and cache folders t's own.
func job(t *testing.T, data string) agree.Job {
	t.Helper()
	env := map[string]string{"ASSAY_DATA_DIR": t.TempDir(), "ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_LLM": "offline"}
	j := agree.Job{Data: data, Label: "faithful", Judging: judging.Default(), Env: func(k string) string { return env[k] }, Quiet: true}
	j.Judging.LLM.Spec = "offline"
	return j
}

// TestMeasureTablePerMetric: several metrics give a table each, the one
// each gets alone, with one baseline beside them and one usage report.
func TestMeasureTablePerMetric(t *testing.T) {
	t.Parallel()
	j := job(t, labelled)
	j.Metrics, j.Baseline = []string{"faithfulness", "answer_relevancy"}, true
	out, err := agree.Measure(context.Background(), j)
	require.NoError(t, err)
	require.Len(t, out.Tables, 2)
	for i, m := range j.Metrics {
		alone := job(t, labelled)
		alone.Metrics = []string{m}
		want, err := agree.Measure(context.Background(), alone)
		require.NoError(t, err)
		require.Len(t, want.Tables, 1)
		assert.Equal(t, want.Tables[0], out.Tables[i], m)
	}
	require.NotNil(t, out.Baseline)
	assert.Equal(t, judges.MetricTokenOverlap, out.Baseline.Metric)
	require.Len(t, out.Reports, 1)
	assert.Equal(t, judges.MethodOffline, out.Reports[0].Judge)
	assert.True(t, out.Passed())
	assert.Equal(t, labelled, out.File)
}

// TestMeasureStoredRunThreshold: a stored run's values are read at the
// threshold of the judge it recorded, offline or a model's.
func TestMeasureStoredRunThreshold(t *testing.T) {
	t.Parallel()
	data, err := filepath.Abs(labelled)
	require.NoError(t, err)
	tests := map[string]struct {
		model string
		want  float64
	}{
		"offline":     {judges.MethodOffline, 0.9},
		"a model":     {"llm:openai:judge-model", 0.6},
		"no judge at": {bench.NoModel, 0.9},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			w, err := run.Create(dir, run.Config{RunID: "r", Dataset: data, Metrics: []string{splitMetric}, Model: tc.model})
			require.NoError(t, err)
			for _, id := range []string{"r1", "r2", "r3", "r4", "r5", "r6"} {
				require.NoError(t, w.Append(run.Result{ID: id, Metric: splitMetric, Value: 0.7}))
			}
			require.NoError(t, w.Close())
			j := job(t, dir)
			j.Registry = splitRegistry(t)
			out, err := agree.Measure(context.Background(), j)
			require.NoError(t, err)
			require.Len(t, out.Tables, 1)
			fixed := out.Tables[0].Results[0].Fixed
			require.NotNil(t, fixed)
			assert.InDelta(t, tc.want, fixed.Threshold, 0)
			assert.Empty(t, out.Reports, "no model client")
		})
	}
}

func TestMeasureInputErrors(t *testing.T) {
	t.Parallel()
	two := 2.0
	tests := map[string]struct {
		edit func(*agree.Job)
		want string
	}{
		"no label":            {func(j *agree.Job) { j.Label = "" }, "--label: name the human label"},
		"a label type":        {func(j *agree.Job) { j.LabelType = "ordinal" }, `--label-type: must be binary or graded, got "ordinal"`},
		"grades not in order": {func(j *agree.Job) { j.Grades = []float64{3, 1} }, "--grades: want at least two distinct grades, ascending, got 3, 1"},
		"score and metric":    {func(j *agree.Job) { j.Score = "meta.x" }, "--score and --metric: give one"},
		"a threshold above 1": {func(j *agree.Job) { j.Threshold = &two }, "--threshold: want a value from 0 to 1, got 2"},
		"a metric twice":      {func(j *agree.Job) { j.Metrics = []string{"faithfulness", "faithfulness"} }, `--metric: "faithfulness" is named twice`},
		"an empty juror":      {func(j *agree.Job) { j.Judging.LLM.Spec = "offline,,offline" }, "an empty model between commas"},
		"a label none has":    {func(j *agree.Job) { j.Label = "relevant" }, "no record has the binary label human.relevant"},
		"the human object named": {func(j *agree.Job) { j.Label = "human.faithful" },
			"no record has the binary label human.human.faithful (--label names a key under each record's human object: did you mean --label faithful?)"},
		"the human object named, negated": {func(j *agree.Job) { j.Label = "!human.faithful" },
			"(--label names a key under each record's human object: did you mean --label !faithful?)"},
		"grades outside the labels": {func(j *agree.Job) {
			j.Data, j.Label, j.Grades = graded, "relevance", []float64{1, 2, 3}
		}, "takes values that are not among the grades 1, 2, 3: 4 (first on line 2), 5 (first on line 1)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, labelled)
			j.Metrics = []string{"faithfulness"}
			tc.edit(&j)
			out, err := agree.Measure(context.Background(), j)
			assert.Nil(t, out)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestMeasureJury: several models judge as a jury, each with its own
// client and report, and the jury is measured as one rater.
func TestMeasureJury(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	j := job(t, labelled)
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
	j.Env = func(k string) string { return env[k] }
	j.Metrics, j.Judging.LLM.Spec, j.Judging.LLM.NoCache = []string{"faithfulness"}, "openai:judge-a, openai:judge-b", true
	out, err := agree.Measure(context.Background(), j)
	require.NoError(t, err)
	require.Len(t, out.Tables, 1)
	tab := out.Tables[0]
	require.Len(t, tab.Results, 2)
	assert.Equal(t, "faithfulness (openai:judge-a)", tab.Results[0].Metric)
	assert.Equal(t, "faithfulness (openai:judge-b)", tab.Results[1].Metric)
	require.NotNil(t, tab.Jury)
	assert.Equal(t, agree.JuryMetric, tab.Jury.Jury.Metric)
	require.Len(t, out.Reports, 2)
	for i, r := range out.Reports {
		assert.Equal(t, []string{"llm:openai:judge-a", "llm:openai:judge-b"}[i], r.Judge)
		assert.Positive(t, r.Usage.Calls, r.Judge)
	}
	assert.True(t, out.Passed())
}

// TestMeasureDefaults: judgements that all fell back to the neutral
// default fail the run, over the default rate and with nothing measured.
func TestMeasureDefaults(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Status: 500}))
	for name, tc := range map[string]struct {
		rate float64
		want []judging.FailureKind
	}{
		"over the rate":     {0.05, []judging.FailureKind{judging.FailDefaults, judging.FailNothingScored}},
		"every one allowed": {1, []judging.FailureKind{judging.FailNothingScored}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, labelled)
			env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL()}
			j.Env = func(k string) string { return env[k] }
			j.Metrics, j.Judging.LLM.Spec, j.Judging.LLM.NoCache, j.Judging.MaxDefaultRate = []string{"faithfulness"}, "openai:judge-model", true, tc.rate
			j.Judging.LLM.MaxRetryTime = 50 * time.Millisecond
			out, err := agree.Measure(context.Background(), j)
			require.NoError(t, err)
			kinds := make([]judging.FailureKind, len(out.Failures))
			for i, f := range out.Failures {
				kinds[i] = f.Kind
			}
			assert.Equal(t, tc.want, kinds)
			assert.Equal(t, 6, out.Reports[0].Defaulted)
			assert.Contains(t, out.Failures[len(out.Failures)-1].Error(), "faithfulness: all 6 labelled records fell back to the neutral default")
		})
	}
}

// TestMeasureDefaultAdviceNamesTheCause: the advice after too many
// defaults follows what made them: replies off the judges' schema point
// at structured output, a server failing at the server and key. Before,
// agree kept only each default's text, and every cause read as a server
// that is down.
func TestMeasureDefaultAdviceNamesTheCause(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		reply     llmtest.Reply
		want, not string
	}{
		"replies off the schema": {llmtest.Reply{Content: `{"hello": "world"}`}, "do not follow the judges' JSON schema", "check that the model server is up"},
		"a failing server":       {llmtest.Reply{Status: 500}, "check that the model server is up", "JSON schema"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Default(tc.reply))
			j := job(t, labelled)
			env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL()}
			j.Env = func(k string) string { return env[k] }
			j.Metrics, j.Judging.LLM.Spec, j.Judging.LLM.NoCache = []string{"faithfulness"}, "openai:judge-model", true
			j.Judging.LLM.MaxRetryTime = 50 * time.Millisecond
			out, err := agree.Measure(context.Background(), j)
			require.NoError(t, err)
			require.NotEmpty(t, out.Failures)
			f := out.Failures[0]
			require.Equal(t, judging.FailDefaults, f.Kind)
			assert.Contains(t, f.Error(), tc.want)
			assert.NotContains(t, f.Error(), tc.not)
		})
	}
}

// TestMeasureDryRun: a dry run plans each juror's calls and runs nothing.
func TestMeasureDryRun(t *testing.T) {
	t.Parallel()
	j := job(t, labelled)
	j.Metrics, j.Baseline, j.Judging.DryRun = []string{"faithfulness", "source_relevance"}, true, true
	out, err := agree.Measure(context.Background(), j)
	require.NoError(t, err)
	require.Len(t, out.Plans, 1)
	assert.Empty(t, out.Tables)
	assert.Nil(t, out.Baseline)
	names := []string{out.Plans[0].Rows[0].Name, out.Plans[0].Rows[1].Name}
	assert.Equal(t, j.Metrics, names)
	var w bytes.Buffer
	require.NoError(t, out.Write(&w, &w, agree.Style{}))
	assert.True(t, strings.HasPrefix(w.String(), "dry run for offline (approximate) on 6 record(s); no call made\n"), w.String())
}

// TestOutcomeWriteJSON: the JSON is the list of results, the baseline's
// last; with a jury an object with it, "juries" for several metrics.
func TestOutcomeWriteJSON(t *testing.T) {
	t.Parallel()
	r := func(m string) agree.Result { return agree.Result{Metric: m} }
	jury := &agree.JuryResult{Jurors: []string{"a", "b"}}
	base := r("token_overlap")
	tests := map[string]struct {
		out  agree.Outcome
		keys []string // of the object; nil: a list
		n    int      // results
	}{
		"a judge":              {agree.Outcome{Tables: []agree.Table{{Results: []agree.Result{r("f")}}}, Baseline: &base}, nil, 2},
		"a jury":               {agree.Outcome{Tables: []agree.Table{{Results: []agree.Result{r("a"), r("b")}, Jury: jury}}}, []string{"jury", "results"}, 2},
		"a jury of each table": {agree.Outcome{Tables: []agree.Table{{Results: []agree.Result{r("a")}, Jury: jury}, {Results: []agree.Result{r("b")}, Jury: jury}}}, []string{"juries", "results"}, 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var w bytes.Buffer
			require.NoError(t, tc.out.Write(&w, &bytes.Buffer{}, agree.Style{JSON: true}))
			var results []agree.Result
			if tc.keys == nil {
				require.NoError(t, json.Unmarshal(w.Bytes(), &results))
			} else {
				var obj map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(w.Bytes(), &obj))
				keys := make([]string, 0, len(obj))
				for k := range obj {
					keys = append(keys, k)
				}
				assert.ElementsMatch(t, tc.keys, keys)
				require.NoError(t, json.Unmarshal(obj["results"], &results))
			}
			assert.Len(t, results, tc.n)
		})
	}
}

// TestMeasureInterrupted: a run whose context ends returns its error, not
// an outcome.
func TestMeasureInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	j := job(t, labelled)
	j.Metrics = []string{"faithfulness"}
	_, err := agree.Measure(ctx, j)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), err)
	var ie *eval.InputError
	assert.False(t, errors.As(err, &ie), "not an input error")
}

// TestRowJSON: a binary row carries its label, true or false; a graded
// row carries its grade and no label, and a row without the label none.
func TestRowJSON(t *testing.T) {
	t.Parallel()
	grade := 4.0
	tests := map[string]struct {
		row  agree.Row
		want string
	}{
		"binary, false":  {agree.Row{ID: "a", Line: 1, Value: 0.2}, `{"id":"a","line":1,"value":0.2,"label":false}`},
		"binary, true":   {agree.Row{ID: "b", Line: 2, Value: 0.9, Label: true}, `{"id":"b","line":2,"value":0.9,"label":true}`},
		"graded":         {agree.Row{ID: "c", Line: 3, Value: 0.7, Grade: &grade}, `{"id":"c","line":3,"value":0.7,"grade":4}`},
		"without labels": {agree.Row{ID: "d", Line: 4, Value: 0.5, Unlabelled: true}, `{"id":"d","line":4,"value":0.5,"unlabelled":true}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.row)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
		})
	}
}
