package runstore_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/runtest"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

func TestDefaultStorePath(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ASSAY_DATA_DIR": "/data/assay", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}
	got, err := runstore.DefaultStorePath(func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("/data/assay", "runs.db"), got, "$ASSAY_DATA_DIR moves it")

	_, err = runstore.DefaultStorePath(func(string) string { return "" })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set ASSAY_DATA_DIR")

	if runtime.GOOS == "linux" {
		got, err := runstore.DefaultStorePath(func(k string) string { return map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}[k] })
		require.NoError(t, err)
		assert.Equal(t, "/xdg/assay/runs.db", got)
		got, err = runstore.DefaultStorePath(func(k string) string { return map[string]string{"HOME": "/home/u"}[k] })
		require.NoError(t, err)
		assert.Equal(t, "/home/u/.local/share/assay/runs.db", got, "not os.UserConfigDir: a data directory")
	}
}

// storedRun is a run for the store tests.
func storedRun(id string, started time.Time, sha string, means map[string]float64, metrics ...string) (run.Config, run.Summary) {
	cfg := run.Config{RunID: id, Started: started, Dataset: "data-" + sha + ".jsonl", DatasetSHA256: sha, Metrics: metrics, Model: "offline"}
	s := run.Summary{RunID: id, Started: started, Finished: started.Add(time.Minute), Complete: true}
	for _, m := range metrics {
		mean, ok := means[m]
		if !ok {
			mean = math.NaN()
		}
		s.Metrics = append(s.Metrics, run.MetricStats{Metric: m, N: 3, Scored: 3, Mean: run.Num(mean)})
	}
	return cfg, s
}

// newStore records runs of two datasets: a1, a2 (faithfulness and
// answer_relevancy), a3 (faithfulness alone) of dataset aaa, b1 of
// dataset bbb; each in a folder of its own under root.
func newStore(t *testing.T) (*runstore.Store, string) {
	t.Helper()
	root := t.TempDir()
	st, err := runstore.OpenStore(filepath.Join(root, "data", "runs.db"))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, st.Close()) })
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for _, r := range []struct {
		id     string
		day    int
		sha    string
		means  map[string]float64
		metric []string
	}{
		{"20261101-a1", 0, "aaa", map[string]float64{"faithfulness": 0.7, "answer_relevancy": 0.6}, []string{"faithfulness", "answer_relevancy"}},
		{"20261103-a2", 2, "aaa", map[string]float64{"faithfulness": 0.8, "answer_relevancy": 0.5}, []string{"answer_relevancy", "faithfulness"}},
		{"20261104-a3", 3, "aaa", map[string]float64{"faithfulness": 0.9}, []string{"faithfulness"}},
		{"20261102-b1", 1, "bbb", map[string]float64{"faithfulness": 0.1}, []string{"faithfulness"}},
	} {
		cfg, s := storedRun(r.id, t0.AddDate(0, 0, r.day), r.sha, r.means, r.metric...)
		dir := runtest.WriteFolder(t, filepath.Join(root, r.id), cfg, &s, nil)
		require.NoError(t, st.Record(cfg, s, dir))
	}
	return st, root
}

func TestStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, root := newStore(t)

	rows, err := st.List(ctx)
	require.NoError(t, err)
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	assert.Equal(t, []string{"20261101-a1", "20261102-b1", "20261103-a2", "20261104-a3"}, ids, "oldest first")
	a2 := rows[2]
	assert.Equal(t, []string{"answer_relevancy", "faithfulness"}, a2.Metrics, "the config's order")
	assert.Equal(t, filepath.Join(root, "20261103-a2"), a2.Dir)
	assert.Equal(t, "aaa", a2.DatasetSHA256)
	assert.Equal(t, time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC), a2.Started)
	assert.Equal(t, time.Date(2026, 11, 3, 9, 1, 0, 0, time.UTC), a2.Finished)
	assert.InDelta(t, 0.5, float64(a2.Summary.Metrics[0].Mean), 1e-12)
	assert.Equal(t, "offline", a2.Config.Model)

	get := map[string]struct {
		ref, want  string
		candidates []string
	}{
		"an exact id":                    {ref: "20261102-b1", want: "20261102-b1"},
		"a unique prefix":                {ref: "20261104", want: "20261104-a3"},
		"an ambiguous prefix":            {ref: "202611", candidates: []string{"20261101-a1", "20261102-b1", "20261103-a2", "20261104-a3"}},
		"an unknown id":                  {ref: "nope"},
		"a LIKE wildcard is no wildcard": {ref: "2026110_"},
		"nothing":                        {ref: ""},
	}
	for name, tc := range get {
		t.Run("get "+name, func(t *testing.T) {
			t.Parallel()
			r, err := st.Get(ctx, tc.ref)
			if tc.want != "" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, r.ID)
				return
			}
			nf, ok := errors.AsType[*runstore.RunNotFoundError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, tc.candidates, nf.Candidates)
			if len(tc.candidates) > 1 {
				assert.Contains(t, err.Error(), "is ambiguous: it begins 20261101-a1, 20261102-b1")
			} else {
				assert.Equal(t, `no run "`+tc.ref+`" in the run store `+st.Path()+`: see assay runs list`, err.Error())
			}
		})
	}

	latest := map[string]struct {
		sha     string
		metrics []string
		want    string
	}{
		"the newer of two, metrics in any order": {sha: "aaa", metrics: []string{"faithfulness", "answer_relevancy"}, want: "20261103-a2"},
		"the same metrics only":                  {sha: "aaa", metrics: []string{"faithfulness"}, want: "20261104-a3"},
		"the same dataset only":                  {sha: "bbb", metrics: []string{"faithfulness"}, want: "20261102-b1"},
		"none":                                   {sha: "ccc", metrics: []string{"faithfulness"}},
	}
	for name, tc := range latest {
		t.Run("latest "+name, func(t *testing.T) {
			t.Parallel()
			r, err := st.Latest(ctx, tc.sha, tc.metrics)
			if tc.want == "" {
				_, ok := errors.AsType[*runstore.RunNotFoundError](err)
				assert.True(t, ok, "%v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, r.ID)
		})
	}

	trend := map[string]struct {
		metric, sha string
		want        []string // run id=mean
	}{
		"one dataset over time":                  {metric: "faithfulness", sha: "aaa", want: []string{"20261101-a1=0.7", "20261103-a2=0.8", "20261104-a3=0.9"}},
		"runs without the metric left out":       {metric: "answer_relevancy", sha: "aaa", want: []string{"20261101-a1=0.6", "20261103-a2=0.5"}},
		"no dataset: the last run's with metric": {metric: "answer_relevancy", want: []string{"20261101-a1=0.6", "20261103-a2=0.5"}},
		"another dataset":                        {metric: "faithfulness", sha: "bbb", want: []string{"20261102-b1=0.1"}},
		"a dataset without the metric":           {metric: "answer_relevancy", sha: "bbb", want: []string{}},
	}
	for name, tc := range trend {
		t.Run("trend "+name, func(t *testing.T) {
			t.Parallel()
			pts, bad, err := st.Trend(ctx, tc.metric, tc.sha)
			require.NoError(t, err)
			assert.Empty(t, bad)
			got := make([]string, len(pts))
			for i, p := range pts {
				got[i] = p.RunID + "=" + strings.TrimRight(strings.TrimRight(formatFloat(float64(p.Mean)), "0"), ".")
				assert.Equal(t, 3, p.Scored)
			}
			assert.Equal(t, tc.want, got)
		})
	}
	t.Run("trend of a metric no run has", func(t *testing.T) {
		t.Parallel()
		_, _, err := st.Trend(ctx, "faith", "")
		_, ok := errors.AsType[*runstore.RunNotFoundError](err)
		assert.True(t, ok, "%v", err)
	})
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }

func TestStoreRecordAgainReplaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	st, err := runstore.OpenStore(path)
	require.NoError(t, err)
	defer func() { assert.NoError(t, st.Close()) }()
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	cfg, s := storedRun("r1", t0, "aaa", map[string]float64{"m": 0.4}, "m")
	s.Complete = false
	require.NoError(t, st.Record(cfg, s, t.TempDir()))
	cfg, s = storedRun("r1", t0, "aaa", map[string]float64{"m": 0.6}, "m")
	require.NoError(t, st.Record(cfg, s, t.TempDir()))

	// A second process on the same file sees one run, resumed.
	other, err := runstore.OpenStore(path)
	require.NoError(t, err)
	defer func() { assert.NoError(t, other.Close()) }()
	rows, err := other.List(ctx)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.True(t, rows[0].Summary.Complete)
	assert.InDelta(t, 0.6, float64(rows[0].Summary.Metrics[0].Mean), 1e-12)

	require.EqualError(t, st.Record(run.Config{}, run.Summary{}, "."), "run store: record: the run has no id (run.Config.RunID)")
}

func TestOpenStoreNotADatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "runs.db")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not sqlite ", 100)), 0o600))
	_, err := runstore.OpenStore(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "run store "+path+": not a usable run store (move it away to start a new one)")
}

func TestResolveBaseline(t *testing.T) {
	t.Parallel()
	st, root := newStore(t)
	gone := filepath.Join(root, "20261102-b1")
	require.NoError(t, os.Remove(filepath.Join(gone, run.FileConfig)))
	cur := run.Config{RunID: "20261103-a2", DatasetSHA256: "aaa", Metrics: []string{"faithfulness", "answer_relevancy"}}
	lost := filepath.Join(root, "20261105-c1") // its results.jsonl deleted
	lcfg, ls := storedRun("20261105-c1", time.Date(2026, 11, 5, 9, 0, 0, 0, time.UTC), "ccc", map[string]float64{"faithfulness": 0.9}, "faithfulness")
	runtest.WriteFolder(t, lost, lcfg, &ls, nil)
	require.NoError(t, st.Record(lcfg, ls, lost))
	require.NoError(t, os.Remove(filepath.Join(lost, run.FileResults)))
	tests := map[string]struct {
		store *runstore.Store
		ref   string
		cfg   run.Config
		want  string
		err   string
	}{
		"a run folder":               {ref: filepath.Join(root, "20261101-a1"), want: filepath.Join(root, "20261101-a1")},
		"a run folder, no store":     {store: nil, ref: filepath.Join(root, "20261104-a3"), want: filepath.Join(root, "20261104-a3")},
		"a run id":                   {store: st, ref: "20261104-a3", want: filepath.Join(root, "20261104-a3")},
		"a unique prefix":            {store: st, ref: "20261101", want: filepath.Join(root, "20261101-a1")},
		"latest, not the run itself": {store: st, ref: "latest", cfg: cur, want: filepath.Join(root, "20261101-a1")},
		"latest of another run":      {store: st, ref: "latest", cfg: run.Config{RunID: "new", DatasetSHA256: "aaa", Metrics: []string{"faithfulness"}}, want: filepath.Join(root, "20261104-a3")},
		"latest, none earlier": {store: st, ref: "latest", cfg: run.Config{RunID: "20261104-a3", DatasetSHA256: "aaa", Metrics: []string{"faithfulness"}},
			err: "--baseline latest: no earlier run of dataset aaa with metrics faithfulness in"},
		"an ambiguous prefix":                    {store: st, ref: "2026", err: `--baseline 2026: run "2026" is ambiguous`},
		"unknown":                                {store: st, ref: "nope", err: "--baseline nope: not a run folder (no config.json in it) nor a run id in the run store " + filepath.Join(root, "data", "runs.db") + ": see assay runs list"},
		"unknown, no store":                      {ref: "nope", err: "--baseline nope: not a run folder (no config.json in it), and there is no run store"},
		"a run whose folder went":                {store: st, ref: "20261102-b1", err: "run 20261102-b1 was recorded in " + gone + ", which no longer holds a run"},
		"empty":                                  {store: st, ref: "", err: "--baseline: empty"},
		"a run folder that lost its results":     {ref: lost, err: "--baseline " + lost + ": " + filepath.Join(lost, run.FileResults) + ": no such file or directory: the baseline's scores are gone"},
		"a run id whose folder lost its results": {store: st, ref: "20261105-c1", err: "--baseline 20261105-c1: " + filepath.Join(lost, run.FileResults) + ": no such file or directory: the baseline's scores are gone"},
		"control characters":                     {store: st, ref: "n\x1b[2J", err: `--baseline n\x1b[2J: not a run folder`},
		"control characters, no store":           {ref: "n\x1b[2J", err: `--baseline n\x1b[2J: not a run folder`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := runstore.ResolveBaseline(tc.store, tc.ref, tc.cfg)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.NotContains(t, err.Error(), "\x1b", "no control character raw")
				assert.LessOrEqual(t, strings.Count(err.Error(), "see assay runs list"), 1, "said once: %s", err)
				assert.Equal(t, 1, strings.Count(err.Error(), "--baseline"), "the flag named once: %s", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestStoredSummaryReadsInConfigOrder: a run recorded with its summary's
// metrics in the order its judges finished (as runs were before the
// summary kept the config's order) reads back in the config's order, from
// the store and from its folder, each metric with its own mean.
func TestStoredSummaryReadsInConfigOrder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	st, err := runstore.OpenStore(filepath.Join(root, "runs.db"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, st.Close()) }()
	means := map[string]float64{"faithfulness": 0.5, "answer_relevancy": 0.75, "context_precision": 1}
	cfg, s := storedRun("20261127-x1", time.Date(2026, 11, 27, 4, 32, 0, 0, time.UTC), "aaa", means, "context_precision", "faithfulness", "answer_relevancy")
	cfg.Metrics = []string{"faithfulness", "answer_relevancy", "context_precision"}
	dir := runtest.WriteFolder(t, filepath.Join(root, "run"), cfg, &s, nil)
	require.NoError(t, st.Record(cfg, s, dir))

	check := func(where string, ms []run.MetricStats) {
		t.Helper()
		var names []string
		for _, m := range ms {
			names = append(names, m.Metric)
			assert.InDelta(t, means[m.Metric], float64(m.Mean), 1e-12, "%s: %s", where, m.Metric)
		}
		assert.Equal(t, cfg.Metrics, names, where)
	}
	rows, err := st.List(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 1)
	check("store", rows[0].Summary.Metrics)
	f, err := run.ReadFolder(dir)
	require.NoError(t, err)
	check("folder", f.Summary.Metrics)
}
