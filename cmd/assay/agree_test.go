package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	runpkg "github.com/assaylabs/assay/run"
)

// labelledLines is n labelled JSON Lines records, the first n/2 faithful.
func labelledLines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(`{"id":"r` + strconv.Itoa(i) + `","question":"Where is the tower?","answer":"The tower is in Paris.",` +
			`"contexts":["The tower stands in Paris."],"human":{"faithful":` + strconv.FormatBool(i < n/2) + "}}\n")
	}
	return b.String()
}

// TestAgreeChecksTheWholeFileBeforeAnyCall: a bad record far into a
// dataset, in a file or on standard input, is an input error naming the
// file, line and field, and no model call is made.
func TestAgreeChecksTheWholeFileBeforeAnyCall(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	dir := t.TempDir()
	const n = 2000
	tests := map[string]struct {
		last, want string // the record after n good ones; the error
	}{
		"a field":       {`{"id":"bad","question":"q","contexts":7,"human":{"faithful":true}}`, ":2001: contexts: want an array of strings, got number"},
		"invalid JSON":  {`{"id":"bad","question":"q",`, ":2001:28: invalid JSON: unexpected end of JSON input"},
		"a duplicate":   {`{"id":"r7","question":"q","human":{"faithful":true}}`, `:2001: id: duplicate id "r7" (first on line 8)`},
		"no query":      {`{"id":"bad","human":{"faithful":true}}`, ":2001: record has no question, answer, contexts or messages"},
		"not UTF-8":     {`{"id":"bad","question":"caf` + "\xe9" + `","human":{"faithful":true}}`, ":2001:28: invalid UTF-8: expected UTF-8 text"},
		"a bad context": {`{"id":"bad","question":"q","contexts":["a",1],"human":{"faithful":true}}`, ":2001: contexts[1]: want a string, got number"},
	}
	for name, tc := range tests {
		data := labelledLines(n) + tc.last + "\n"
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
		for _, file := range []string{path, "-"} {
			t.Run(name+" in "+agent.DisplayName(file), func(t *testing.T) {
				t.Parallel()
				var out, errb bytes.Buffer
				code := run(context.Background(), []string{"agree", "--no-cache", "--metric", "faithfulness", "--label", "faithful", file},
					func(k string) string { return env[k] }, strings.NewReader(data), &out, &errb)
				assert.Equal(t, exitInput, code, errb.String())
				assert.Contains(t, errb.String(), "assay: "+agent.DisplayName(file)+tc.want)
				assert.Empty(t, out.String())
			})
		}
	}
	t.Cleanup(func() { assert.Zero(t, srv.Calls(), "no model call") })
}

// TestAgreeStdin: a dataset on standard input gives the file's result,
// named <stdin>.
func TestAgreeStdin(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../fixtures/rag/labelled.jsonl")
	require.NoError(t, err)
	for _, format := range []string{"md", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			args := []string{"agree", "--metric", "faithfulness", "--label", "faithful", "--baseline", "--format", format}
			code, want, errOut := runCLI(t, "", append(args, "../../fixtures/rag/labelled.jsonl")...)
			require.Equal(t, exitPass, code, errOut)
			code, got, errOut := runCLI(t, string(data), append(args, "-")...)
			require.Equal(t, exitPass, code, errOut)
			assert.Equal(t, strings.Replace(want, "../../fixtures/rag/labelled.jsonl", "<stdin>", 1), got)
		})
	}
}

// TestAgreeGolden: values read from the file (--score), binary and
// graded, whole and per group, in Markdown and JSON, are fixed figures.
func TestAgreeGolden(t *testing.T) {
	t.Parallel()
	const graded = "../../fixtures/rag/graded.jsonl"
	tests := map[string][]string{
		"agree-score.md":        {"agree", "--score", "meta.judge_score", "--label", "relevant", "--by", "meta.model", "--calibration", graded},
		"agree-score.json":      {"agree", "--score", "meta.judge_score", "--label", "relevant", "--by", "meta.model", "--format", "json", graded},
		"agree-graded.md":       {"agree", "--score", "meta.judge_grade", "--label", "relevance", "--by", "meta.model", graded},
		"agree-graded.json":     {"agree", "--score", "meta.judge_grade", "--label", "relevance", "--format", "json", graded},
		"agree-graded-judge.md": {"agree", "--metric", "source_relevance", "--label", "relevance", "--grades", "1,2,3,4,5", graded},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, "", args...)
			require.Equal(t, exitPass, code, errOut)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), out)
		})
	}
}

// TestAgreeGradedFixture: the README's graded example prints the output
// kept beside its dataset.
func TestAgreeGradedFixture(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "", "agree", "--score", "meta.judge_grade", "--label", "relevance", "--by", "meta.model", "../../fixtures/rag/graded.jsonl")
	require.Equal(t, exitPass, code, errOut)
	out = strings.ReplaceAll(out, "../../fixtures/", "fixtures/")
	const expected = "../../fixtures/rag/graded.expected.md"
	if *update {
		require.NoError(t, os.WriteFile(expected, []byte(out), 0o644))
	}
	want, err := os.ReadFile(expected)
	require.NoError(t, err)
	assert.Equal(t, string(want), out)
	assert.Contains(t, out, "| meta.judge_grade | relevance | all | 16 | 0 | 0 | 0 | as given | 0.880 ")
}

// TestAgreeBy: --by adds a result per value of the field, each measured
// on its records alone, beside the whole.
func TestAgreeBy(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "", "agree", "--score", "meta.judge_grade", "--label", "relevance", "--by", "meta.model", "--format", "json", "../../fixtures/rag/graded.jsonl")
	require.Equal(t, exitPass, code, errOut)
	var rs []agree.Result
	require.NoError(t, json.Unmarshal([]byte(out), &rs))
	require.Len(t, rs, 1)
	whole := rs[0]
	assert.Equal(t, "meta.model", whole.By)
	assert.Equal(t, 16, whole.N)
	require.Len(t, whole.Groups, 2)
	for _, g := range whole.Groups {
		assert.Equal(t, 8, g.N, g.Group)
		// The group alone, measured from a file of its records only, gives
		// the same figures.
		var lines []string
		data, err := os.ReadFile("../../fixtures/rag/graded.jsonl")
		require.NoError(t, err)
		for l := range strings.Lines(string(data)) {
			if strings.Contains(l, `"model": "`+g.Group+`"`) {
				lines = append(lines, l)
			}
		}
		require.Len(t, lines, 8)
		code, alone, errOut := runCLI(t, strings.Join(lines, ""), "agree", "--score", "meta.judge_grade", "--label", "relevance", "--grades", "1,2,3,4,5", "--format", "json", "-")
		require.Equal(t, exitPass, code, errOut)
		var a []agree.Result
		require.NoError(t, json.Unmarshal([]byte(alone), &a))
		assert.Equal(t, a[0].Spearman, g.Spearman, g.Group)
		assert.Equal(t, a[0].KappaQuadratic, g.KappaQuadratic, g.Group)
		assert.Equal(t, a[0].MAE, g.MAE, g.Group)
	}
	assert.Equal(t, []string{"model-a", "model-b"}, []string{whole.Groups[0].Group, whole.Groups[1].Group})
}

// writeRun writes a run folder of the source_relevance results given by
// id (value, points of 5; a negative value is a default) for dataset.
func writeRun(t *testing.T, dataset string, metrics []string, results map[string]float64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	w, err := runpkg.Create(dir, runpkg.Config{RunID: "run-1", Dataset: dataset, Metrics: metrics, Model: "offline"})
	require.NoError(t, err)
	for _, id := range slices.Sorted(maps.Keys(results)) {
		v := results[id]
		r := runpkg.Result{ID: id, Metric: metrics[0], Value: v, Points: 1 + 4*v, Max: 5}
		if v < 0 {
			r = runpkg.Result{ID: id, Metric: metrics[0], Value: 0.5, Defaulted: true, Error: "judge: 503 after 3 tries"}
		}
		require.NoError(t, w.Append(r))
	}
	require.NoError(t, w.Close())
	return dir
}

// TestAgreeRunDir: a stored run's results are joined with its dataset's
// labels by id, with no model call, and give what the same values read
// from the file give.
func TestAgreeRunDir(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	dataset, err := filepath.Abs("../../fixtures/rag/graded.jsonl")
	require.NoError(t, err)
	// Each record's stored value is its judge_score, so that the run and
	// --score meta.judge_score must agree.
	data, err := os.ReadFile(dataset)
	require.NoError(t, err)
	scores := map[string]float64{}
	for l := range strings.Lines(string(data)) {
		var rec struct {
			ID       string `json:"id"`
			Metadata struct {
				JudgeScore float64 `json:"judge_score"`
			} `json:"metadata"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &rec), l)
		scores[rec.ID] = rec.Metadata.JudgeScore
	}
	require.Len(t, scores, 16)
	dir := writeRun(t, dataset, []string{"source_relevance"}, scores)

	code, fromRun, errOut := runEnv(t, env, "agree", "--label", "relevant", "--threshold", "0.5", "--format", "json", dir)
	require.Equal(t, exitPass, code, errOut)
	code, fromField, errOut := runEnv(t, env, "agree", "--score", "meta.judge_score", "--label", "relevant", "--format", "json", dataset)
	require.Equal(t, exitPass, code, errOut)
	var run, field []agree.Result
	require.NoError(t, json.Unmarshal([]byte(fromRun), &run))
	require.NoError(t, json.Unmarshal([]byte(fromField), &field))
	assert.Equal(t, "source_relevance", run[0].Metric)
	assert.Equal(t, 16, run[0].N)
	assert.Equal(t, field[0].AUC, run[0].AUC)
	assert.Equal(t, field[0].Fixed, run[0].Fixed)
	assert.Equal(t, field[0].Best, run[0].Best)
	assert.Equal(t, field[0].Calibration, run[0].Calibration)

	// Graded: the stored points 1+4v are the judge's grades where they are
	// whole (v = 0.25: 2 of 5); the others (v = 0.05: 1.2) are mapped.
	code, out, errOut := runEnv(t, env, "agree", "--label", "relevance", "--grades", "1,2,3,4,5", dir)
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, out, "| source_relevance | relevance | all | 16 | 0 | 0 | 0 | points, else linear |")

	// A defaulted result is counted apart; a record the run lacks is named.
	delete(scores, "g16")
	scores["g01"] = -1
	dir2 := writeRun(t, dataset, []string{"source_relevance"}, scores)
	code, out, errOut = runEnv(t, env, "agree", "--label", "relevant", "--max-default-rate", "1", dir2)
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, errOut, "graded.jsonl:16: record g16: the run has no source_relevance result for this record")
	assert.Contains(t, out, "| source_relevance | relevant | 14 (8/6) | 1 | 1 | 0 |", "g01 and g16 are relevant")
	assert.Zero(t, srv.Calls(), "a stored run makes no model call")
}

func TestAgreeSourceErrors(t *testing.T) {
	t.Parallel()
	dataset, err := filepath.Abs("../../fixtures/rag/graded.jsonl")
	require.NoError(t, err)
	two := writeRun(t, dataset, []string{"source_relevance", "faithfulness"}, map[string]float64{"g01": 1})
	gone := writeRun(t, filepath.Join(t.TempDir(), "gone.jsonl"), []string{"source_relevance"}, map[string]float64{"g01": 1})
	const file = "../../fixtures/rag/graded.jsonl"
	tests := map[string]struct {
		args []string
		want string
	}{
		"no source":            {[]string{"--label", "relevant", file}, "no judge values: give --metric NAME (run a judge now), --score FIELD (values in the file) or a run folder"},
		"two sources":          {[]string{"--label", "relevant", "--metric", "faithfulness", "--score", "meta.judge_score", file}, "--score and --metric: give one"},
		"a bad path":           {[]string{"--label", "relevant", "--score", "judge_score", file}, `--score: "judge_score" is not a field path: write id, human.NAME or meta.NAME`},
		"a bad --by":           {[]string{"--label", "relevant", "--score", "meta.judge_score", "--by", "model", file}, `--by: "model" is not a field path`},
		"bad grades":           {[]string{"--label", "relevance", "--score", "meta.judge_grade", "--grades", "1,x", file}, `--grades: "x" is not a number: write the grades as 1,2,3,4,5`},
		"grades of a binary":   {[]string{"--label", "relevant", "--score", "meta.judge_score", "--grades", "0,1", file}, "--grades: the label human.relevant is binary: give --label-type graded"},
		"bad label type":       {[]string{"--label", "relevant", "--score", "meta.judge_score", "--label-type", "ordinal", file}, `--label-type: must be binary or graded, got "ordinal"`},
		"a negated grade":      {[]string{"--label", "!relevance", "--label-type", "graded", "--score", "meta.judge_grade", file}, "--label !relevance: a graded label cannot be negated"},
		"no graded label":      {[]string{"--label", "relevant", "--label-type", "graded", "--score", "meta.judge_grade", file}, "no record has a numeric (graded) label human.relevant"},
		"run: which metric":    {[]string{"--label", "relevant", two}, "has the metrics source_relevance, faithfulness: pick one with --metric"},
		"run: unknown metric":  {[]string{"--label", "relevant", "--metric", "context_recall", two}, "has no metric context_recall: it has source_relevance, faithfulness"},
		"run: --score":         {[]string{"--label", "relevant", "--score", "meta.judge_score", two}, "--score: not with a run folder"},
		"run: dataset gone":    {[]string{"--label", "relevant", gone}, "gone.jsonl cannot be read"},
		"--dataset for a file": {[]string{"--label", "relevant", "--score", "meta.judge_score", "--dataset", file, file}, "--dataset: only with a run folder"},
		"no such folder":       {[]string{"--label", "relevant", "runs/nightly"}, "runs/nightly: stat runs/nightly: no such file or directory: give a run folder (assay bench --out), or a dataset with --metric or --score"},
		"not a run folder":     {[]string{"--label", "relevant", t.TempDir()}, "is not a run folder (no config.json)"},
		"a missing score":      {[]string{"--label", "relevant", "--score", "meta.nope", file}, "meta.nope: no value (give every labelled record one, or drop the record) (meta.nope could score none of the 16 labelled records)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, "", append([]string{"agree"}, tc.args...)...)
			assert.Equal(t, exitInput, code, errOut)
			assert.Contains(t, errOut, tc.want)
			assert.Empty(t, out)
		})
	}
	// --dataset points a run whose dataset moved at it.
	code, out, errOut := runCLI(t, "", "agree", "--label", "relevant", "--dataset", file, "--max-default-rate", "1", gone)
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, out, "| source_relevance | relevant | 1 (1/0) | 0 | 15 | 0 |")
}

// tempEnv is an environment whose data and cache folders are t's own.
func tempEnv(t *testing.T) map[string]string {
	t.Helper()
	return map[string]string{"ASSAY_DATA_DIR": t.TempDir(), "ASSAY_CACHE_DIR": t.TempDir()}
}

// TestAgreeRunDirThresholdOfItsJudge: agree over a stored run reads each
// value at the threshold of the judge the run recorded: the offline one
// for an offline run, as runs record it ("offline (approximate)"), the
// model's for a model's. The toy metric's are 1 offline and 0.75 with a
// model.
func TestAgreeRunDirThresholdOfItsJudge(t *testing.T) {
	t.Parallel()
	dataset, err := filepath.Abs("../../fixtures/rag/labelled.jsonl")
	require.NoError(t, err)
	tests := map[string]struct {
		model string
		want  float64
	}{
		"an offline run":                {judges.MethodOffline, 1},
		"an offline run of early days":  {"offline", 1},
		"a model's run":                 {"llm:openai:judge-model", 0.75},
		"a run whose metrics call none": {bench.NoModel, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			run, err := runpkg.Create(dir, runpkg.Config{RunID: "run-1", Dataset: dataset, Metrics: []string{toyMetric}, Model: tc.model})
			require.NoError(t, err)
			for i, id := range []string{"r1", "r2", "r3", "r4", "r5", "r6"} {
				v := 0.8 // the faithful ones: under 1, over 0.75
				if i%2 == 1 {
					v = 0.2
				}
				require.NoError(t, run.Append(runpkg.Result{ID: id, Metric: toyMetric, Value: v, Points: v, Max: 1}))
			}
			require.NoError(t, run.Close())
			env := tempEnv(t)
			var out, errb bytes.Buffer
			code := runWith(context.Background(), toyRegistry(t), []string{"agree", "--label", "faithful", "--format", "json", dir},
				func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
			require.Equal(t, exitPass, code, errb.String())
			var rs []agree.Result
			require.NoError(t, json.Unmarshal(out.Bytes(), &rs))
			require.Len(t, rs, 1)
			require.NotNil(t, rs[0].Fixed)
			assert.InDelta(t, tc.want, rs[0].Fixed.Threshold, 0)
		})
	}
}

// TestAgreeSeveralMetrics: --metric takes several judges, comma separated
// or repeated, and prints a table each, with the baseline beside each;
// each table is the one the metric gets alone.
func TestAgreeSeveralMetrics(t *testing.T) {
	t.Parallel()
	const file = "../../fixtures/rag/labelled.jsonl"
	alone := func(metric string) string {
		code, out, errOut := runEnv(t, tempEnv(t), "agree", "--metric", metric, "--label", "faithful", "--baseline", file)
		require.Equal(t, exitPass, code, errOut)
		return out
	}
	want := alone("faithfulness") + "\n" + alone("answer_relevancy")
	assert.Contains(t, want, "| answer_relevancy | faithful |")
	tests := map[string][]string{
		"comma separated": {"--metric", "faithfulness,answer_relevancy"},
		"repeated":        {"--metric", "faithfulness", "--metric", "answer_relevancy"},
	}
	for name, metrics := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runEnv(t, tempEnv(t), append(append([]string{"agree"}, metrics...), "--label", "faithful", "--baseline", file)...)
			require.Equal(t, exitPass, code, errOut)
			assert.Equal(t, want, out)

			code, out, errOut = runEnv(t, tempEnv(t), append(append([]string{"agree"}, metrics...), "--label", "faithful", "--baseline", "--format", "json", file)...)
			require.Equal(t, exitPass, code, errOut)
			var rs []agree.Result
			require.NoError(t, json.Unmarshal([]byte(out), &rs))
			names := make([]string, len(rs))
			for i, r := range rs {
				names[i] = r.Metric
			}
			assert.Equal(t, []string{"faithfulness", "answer_relevancy", "token_overlap"}, names, "the baseline once, last")
		})
	}
	code, _, errOut := runEnv(t, tempEnv(t), "agree", "--metric", "faithfulness,faithfulness", "--label", "faithful", file)
	assert.Equal(t, exitInput, code)
	assert.Contains(t, errOut, `--metric: "faithfulness" is named twice`)
}

// TestAgreeGradesOutsideTheLabels: --grades that leave out grades the
// label takes is an input error naming them, where the figures would be
// computed on a scale the labels are not on.
func TestAgreeGradesOutsideTheLabels(t *testing.T) {
	t.Parallel()
	const file = "../../fixtures/rag/graded.jsonl"
	tests := map[string][]string{
		"values in the file": {"--score", "meta.judge_grade"},
		"a judge run now":    {"--metric", "source_relevance"},
	}
	for name, values := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{"agree"}, values...), "--label", "relevance", "--grades", "1,2,3", file)
			code, out, errOut := runEnv(t, tempEnv(t), args...)
			assert.Equal(t, exitInput, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "assay: --grades: the label human.relevance of "+file+" takes values that are not among the grades 1, 2, 3: "+
				"4 (first on line 2), 5 (first on line 1); give every grade it takes (--grades 1,2,3,4,5)")
		})
	}
}

// TestAgreeScoreWithBaseline: the baseline beside values read from the
// file is measured (it crashed: no model client to meter it with).
func TestAgreeScoreWithBaseline(t *testing.T) {
	t.Parallel()
	code, out, errOut := runEnv(t, tempEnv(t), "agree", "--score", "meta.judge_score", "--label", "relevant", "--baseline", "../../fixtures/rag/graded.jsonl")
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, out, "| meta.judge_score | relevant | 16 (10/6) |")
	assert.Contains(t, out, "| token_overlap | relevant | 16 (10/6) |")
	assert.NotContains(t, errOut, "judge:", "no model client, no usage line")
}

// TestModelSettingErrorsNameTheFlagOnce: a bad model setting is said once,
// as the setting names it, by agree and bench alike.
func TestModelSettingErrorsNameTheFlagOnce(t *testing.T) {
	t.Parallel()
	const file = "../../fixtures/rag/labelled.jsonl"
	tests := map[string]struct {
		flags []string
		want  string
	}{
		"an unknown backend": {[]string{"--llm", "nope:x"}, `assay: --llm: unknown backend "nope" in "nope:x"`},
		"no concurrency":     {[]string{"--concurrency", "0"}, "assay: --concurrency: want 1 to 4096 calls in flight, got 0"},
		"samples offline":    {[]string{"--samples", "2"}, "assay: --samples 2: --samples above 1 needs a model"},
	}
	for name, tc := range tests {
		for _, cmd := range [][]string{{"agree", "--label", "faithful"}, {"bench", "--out", filepath.Join(t.TempDir(), "run")}} {
			t.Run(name+", "+cmd[0], func(t *testing.T) {
				t.Parallel()
				args := slices.Concat(cmd, []string{"--metric", "faithfulness"}, tc.flags, []string{file})
				code, out, errOut := runEnv(t, tempEnv(t), args...)
				assert.Equal(t, exitInput, code, errOut)
				assert.Empty(t, out)
				assert.True(t, strings.HasPrefix(errOut, tc.want), errOut)
			})
		}
	}
}

// TestAgreeEstimate: --estimate prints the PPI++ table beside the
// agreement, carries it in JSON, and exits 2 naming what is missing.
func TestAgreeEstimate(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 60 {
		label := ""
		if i < 20 {
			label = `"human":{"relevant":` + strconv.FormatBool(i%3 != 0) + `},`
		}
		score := 0.9
		if i%3 == 0 {
			score = 0.1
		}
		b.WriteString(`{"id":"r` + strconv.Itoa(i) + `","question":"q",` + label + `"metadata":{"judge_score":` + strconv.FormatFloat(score, 'g', -1, 64) + "}}\n")
	}
	data := b.String()
	code, out, errOut := runCLI(t, data, "agree", "--score", "meta.judge_score", "--label", "relevant", "--estimate", "-")
	require.Equal(t, exitPass, code, errOut)
	// By hand: 20 labels, 13 true (mean 0.65, var 0.2275), the judge
	// f = 0.1 + 0.8y on them (mean 0.62, var 0.1456, cov 0.182); 40
	// unlabelled, 27 at 0.9 and 13 at 0.1 (mean 0.64, var 0.1404).
	// lambda = (0.182/20) / (0.1404/40 + 0.1456/20) = 0.843; estimate
	// 0.65 + 0.843*(0.64-0.62) = 0.667; V = lambda^2*0.1404/40 +
	// (1-0.8*lambda)^2*0.2275/20 = 0.0037, so 0.667 -+ 0.119. Labels alone
	// 0.65 -+ 1.96*sqrt(0.2275/20); judge alone 38/60; effective labels
	// 20*(0.2275/20)/0.0037 = 61.5.
	assert.Contains(t, out, "| meta.judge_score | relevant | all | 20 | 40 | 0.667 [0.548, 0.786] | 0.650 [0.441, 0.859] | 0.633 | 0.843 | 61.5 |")
	code, out, errOut = runCLI(t, data, "agree", "--score", "meta.judge_score", "--label", "relevant", "--estimate", "--format", "json", "-")
	require.Equal(t, exitPass, code, errOut)
	var rs []agree.Result
	require.NoError(t, json.Unmarshal([]byte(out), &rs))
	require.NotNil(t, rs[0].Mean)
	assert.Equal(t, 40, rs[0].Mean.Unlabelled)

	// --weight: each label weighted 3 (20 of 60 taken with chance 1/3),
	// the difference estimator. lambda = cov/var(f) = 0.182/0.1456,
	// clipped to 1; estimate 0.65 + (38/60 - 0.62) = 0.663; y - f =
	// 0.2y - 0.1, variance (divisor 19) 0.04*0.2395, so the design's
	// part (1 - 1/3)*0.00958/20 = 0.00032, the population's 0.2275/60 =
	// 0.00379: 0.663 -+ 0.126. Labels alone: (2/3)*0.2395/20 + 0.00379,
	// 0.650 -+ 0.213; effective labels 20*0.01177/0.00411 = 57.3.
	weighted := strings.ReplaceAll(data, `"metadata":{`, `"metadata":{"w":3,`)
	code, out, errOut = runCLI(t, weighted, "agree", "--score", "meta.judge_score", "--label", "relevant", "--estimate", "--weight", "meta.w", "-")
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, out, "| meta.judge_score | relevant | all | 20 | 40 | 0.663 [0.538, 0.789] (weighted by meta.w) | 0.650 [0.437, 0.863] | 0.633 | 1.000 | 57.3 |")
	code, _, errOut = runCLI(t, data, "agree", "--score", "meta.judge_score", "--label", "relevant", "--estimate", "--weight", "meta.w", "-")
	assert.Equal(t, exitInput, code)
	assert.Contains(t, errOut, "<stdin>:1: record r0 is labelled but has no weight at meta.w")

	few := strings.Join(slices.Collect(func(yield func(string) bool) {
		for l := range strings.Lines(data) {
			if !strings.Contains(l, "human") || strings.Contains(l, `"r1"`) || strings.Contains(l, `"r2"`) {
				if !yield(l) {
					return
				}
			}
		}
	}), "")
	code, _, errOut = runCLI(t, few, "agree", "--score", "meta.judge_score", "--label", "relevant", "--estimate", "-")
	assert.Equal(t, exitInput, code)
	assert.Contains(t, errOut, "--estimate needs at least 10 labelled records with a judge value, got 2")
}
