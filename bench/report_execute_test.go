package bench_test

import (
	"github.com/assaylabs/assay/run"

	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/runstore"
)

// TestExecuteReportShowsTheSamples runs bench twice, offline, as a user
// does: a first run, then a second over answers changed since, against
// the first as its baseline, from standard input. The second run's
// report.html holds each sample's question, answer and contexts (read
// again from the copy of standard input in the run folder), its value in
// both runs, and marks the samples that flipped; the terminal says how
// many flipped.
func TestExecuteReportShowsTheSamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const first = `{"id": "w1", "question": "At what temperature does water boil at sea level?", "answer": "Water boils at 100 degrees Celsius at sea level.", "contexts": ["At sea level, pure water boils at 100 degrees Celsius."]}
{"id": "w2", "question": "น้ำเดือดที่อุณหภูมิเท่าไรที่ระดับน้ำทะเล", "answer": "Water boils at 90 degrees Celsius at sea level.", "contexts": ["At sea level, pure water boils at 100 degrees Celsius."]}
{"id": "w3", "question": "Who wrote Frankenstein?", "answer": "Mary Shelley wrote Frankenstein.", "contexts": ["Frankenstein is an 1818 novel written by Mary Shelley."], "reference": "Mary Shelley"}
`
	// w1 now says 80 (unsupported: it fails), w2 now says 100 (it
	// passes); w3 is unchanged.
	second := strings.NewReplacer("boils at 100 degrees Celsius at sea level.", "boils at 80 degrees Celsius at sea level.",
		"boils at 90 degrees Celsius", "boils at 100 degrees Celsius").Replace(first)
	data := filepath.Join(dir, "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(first), 0o644))
	benchRun := func(out, data, baseline string) *bench.Outcome {
		j := judging.Default()
		j.LLM.Spec = "offline"
		job := bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, out), Baseline: baseline,
			Store: filepath.Join(dir, "runs.db"), Judging: j}
		if data == "-" {
			job.Stdin = strings.NewReader(second)
		}
		o, err := bench.Execute(context.Background(), job)
		require.NoError(t, err)
		return o
	}
	benchRun("run1", data, "")
	o := benchRun("run2", "-", filepath.Join(dir, "run1"))

	var log strings.Builder
	require.NoError(t, o.Write(&strings.Builder{}, &log))
	assert.Contains(t, log.String(), "1 now failing, 1 now passing")
	b, err := os.ReadFile(filepath.Join(dir, "run2", run.FileReport))
	require.NoError(t, err)
	page := string(b)
	for _, want := range []string{
		`<td class="q">น้ำเดือดที่อุณหภูมิเท่าไรที่ระดับน้ำทะเล</td>`,
		`<h4>Answer</h4><div class="full">Water boils at 80 degrees Celsius at sea level.</div>`,
		`<div class="full">At sea level, pure water boils at 100 degrees Celsius.</div>`,
		`<h4>Reference</h4><div class="full">Mary Shelley</div>`,
		`data-flip="fails">0.000 <span class="flip f-fails"`,
		`data-flip="passes">1.000 <span class="flip f-passes"`,
		`<span class="was" title="in the baseline">1.000</span>`,
		"<td>faithfulness</td>",
	} {
		assert.Contains(t, page, want)
	}
	assert.Equal(t, 3, strings.Count(page, `<section class="texts">`))
	assert.Equal(t, 2, strings.Count(page, ` data-flip="`))
}

// TestARunStoreThatCannotOpenLosesNoRunFile: the run store is opened
// while the run's files are written; when it cannot be (here its path is
// a folder), the run's files are all written, the outcome says why the run
// is not in the store, and a store that opens records the run.
func TestARunStoreThatCannotOpenLosesNoRunFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notAFile := filepath.Join(dir, "store-is-a-folder")
	require.NoError(t, os.Mkdir(notAFile, 0o755))
	tests := map[string]struct {
		store   string
		storeOK bool
	}{
		"a store that opens":       {store: filepath.Join(dir, "runs.db"), storeOK: true},
		"a store that cannot open": {store: notAFile},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := judging.Default()
			j.LLM.Spec = "offline"
			out := filepath.Join(t.TempDir(), "run")
			o, err := bench.Execute(context.Background(), bench.Job{Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"faithfulness"},
				Out: out, Store: tc.store, Judging: j, Quiet: true})
			require.NoError(t, err)
			for _, f := range []string{run.FileReport, run.FileSummary, run.FileResults} {
				assert.FileExists(t, filepath.Join(out, f))
			}
			if tc.storeOK {
				require.NoError(t, o.StoreErr)
				st, err := runstore.OpenStore(tc.store)
				require.NoError(t, err)
				defer func() { require.NoError(t, st.Close()) }()
				row, err := st.Get(t.Context(), o.Config.RunID)
				require.NoError(t, err)
				assert.Equal(t, out, row.Dir)
				return
			}
			require.Error(t, o.StoreErr)
			var log strings.Builder
			require.NoError(t, o.Write(&strings.Builder{}, &log))
			assert.Contains(t, log.String(), "assay: run store "+tc.store+": ")
			assert.NotContains(t, log.String(), "run store: run store", "the store named once")
			assert.Contains(t, log.String(), "(the run folder "+out+" has the run)")
		})
	}
}

// TestAJobWithoutEnvOrStoreSaysSo: a job given neither a Store nor an Env
// records its run nowhere, and its StoreErr says what to set, not that
// $HOME is unset; with an Env the default store is found.
func TestAJobWithoutEnvOrStoreSaysSo(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	tests := map[string]struct {
		env  func(string) string
		want string // in StoreErr; "" none
	}{
		"no Env, no Store": {env: nil, want: "run store: the job names no Store and has no Env to find the default one in ($ASSAY_DATA_DIR, $HOME): set Job.Store, or Job.Env to os.Getenv"},
		"an Env":           {env: func(k string) string { return map[string]string{"ASSAY_DATA_DIR": data}[k] }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := judging.Default()
			j.LLM.Spec = "offline"
			o, err := bench.Execute(context.Background(), bench.Job{Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"faithfulness"},
				Out: filepath.Join(t.TempDir(), "run"), Env: tc.env, Judging: j, Quiet: true})
			require.NoError(t, err)
			if tc.want == "" {
				require.NoError(t, o.StoreErr)
				assert.FileExists(t, filepath.Join(data, "runs.db"))
				return
			}
			require.EqualError(t, o.StoreErr, tc.want)
		})
	}
}
