package runstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/runtest"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

// judgeRuns records five runs of one dataset, each of faithfulness with
// results in its folder: j1 and j2 judged offline with prompt versions 1,
// j3 by gpt-4o, j4 by gpt-4o with the claims prompt at version 2, j5 as
// j4. It returns the store's file.
func judgeRuns(t *testing.T) (store, root string) {
	t.Helper()
	root = t.TempDir()
	store = filepath.Join(root, "data", "runs.db")
	st, err := runstore.OpenStore(store)
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	v1 := map[string]string{"faithfulness.claims": "1", "faithfulness.verify": "1"}
	v2 := map[string]string{"faithfulness.claims": "2", "faithfulness.verify": "1"}
	for i, r := range []struct {
		id, model string
		prompts   map[string]string
		vs        []float64
	}{
		{"j1", "offline", v1, []float64{0.8, 0.7, 0.9}},
		{"j2", "offline", v1, []float64{0.8, 0.6, 0.9}},
		{"j3", "llm:openai:gpt-4o", v1, []float64{0.9, 0.8, 0.9}},
		{"j4", "llm:openai:gpt-4o", v2, []float64{0.7, 0.8, 0.9}},
		{"j5", "llm:openai:gpt-4o", v2, []float64{0.7, 0.8, 0.8}},
	} {
		cfg, s := storedRun(r.id, t0.AddDate(0, 0, i), "aaa", map[string]float64{"faithfulness": float64(runtest.Mean(r.vs...))}, "faithfulness")
		cfg.Model, cfg.Prompts = r.model, r.prompts
		dir := runtest.WriteFolder(t, filepath.Join(root, r.id), cfg, &s, runtest.Values("faithfulness", r.vs...))
		require.NoError(t, st.Record(cfg, s, dir))
	}
	return store, root
}

func TestRunsTrendSaysWhenTheJudgeChanged(t *testing.T) {
	t.Parallel()
	store, _ := judgeRuns(t)
	tr, err := runstore.Runs{Store: store}.Trend(context.Background(), "faithfulness", "")
	require.NoError(t, err)

	tests := map[string]struct {
		run    string
		model  string
		judged []string
	}{
		"the first point compares with nothing": {run: "j1", model: "offline"},
		"judged alike":                          {run: "j2", model: "offline"},
		"another model": {run: "j3", model: "llm:openai:gpt-4o",
			judged: []string{`model "offline", now "llm:openai:gpt-4o"`}},
		"another prompt version": {run: "j4", model: "llm:openai:gpt-4o",
			judged: []string{"prompt faithfulness.claims version 1, now 2"}},
		"alike again, after a change": {run: "j5", model: "llm:openai:gpt-4o"},
	}
	require.Len(t, tr.Points, len(tests))
	var text bytes.Buffer
	require.NoError(t, tr.Write(&text, report.OutputText))
	var doc struct {
		Points []struct {
			RunID  string   `json:"run_id"`
			Model  string   `json:"model"`
			Judged []string `json:"judged_otherwise"`
		} `json:"points"`
	}
	var js bytes.Buffer
	require.NoError(t, tr.Write(&js, report.OutputJSON))
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var p runstore.TrendPoint
			i := 0
			for i, p = range tr.Points {
				if p.RunID == tc.run {
					break
				}
			}
			require.Equal(t, tc.run, p.RunID)
			assert.Equal(t, tc.model, p.Model)
			assert.Equal(t, tc.judged, p.Judged)
			assert.Equal(t, tc.judged, doc.Points[i].Judged, "JSON")

			mark := ""
			if tc.judged != nil {
				mark = " *"
			}
			assert.Regexp(t, "\n2026-11-0[1-5] 09:00  "+regexp.QuoteMeta(tc.run+mark)+" +0\\.", text.String(), "its row, marked when judged otherwise")
			note := "\n  " + tc.run + ": "
			if tc.judged == nil {
				assert.NotContains(t, text.String(), note)
			} else {
				assert.Contains(t, text.String(), note+strings.Join(tc.judged, "; ")+"\n")
			}
		})
	}
	assert.Contains(t, text.String(), "\n\n* judged otherwise than the run before it, so its change measures the judge as well:\n  j3: ")
}

func TestRunsTrendOfOneJudgeHasNoNote(t *testing.T) {
	t.Parallel()
	store, _ := judgeRuns(t)
	// j1 and j2 alone: one judge, nothing marked, the table alone.
	tr, err := runstore.Runs{Store: store}.Trend(context.Background(), "faithfulness", "")
	require.NoError(t, err)
	tr.Points = tr.Points[:2]
	var text bytes.Buffer
	require.NoError(t, tr.Write(&text, report.OutputText))
	assert.Equal(t, "STARTED           RUN  FAITHFULNESS MEAN  SCORED  CHANGE   MEAN (# = 0.05)\n"+
		"2026-11-01 09:00  j1   0.8000             3/3              ################\n"+
		"2026-11-02 09:00  j2   0.7667             3/3     -0.0333  ###############\n", text.String())
}

func TestRunsDiffSaysWhenTheJudgeChanged(t *testing.T) {
	t.Parallel()
	store, root := judgeRuns(t)
	const note = "note: B was judged otherwise than A ("
	tests := map[string]struct {
		a, b   string
		judged []string
	}{
		"judged alike":   {a: "j1", b: "j2"},
		"another model":  {a: "j2", b: "j3", judged: []string{`model "offline", now "llm:openai:gpt-4o"`}},
		"another prompt": {a: "j3", b: "j4", judged: []string{"prompt faithfulness.claims version 1, now 2"}},
		"both, by folder": {a: filepath.Join(root, "j1"), b: filepath.Join(root, "j5"),
			judged: []string{`model "offline", now "llm:openai:gpt-4o"`, "prompt faithfulness.claims version 1, now 2"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := runstore.Runs{Store: store}.Diff(context.Background(), tc.a, tc.b)
			require.NoError(t, err)
			assert.Equal(t, tc.judged, d.Comparison.Judged)

			var text bytes.Buffer
			require.NoError(t, d.Write(&text, report.OutputText))
			if tc.judged == nil {
				assert.NotContains(t, text.String(), note)
			} else {
				assert.Contains(t, text.String(), "\n"+note+strings.Join(tc.judged, "; ")+"): the changes measure the judge as well as the system\n\nMETRIC ")
			}

			var js bytes.Buffer
			require.NoError(t, d.Write(&js, report.OutputJSON))
			var doc struct {
				Comparison struct {
					Judged []string `json:"judged_otherwise"`
				} `json:"comparison"`
			}
			require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
			assert.Equal(t, tc.judged, doc.Comparison.Judged)
		})
	}
}

func TestRunsErrors(t *testing.T) {
	t.Parallel()
	store, root := judgeRuns(t)
	unfinished := runtest.WriteFolder(t, filepath.Join(root, "unfinished"), run.Config{RunID: "u"}, nil, nil)
	runs := runstore.Runs{Store: store}
	ctx := context.Background()
	tests := map[string]struct {
		call  func() error
		input bool
		want  string
	}{
		"an unknown run": {call: func() error { _, err := runs.Show(ctx, "nope"); return err }, input: true,
			want: `no run "nope" in the run store ` + store + `: see assay runs list (nor is nope a run folder)`},
		"an ambiguous prefix": {call: func() error { _, err := runs.Diff(ctx, "j", "j1"); return err }, input: true,
			want: `run "j" is ambiguous: it begins j1, j2, j3, j4, j5; give more of the id (nor is j a run folder)`},
		"a folder without its summary": {call: func() error { _, err := runs.Show(ctx, unfinished); return err }, input: true,
			want: "run folder " + unfinished + " has no summary.json: the run never finished; resume it with assay bench --resume --out " + unfinished},
		"a metric never judged": {call: func() error { _, err := runs.Trend(ctx, "answer_relevancy", ""); return err }, input: true,
			want: "no recorded run judged answer_relevancy (run store " + store + "): see assay runs list"},
		"a dataset no run judged": {call: func() error { _, err := runs.Trend(ctx, "faithfulness", strings.Repeat("Ab", 32)); return err }, input: true,
			want: "no recorded run of dataset " + strings.Repeat("ab", 32) + " judged faithfulness: see assay runs list"},
		"a dataset neither a file nor a hash": {call: func() error { _, err := runs.Trend(ctx, "faithfulness", "nosuch.jsonl"); return err }, input: true,
			want: "--dataset nosuch.jsonl: neither a file nor a sha256 (64 hex digits)"},
		"a run typed with control characters": {call: func() error { _, err := runs.Show(ctx, "x\x1b[2J\u202e"); return err }, input: true,
			want: `no run "x\x1b[2J\u202e" in the run store ` + store + `: see assay runs list (nor is x\x1b[2J\u202e a run folder)`},
		"a baseline typed with control characters": {call: func() error { _, err := runs.Diff(ctx, "\x07j", "j1"); return err }, input: true,
			want: `(nor is \aj a run folder)`},
		"a metric typed with control characters": {call: func() error { _, err := runs.Trend(ctx, "f\x1b]0;t\x07", ""); return err }, input: true,
			want: `no recorded run judged f\x1b]0;t\a (run store `},
		"a dataset typed with control characters": {call: func() error { _, err := runs.Trend(ctx, "faithfulness", "d\r\x1b[1A"); return err }, input: true,
			want: `--dataset d\r\x1b[1A: neither a file nor a sha256`},
		"a store that does not open is not the caller's": {call: func() error {
			_, err := runstore.Runs{Store: filepath.Join(root, "j1", run.FileConfig, "runs.db")}.List(ctx)
			return err
		}, want: "run store " + filepath.Join(root, "j1", run.FileConfig, "runs.db")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tc.call()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, termtext.Visible(err.Error()), err.Error(), "no control character raw")
			_, isInput := errors.AsType[*eval.InputError](err)
			assert.Equal(t, tc.input, isInput, "an input error: %v", err)
		})
	}
}

// runs diff says when two runs were served by different model builds
// (system_fingerprint), and only when both name theirs.
func TestRunsDiffSaysWhenTheFingerprintsDiffer(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	folder := func(id, prints string) string {
		cfg, s := storedRun(id, t0, "aaa", map[string]float64{"faithfulness": 0.8}, "faithfulness")
		s.Usage.Fingerprints = prints
		res := runtest.Values("faithfulness", 0.8, 0.7, 0.9)
		for i := range res {
			res[i].Usage.Fingerprints = prints
		}
		return runtest.WriteFolder(t, filepath.Join(root, id), cfg, &s, res)
	}
	const note = "note: the runs were served by different model builds"
	tests := map[string]struct {
		a, b string
		want *runstore.FingerprintChange
	}{
		"the same build":        {a: "fp_1", b: "fp_1"},
		"another build":         {a: "fp_1", b: "fp_2", want: &runstore.FingerprintChange{Baseline: "fp_1", Current: "fp_2"}},
		"a build more":          {a: "fp_1", b: "fp_1 fp_2", want: &runstore.FingerprintChange{Baseline: "fp_1", Current: "fp_1 fp_2"}},
		"a run that names none": {a: "", b: "fp_2"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			id := strings.ReplaceAll(name, " ", "-")
			a, b := folder(id+"-a", tc.a), folder(id+"-b", tc.b)
			d, err := runstore.Runs{Store: filepath.Join(root, id+".db")}.Diff(context.Background(), a, b)
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.Fingerprints)

			var text bytes.Buffer
			require.NoError(t, d.Write(&text, report.OutputText))
			if tc.want == nil {
				assert.NotContains(t, text.String(), note)
			} else {
				assert.Contains(t, text.String(), "\n"+note+" (system_fingerprint A: "+tc.a+"; B: "+tc.b+"): the changes measure the model's build as well\n")
			}
		})
	}
}
