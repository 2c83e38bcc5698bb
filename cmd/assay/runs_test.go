package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/report"
	runpkg "github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

// runsFixture is a run store in a temporary $ASSAY_DATA_DIR with three
// runs recorded by Store.Record, their folders written as assay bench
// writes them.
type runsFixture struct {
	env       func(string) string
	root      string
	data      string // the dataset file of runs a and b
	sha       string
	dirA      string
	dirB      string
	dataOther string
}

const (
	runA = "20261101-0900-aaaa"
	runB = "20261103-0900-bbbb"
	runC = "20261104-0900-cccc"
)

func newRunsFixture(t *testing.T) runsFixture {
	t.Helper()
	root := t.TempDir()
	f := runsFixture{root: root, data: filepath.Join(root, "rag.jsonl"), dataOther: filepath.Join(root, "other.jsonl")}
	env := map[string]string{"ASSAY_DATA_DIR": filepath.Join(root, "data")}
	f.env = func(k string) string { return env[k] }
	require.NoError(t, os.WriteFile(f.data, []byte(`{"id":"q1"}`+"\n"), 0o644))
	sum := sha256.Sum256([]byte(`{"id":"q1"}` + "\n"))
	f.sha = hex.EncodeToString(sum[:])

	path, err := runstore.DefaultStorePath(f.env)
	require.NoError(t, err)
	st, err := runstore.OpenStore(path)
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()

	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	base := []float64{0.9, 0.8, 0.8, 0.7, 0.9, 0.8, 0.7}
	cur := []float64{0.5, 0.7, 0.4, 0.7, 0.6, 0.3, 0.6}
	record := func(id string, day int, dataset, sha string, vs []float64, edit func(*runpkg.Summary)) string {
		cfg := runpkg.Config{RunID: id, Started: t0.AddDate(0, 0, day), Dataset: dataset, DatasetSHA256: sha, Metrics: []string{"faithfulness"}, Model: "offline"}
		var results []runpkg.Result
		total := 0.0
		for i, v := range vs {
			results = append(results, runpkg.Result{ID: fmt.Sprintf("q%d", i+1), Metric: "faithfulness", Value: v,
				Usage: eval.Usage{Latency: time.Duration(100*(day+1)) * time.Millisecond}})
			total += v
		}
		mean := runpkg.Num(total / float64(len(vs)))
		s := runpkg.Summary{RunID: id, Started: cfg.Started, Finished: cfg.Started.Add(time.Minute), Samples: len(vs), Complete: true,
			Metrics: []runpkg.MetricStats{{Metric: "faithfulness", N: len(vs), Scored: len(vs), Mean: mean, Std: 0.1, Median: mean, Min: 0.3, Max: 0.9, P10: 0.3, CILow: 0.5, CIHigh: 0.8, PassRate: 0.5, Threshold: 0.7}}}
		if edit != nil {
			edit(&s)
		}
		dir := filepath.Join(root, "assay-runs", id)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		writeJSONFile(t, filepath.Join(dir, runpkg.FileConfig), cfg)
		writeJSONFile(t, filepath.Join(dir, runpkg.FileSummary), s)
		var lines bytes.Buffer
		for _, r := range results {
			b, err := json.Marshal(r)
			require.NoError(t, err)
			lines.Write(append(b, '\n'))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, runpkg.FileResults), lines.Bytes(), 0o644))
		require.NoError(t, st.Record(cfg, s, dir))
		return dir
	}
	f.dirA = record(runA, 0, f.data, f.sha, base, nil)
	f.dirB = record(runB, 2, f.data, f.sha, cur, func(s *runpkg.Summary) {
		s.Gates = []runpkg.GateResult{{Gate: "faithfulness.mean>=0.65", Metric: "faithfulness", Stat: "mean", Op: ">=", Want: 0.65, Got: s.Metrics[0].Mean, Reason: "faithfulness.mean is 0.542857, want >= 0.65"}}
	})
	record(runC, 3, f.dataOther, strings.Repeat("c", 64), []float64{0.2}, func(s *runpkg.Summary) { s.Complete = false })
	return f
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

func (f runsFixture) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, f.env, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunsCommands(t *testing.T) {
	t.Parallel()
	f := newRunsFixture(t)
	tests := map[string]struct {
		args []string
		code int
		// out lists what stdout must hold, in order; errOut what stderr
		// must hold.
		out    []string
		errOut string
	}{
		"list": {args: []string{"runs", "list"}, out: []string{
			"ID                  STARTED           DATASET                 METRICS       MEANS   STATUS",
			runA + "  2026-11-01 09:00  rag.jsonl ({SHA8})    faithfulness  0.8000  ok",
			runB + "  2026-11-03 09:00  rag.jsonl ({SHA8})    faithfulness  0.5429  gate failed",
			runC + "  2026-11-04 09:00  other.jsonl (cccccccc)  faithfulness  0.2000  incomplete",
		}},
		"show, a table": {args: []string{"runs", "show", runB}, out: []string{
			"run       " + runB, "dataset   " + "{DATA}" + " (sha256 {SHAFULL})", "status    gate failed",
			"METRIC        N  SCORED  DEFAULTED  ERRORS  MEAN    STD     MEDIAN  MIN     MAX     P10     CI95            PASS RATE  THRESHOLD",
			"faithfulness  7  7       0 (0.0%)   0       0.5429  0.1000  0.5429  0.3000  0.9000  0.3000  0.5000..0.8000  0.5000     0.7",
			"gates:", "FAIL  faithfulness.mean>=0.65 (got 0.5429): faithfulness.mean is 0.542857, want >= 0.65",
		}},
		"show by a unique prefix": {args: []string{"runs", "show", "20261101"}, out: []string{"run       " + runA, "status    ok"}},
		"show a run folder":       {args: []string{"runs", "show", "{DIRA}"}, out: []string{"run       " + runA, "folder    {DIRA}"}},
		"show an unknown run": {args: []string{"runs", "show", "nope"}, code: 2,
			errOut: `assay: no run "nope" in the run store ` + "{STORE}" + `: see assay runs list (nor is nope a run folder)`},
		"show an ambiguous prefix": {args: []string{"runs", "show", "2026"}, code: 2,
			errOut: `assay: run "2026" is ambiguous: it begins ` + runA + ", " + runB + ", " + runC},
		"show, a bad format": {args: []string{"runs", "show", "--format", "jsonl", runA}, code: 2, errOut: `--format: must be text, md, json or yaml, got "jsonl"`},
		"diff two runs by id: an alert exits 1": {args: []string{"runs", "diff", runA, runB}, code: 1, out: []string{
			"A (baseline, control):  " + runA, "B (current, treatment): " + runB,
			"METRIC        A MEAN  B MEAN  DELTA    PAIRED  P       TEST",
			"faithfulness  0.8000  0.5429  -0.2571  7       0.0312  wilcoxon signed-rank (exact)",
			"paired (samples both runs scored):",
			"METRIC        PAIRED  MEAN DIFF  CI95              NOW FAILING  NOW PASSING  MCNEMAR P  MID-P",
			// Five flips, all one way: McNemar 2/32, mid-p 1/32.
			"faithfulness  7       -0.2571    -0.3857..-0.1286  5            0            0.0625     0.0312",
			"A/B analysis (seed 002; control A, treatment B):",
			"faithfulness  7          7            0.8000        0.5429          -32.1%       100ms      300ms      +200.0%         not significant          significant (p=0.0312)",
			"faithfulness, now failing (passed in A) (5):", "  q6  0.8000 -> 0.3000 (-0.5000)\n  q1  0.9000 -> 0.5000 (-0.4000)",
			"moved most, faithfulness:", "  q6  0.8000 -> 0.3000 (-0.5000)",
			"alerts:", "  warning degradation faithfulness: faithfulness degraded from baseline (0.5429, threshold 0.6800)",
		}},
		"diff two run folders, no alert": {args: []string{"runs", "diff", "{DIRB}", "{DIRA}"}, out: []string{
			"faithfulness  0.5429  0.8000  +0.2571  7       0.0312  wilcoxon signed-rank (exact)",
		}},
		"diff runs of different datasets: on the samples both have": {args: []string{"runs", "diff", runA, runC}, code: 1, out: []string{
			"note: the runs judged different datasets (rag.jsonl ({SHA8}), other.jsonl (cccccccc)): only the samples with the same id are paired",
			"note: compared on the 1 sample both runs have; A has 6 that B lacks, B has 0 that A lacks",
			"faithfulness  0.9000  0.2000  -0.7000  1       1.0000  wilcoxon signed-rank (exact)",
		}},
		"diff an unknown run": {args: []string{"runs", "diff", runA, "zzz"}, code: 2, errOut: `no run "zzz" in the run store`},
		"trend of a dataset by its file": {args: []string{"runs", "trend", "faithfulness", "--dataset", "{DATA}"}, out: []string{
			"STARTED           RUN                 FAITHFULNESS MEAN  SCORED  CHANGE",
			"2026-11-01 09:00  " + runA + "  0.8000             7/7              ################",
			"2026-11-03 09:00  " + runB + "  0.5429             7/7     -0.2571  ###########",
		}},
		"trend of a dataset by its hash": {args: []string{"runs", "trend", "faithfulness", "--dataset", strings.Repeat("c", 64)}, out: []string{
			runC + "  0.2000",
		}},
		"trend without a dataset: the last run's": {args: []string{"runs", "trend", "faithfulness"}, out: []string{runC + "  0.2000"}},
		"trend of a metric never judged":          {args: []string{"runs", "trend", "answer_relevancy"}, code: 2, errOut: "no recorded run judged answer_relevancy"},
		"trend of a dataset not a file nor a hash": {args: []string{"runs", "trend", "faithfulness", "--dataset", "missing.jsonl"}, code: 2,
			errOut: "--dataset missing.jsonl: neither a file nor a sha256 (64 hex digits)"},
	}
	store, err := runstore.DefaultStorePath(f.env)
	require.NoError(t, err)
	expand := func(s string) string {
		return strings.NewReplacer("{SHAFULL}", f.sha, "{SHA8}", f.sha[:8], "{DIRA}", f.dirA, "{DIRB}", f.dirB, "{DATA}", f.data, "{STORE}", store).Replace(s)
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = expand(a)
			}
			code, out, errOut := f.run(t, args...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			rest := out
			for _, want := range tc.out {
				want = expand(want)
				i := strings.Index(rest, want)
				if !assert.GreaterOrEqual(t, i, 0, "want %q after what came before in\n%s", want, out) {
					break
				}
				rest = rest[i+len(want):]
			}
			if tc.errOut != "" {
				assert.Contains(t, errOut, expand(tc.errOut))
			} else {
				assert.Empty(t, errOut)
			}
		})
	}
}

func TestRunsJSON(t *testing.T) {
	t.Parallel()
	f := newRunsFixture(t)

	code, out, errOut := f.run(t, "runs", "show", "--format", "json", runB)
	require.Equal(t, 0, code, errOut)
	var s runpkg.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	want, err := os.ReadFile(filepath.Join(f.dirB, runpkg.FileSummary))
	require.NoError(t, err)
	assert.JSONEq(t, string(want), out, "show --format json is summary.json")

	code, out, errOut = f.run(t, "runs", "diff", "--format", "json", runA, runB)
	require.Equal(t, 1, code, errOut)
	var d struct {
		Baseline, Current string
		Comparison        runpkg.Comparison
		Alerts            []runpkg.QualityAlert
		AB                []struct {
			Metric   string
			Analysis struct {
				ControlSampleSize, TreatmentSampleSize int
				QualityImprovement, LatencyChange      float64
				IsSignificant                          bool
			}
			Test string
			P    float64 `json:"p_value"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d), out)
	assert.Equal(t, runA, d.Baseline)
	assert.Equal(t, runB, d.Current)
	require.Len(t, d.Comparison.Metrics, 1)
	assert.Equal(t, 7, d.Comparison.Metrics[0].Paired)
	require.Len(t, d.Alerts, 1)
	assert.Equal(t, "degradation", d.Alerts[0].Type)
	assert.Equal(t, "warning", d.Alerts[0].Severity)
	require.Len(t, d.AB, 1)
	ab := d.AB[0]
	assert.Equal(t, 7, ab.Analysis.ControlSampleSize)
	assert.Equal(t, 7, ab.Analysis.TreatmentSampleSize)
	assert.InDelta(t, (3.8/7-0.8)/0.8, ab.Analysis.QualityImprovement, 1e-9)
	assert.InDelta(t, 2.0, ab.Analysis.LatencyChange, 1e-9)
	assert.False(t, ab.Analysis.IsSignificant, "seed 002's rule wants 100 a side")
	assert.InDelta(t, 2.0/64, ab.P, 1e-9, "the paired test does find it")
}

func TestRunsListEmpty(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"runs", "list"}, func(k string) string {
		if k == "ASSAY_DATA_DIR" {
			return dir
		}
		return ""
	}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 0, code, errb.String())
	assert.Equal(t, "no runs recorded yet in "+filepath.Join(dir, "runs.db")+": assay bench records one\n", out.String())
}

// TestRunsListNamesBesideTheirMeans: a run recorded with its summary's
// metrics in the order its judges finished (as runs were recorded before
// the summary kept the config's order) is listed and shown in the order
// the metrics were given, each name beside its own mean.
func TestRunsListNamesBesideTheirMeans(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	env := map[string]string{"ASSAY_DATA_DIR": filepath.Join(root, "data")}
	path, err := runstore.DefaultStorePath(func(k string) string { return env[k] })
	require.NoError(t, err)
	st, err := runstore.OpenStore(path)
	require.NoError(t, err)
	started := time.Date(2026, 11, 27, 4, 32, 55, 0, time.UTC)
	cfg := runpkg.Config{RunID: "20261127T043255Z-7c8d", Started: started, Dataset: "labelled.jsonl", DatasetSHA256: strings.Repeat("17", 32),
		Metrics: []string{"faithfulness", "answer_relevancy", "context_precision"}, Model: "llm:openai:fake"}
	s := runpkg.Summary{RunID: cfg.RunID, Started: started, Finished: started.Add(time.Second), Samples: 6, Complete: true,
		Usage: eval.Usage{Calls: 27, TokensIn: 6353, TokensOut: 624}}
	for _, m := range []struct {
		name string
		mean float64
	}{{"context_precision", 1}, {"faithfulness", 0.5}, {"answer_relevancy", 0.75}} {
		s.Metrics = append(s.Metrics, runpkg.MetricStats{Metric: m.name, N: 6, Scored: 6, Mean: runpkg.Num(m.mean), Threshold: 0.5})
	}
	dir := filepath.Join(root, "run")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	writeJSONFile(t, filepath.Join(dir, runpkg.FileConfig), cfg)
	writeJSONFile(t, filepath.Join(dir, runpkg.FileSummary), s)
	require.NoError(t, st.Record(cfg, s, dir))
	require.NoError(t, st.Close())

	code, out, errOut := runEnv(t, env, "runs", "list")
	require.Equal(t, exitPass, code, errOut)
	assert.Contains(t, out, "faithfulness,answer_relevancy,context_precision  0.5000,0.7500,1.0000  ok")
	for _, ref := range []string{cfg.RunID, dir} {
		code, out, errOut = runEnv(t, env, "runs", "show", ref)
		require.Equal(t, exitPass, code, errOut)
		assert.Regexp(t, `(?s)\nfaithfulness +6 +6 +0 \(0\.0%\) +0 +0\.5000 .*\nanswer_relevancy +6 +6 +0 \(0\.0%\) +0 +0\.7500 .*\ncontext_precision +6 +6 +0 \(0\.0%\) +0 +1\.0000 `, out, ref)
		assert.Contains(t, out, "(27 calls, 6353 tokens in, 624 out)", ref)
	}
}

// TestRunsFormats: every runs subcommand takes the one set of formats
// where it fits: text (the default) and md render the same tables, json
// and yaml carry the same data under the same keys, and jsonl, a record a
// line, is for the lists (list, trend) alone.
func TestRunsFormats(t *testing.T) {
	t.Parallel()
	f := newRunsFixture(t)
	tests := map[string]struct {
		args []string
		code int
		// mdRow is a row of its Markdown; records the path of the list
		// that jsonl writes a line a record, "" when it is one document.
		mdRow   string
		records string
		n       int
	}{
		"list": {args: []string{"runs", "list"}, records: ".", n: 3,
			mdRow: "| " + runA + " | 2026-11-01 09:00 | rag.jsonl ({SHA8}) | faithfulness | 0.8000 | ok |"},
		"show": {args: []string{"runs", "show", runB},
			mdRow: "| faithfulness | 7 | 7 | 0 (0.0%) | 0 | 0.5429 | 0.1000 | 0.5429 | 0.3000 | 0.9000 | 0.3000 | 0.5000..0.8000 | 0.5000 | 0.7 |"},
		"diff": {args: []string{"runs", "diff", runA, runB}, code: exitFailed,
			mdRow: "| faithfulness | 0.8000 | 0.5429 | -0.2571 (-0.3857, -0.1286) | 0.0312 | 5 | 0 | 0.0625 |"},
		"trend": {args: []string{"runs", "trend", "faithfulness", "--dataset", "{DATA}"}, records: "points", n: 2,
			mdRow: "| 2026-11-03 09:00 | " + runB + " | 0.5429 | 7/7 | -0.2571 | ########### |"},
	}
	expand := strings.NewReplacer("{SHA8}", f.sha[:8], "{DATA}", f.data).Replace
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for i := range tc.args {
				tc.args[i] = expand(tc.args[i])
			}
			out := map[string]string{}
			for _, format := range report.OutputFormats() {
				code, stdout, stderr := f.run(t, append(tc.args, "--format", format)...)
				if format == report.OutputJSONL && tc.records == "" {
					assert.Equal(t, exitInput, code, stderr)
					assert.Empty(t, stdout)
					assert.Equal(t, `assay: --format: must be text, md, json or yaml, got "jsonl"`+"\n", stderr)
					continue
				}
				require.Equal(t, tc.code, code, "%s: %s", format, stderr)
				assert.Empty(t, stderr, format)
				out[format] = stdout
			}
			_, text, _ := f.run(t, tc.args...)
			assert.Equal(t, text, out[report.OutputText], "text is the default")
			assert.Contains(t, out[report.OutputMD], expand(tc.mdRow)+"\n")
			assert.NotEqual(t, out[report.OutputText], out[report.OutputMD])

			var fromJSON, fromYAML any
			require.NoError(t, json.Unmarshal([]byte(out[report.OutputJSON]), &fromJSON))
			require.NoError(t, yaml.Unmarshal([]byte(out[report.OutputYAML]), &fromYAML))
			b, err := json.Marshal(fromYAML) // YAML's integers and JSON's numbers alike
			require.NoError(t, err)
			var yamlAsJSON any
			require.NoError(t, json.Unmarshal(b, &yamlAsJSON))
			assert.Equal(t, fromJSON, yamlAsJSON, "yaml carries json's keys and values")

			if tc.records == "" {
				return
			}
			list := fromJSON
			if tc.records != "." {
				list = fromJSON.(map[string]any)[tc.records]
			}
			lines := strings.SplitAfter(out[report.OutputJSONL], "\n")
			require.Equal(t, "", lines[len(lines)-1], "whole lines")
			lines = lines[:len(lines)-1]
			require.Len(t, lines, tc.n)
			require.Len(t, list, tc.n)
			for i, line := range lines {
				var rec any
				require.NoError(t, json.Unmarshal([]byte(line), &rec))
				assert.Equal(t, list.([]any)[i], rec, "line %d is the json's record %d", i+1, i+1)
			}
		})
	}
}

// TestRunsExport: runs export writes a row per sample and metric to
// standard output or, whole, to -o FILE; says on stderr when the run's
// dataset no longer reads; and a bad format or an -o in no folder exits 2.
func TestRunsExport(t *testing.T) {
	t.Parallel()
	f := newRunsFixture(t)
	out := filepath.Join(t.TempDir(), "a.parquet")
	tests := map[string]struct {
		args    []string
		code    int
		out     []string
		errOut  string
		parquet int64
	}{
		"csv to standard output": {args: []string{"runs", "export", runA}, out: []string{
			"id,question,answer,contexts,reference,metric,value,points,max,pass,defaulted,skipped,error,reason,model,latency_ms,cost_usd\n",
			"q1,,,,,faithfulness,0.9,0,0,true,false,false,,,,100,0\n", "q7,,,,,faithfulness,0.7,0,0,true,false,false,,,,100,0\n"}},
		"a dataset that no longer reads": {args: []string{"runs", "export", "--format", "jsonl", runC}, out: []string{`{"id":"q1","question":null,`},
			errOut: "assay: the run's dataset " + f.dataOther + " does not read"},
		"parquet to a file": {args: []string{"runs", "export", "--format", "parquet", "-o", out, runA}, parquet: 7,
			errOut: "assay: 7 row(s) of run " + runA + " in " + out},
		"an unknown format":  {args: []string{"runs", "export", "--format", "xml", runA}, code: exitInput, errOut: `--format: must be csv, jsonl or parquet, got "xml"`},
		"an -o in no folder": {args: []string{"runs", "export", "-o", filepath.Join(f.root, "nope", "x.csv"), runA}, code: exitInput, errOut: "-o: "},
		"an unknown run":     {args: []string{"runs", "export", "zzz"}, code: exitInput, errOut: `no run "zzz" in the run store`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := f.run(t, tc.args...)
			require.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			for _, want := range tc.out {
				assert.Contains(t, stdout, want)
			}
			if tc.errOut != "" {
				assert.Contains(t, stderr, tc.errOut)
			}
			if tc.parquet > 0 {
				pf, err := os.Open(out)
				require.NoError(t, err)
				defer func() { assert.NoError(t, pf.Close()) }()
				st, err := pf.Stat()
				require.NoError(t, err)
				file, err := parquet.OpenFile(pf, st.Size())
				require.NoError(t, err)
				assert.Equal(t, tc.parquet, file.NumRows())
			}
		})
	}
}

// TestRunsExportDatasetFromElsewhere: a run of a dataset named by a path
// relative to where bench ran is exported with its samples' fields from
// another working directory: the run records where the dataset is.
func TestRunsExportDatasetFromElsewhere(t *testing.T) {
	const data = `{"id":"s1","question":"Who wrote Frankenstein?","answer":"Mary Shelley wrote it.","contexts":["Frankenstein is a novel by Mary Shelley."]}` + "\n"
	tests := map[string]struct {
		arg func(benchDir string) string // the dataset as bench is given it
	}{
		"relative path":      {arg: func(string) string { return "data.jsonl" }},
		"relative with dots": {arg: func(string) string { return "./sub/../data.jsonl" }},
		"absolute path":      {arg: func(d string) string { return filepath.Join(d, "data.jsonl") }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			benchDir, elsewhere, runDir := filepath.Join(root, "bench"), filepath.Join(root, "elsewhere"), filepath.Join(root, "run")
			require.NoError(t, os.MkdirAll(filepath.Join(benchDir, "sub"), 0o755))
			require.NoError(t, os.MkdirAll(elsewhere, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(benchDir, "data.jsonl"), []byte(data), 0o644))
			env := map[string]string{"ASSAY_DATA_DIR": filepath.Join(root, "store")}
			f := runsFixture{env: func(k string) string { return env[k] }}

			t.Chdir(benchDir)
			code, _, errOut := f.run(t, "bench", "-q", "--llm", "offline", "--metric", "faithfulness", "--out", runDir, tc.arg(benchDir))
			require.Equal(t, exitPass, code, errOut)

			t.Chdir(elsewhere)
			code, out, errOut := f.run(t, "runs", "export", runDir, "--format", "jsonl")
			require.Equal(t, exitPass, code, errOut)
			assert.Empty(t, errOut, "no note: the dataset reads")
			var row map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &row))
			assert.Equal(t, "Who wrote Frankenstein?", row["question"])
			assert.Equal(t, []any{"Frankenstein is a novel by Mary Shelley."}, row["contexts"])
		})
	}
}
