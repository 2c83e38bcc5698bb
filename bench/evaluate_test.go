package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

func evalConfig() run.Config {
	return run.Config{RunID: "20261124T221500Z-3f9a", Started: time.Date(2026, 11, 24, 22, 15, 0, 0, time.UTC),
		Dataset: "data.jsonl", DatasetSHA256: "abc", Metrics: []string{"m1", "m2"}, Model: "offline (approximate)",
		Prompts: map[string]string{"faithfulness.claims": "2"}, Settings: map[string]string{"--strict": "false"}}
}

// countingScorer scores every sample 0.25 under its metric and counts the
// samples it judged.
type countingScorer struct {
	metric string
	mu     *sync.Mutex
	seen   map[run.Key]int
}

func (c countingScorer) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	c.mu.Lock()
	c.seen[run.Key{ID: s.ID, Metric: c.metric}]++
	c.mu.Unlock()
	return eval.Score{Metric: c.metric, Value: 0.25}, nil
}

func records(ids ...string) []dataset.Record {
	out := make([]dataset.Record, len(ids))
	for i, id := range ids {
		out[i] = dataset.Record{ID: id, Line: i + 1, Sample: eval.Sample{ID: id}}
	}
	return out
}

func TestRunResumeJudgesOnlyWhatIsMissing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	cfg := evalConfig()
	folder, err := run.Create(dir, cfg)
	require.NoError(t, err)
	// An earlier attempt judged a:m1, a:m2 and b:m1, and was killed while
	// writing b:m2.
	for _, r := range []run.Result{{ID: "a", Metric: "m1", Value: 1}, {ID: "a", Metric: "m2", Value: 1}, {ID: "b", Metric: "m1", Skipped: true, Reason: "no answer"}} {
		require.NoError(t, folder.Append(r))
	}
	require.NoError(t, folder.Close())
	f, err := os.OpenFile(filepath.Join(dir, run.FileResults), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"id":"b","metric":"m2","val`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	_, err = run.Create(dir, cfg)
	require.ErrorIs(t, err, run.ErrExists)

	now := cfg
	now.RunID, now.Command = "another", []string{"assay", "bench", "--resume"}
	folder, err = run.Resume(dir, now)
	require.NoError(t, err)
	assert.Equal(t, cfg.RunID, folder.Config().RunID, "a resume keeps the run's id")
	assert.Equal(t, 3, folder.Resumed())
	require.ErrorContains(t, folder.Append(run.Result{ID: "a", Metric: "m1"}), "written already", "a pair is written once")
	var mu sync.Mutex
	seen := map[run.Key]int{}
	units := []dispatch.Unit{dispatch.ScorerUnit("m1", countingScorer{"m1", &mu, seen}), dispatch.ScorerUnit("m2", countingScorer{"m2", &mu, seen})}
	var started []string
	err = Evaluate(context.Background(), folder, dataset.All(records("a", "b", "c")), units, 2, func(rec dataset.Record, _ int) {
		started = append(started, rec.ID)
	})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"b", "c"}, started, "a record judged whole is not started (records are reported as they finish)")
	assert.Equal(t, map[run.Key]int{{ID: "b", Metric: "m2"}: 1, {ID: "c", Metric: "m1"}: 1, {ID: "c", Metric: "m2"}: 1}, seen, "only the missing pairs are judged")
	s := folder.Summary(3, time.Now(), nil)
	require.NoError(t, folder.Close())
	assert.True(t, s.Complete)
	assert.Equal(t, 3, s.Metrics[0].N)
	assert.Equal(t, 1, s.Metrics[0].Skipped, "a skipped result is final: nothing to judge")
	assert.Equal(t, 0, folder.Defaults().Defaulted)

	rf, err := run.ReadResults(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	assert.False(t, rf.Torn, "the torn line was cut off before appending")
	data, err := os.ReadFile(rf.Path)
	require.NoError(t, err)
	assert.Equal(t, 6, bytes.Count(data, []byte("\n")), "six pairs, six lines, none twice")
	assert.Len(t, rf.Results, 6)
}

func TestEvaluateStopsOnAUnitError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	folder, err := run.Create(dir, evalConfig())
	require.NoError(t, err)
	defer func() { _ = folder.Close() }() // the run ends in an error; nothing to keep
	boom := dispatch.Unit{Metrics: []string{"m1"}, Judge: func(_ context.Context, s eval.Sample) ([]eval.Score, error) {
		if s.ID == "b" {
			return nil, fmt.Errorf("broken sample")
		}
		return []eval.Score{{Metric: "m1", Value: 1}}, nil
	}}
	err = Evaluate(context.Background(), folder, dataset.All(records("a", "b")), []dispatch.Unit{boom}, 1, nil)
	require.ErrorContains(t, err, "record b (line 2): broken sample")
	rf, err := run.ReadResults(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	assert.True(t, rf.Has(run.Key{ID: "a", Metric: "m1"}))
	assert.False(t, rf.Has(run.Key{ID: "b", Metric: "m1"}))
}

// TestRunSummaryKeepsTheMetricsOrderGiven: the results of a parallel run
// arrive in the order the judges finish (here forced to m3, m2, m1); the
// summary, its table, the report and the store keep the order the metrics
// were given in, each name beside its own figures.
func TestRunSummaryKeepsTheMetricsOrderGiven(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	cfg := evalConfig()
	cfg.Metrics = []string{"m1", "m2", "m3"}
	folder, err := run.Create(dir, cfg)
	require.NoError(t, err)
	values := map[run.Key]float64{{ID: "a", Metric: "m1"}: 0.1, {ID: "b", Metric: "m1"}: 0.3, {ID: "a", Metric: "m2"}: 0.5, {ID: "b", Metric: "m2"}: 0.7, {ID: "a", Metric: "m3"}: 0.9, {ID: "b", Metric: "m3"}: 0.9}
	written := map[run.Key]chan struct{}{}
	for k := range values {
		written[k] = make(chan struct{})
	}
	folder.OnResult = func(r run.Result) { close(written[r.Key()]) }
	// m1 waits for m2's result on its record, m2 for m3's.
	after := map[string]string{"m1": "m2", "m2": "m3"}
	unit := func(metric string) dispatch.Unit {
		return dispatch.Unit{Metrics: []string{metric}, Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
			if prev, ok := after[metric]; ok {
				select {
				case <-written[run.Key{ID: s.ID, Metric: prev}]:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return []eval.Score{{Metric: metric, Value: values[run.Key{ID: s.ID, Metric: metric}]}}, nil
		}}
	}
	units := []dispatch.Unit{unit("m1"), unit("m2"), unit("m3")}
	require.NoError(t, Evaluate(t.Context(), folder, dataset.All(records("a", "b")), units, 6, nil))
	s := folder.Summary(2, cfg.Started.Add(time.Minute), nil)
	require.NoError(t, folder.Close())

	rf, err := run.ReadResults(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	var arrived []string
	for r := range rf.All() {
		if r.ID == "a" {
			arrived = append(arrived, r.Metric)
		}
	}
	require.Equal(t, []string{"m3", "m2", "m1"}, arrived, "the results arrived in another order than given")

	wantMeans := map[string]float64{"m1": 0.2, "m2": 0.6, "m3": 0.9}
	check := func(where string, ms []run.MetricStats) {
		t.Helper()
		var names []string
		for _, m := range ms {
			names = append(names, m.Metric)
			assert.InDelta(t, wantMeans[m.Metric], float64(m.Mean), 1e-9, "%s: %s's mean", where, m.Metric)
		}
		assert.Equal(t, cfg.Metrics, names, where)
	}
	check("summary", s.Metrics)

	var table bytes.Buffer
	require.NoError(t, run.FormatMetricStats(&table, s.Metrics))
	assert.Regexp(t, `(?s)\nm1 +2/2 +0\.200 .*\nm2 +2/2 +0\.600 .*\nm3 +2/2 +0\.900 `, table.String())

	var page bytes.Buffer
	require.NoError(t, report.WriteHTML(&page, cfg, s, rf, report.Data{}))
	assert.Regexp(t, `(?s)data-metric="\d+" class="num">m1</th>.*data-metric="\d+" class="num">m2</th>.*data-metric="\d+" class="num">m3</th>`, page.String(), "report.html's metric columns in the config's order")

	st, err := runstore.OpenStore(filepath.Join(t.TempDir(), "runs.db"))
	require.NoError(t, err)
	defer func() { _ = st.Close() }() // read in this test only
	require.NoError(t, st.Record(cfg, s, dir))
	rows, err := st.List(t.Context())
	require.NoError(t, err)
	require.Len(t, rows, 1)
	check("store", rows[0].Summary.Metrics)
}

// TestResumeJudgesDefaultsAndErrorsAgain: a run left with a neutral
// default (an outage) and an error is resumed against a judge that now
// succeeds: those two pairs are judged again, once each, and the good and
// the skipped pairs are not; every reader of the run counts each pair
// once, with its new value; and a resume cut short before reaching them
// still counts them as they were.
func TestResumeJudgesDefaultsAndErrorsAgain(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	cfg := evalConfig()
	cfg.Metrics = []string{"m1"}
	folder, err := run.Create(dir, cfg)
	require.NoError(t, err)
	require.NoError(t, folder.Close())
	results := filepath.Join(dir, run.FileResults)
	require.NoError(t, os.Rename(resultsAt(t,
		run.Result{ID: "a", Metric: "m1", Value: 1, Usage: eval.Usage{Calls: 3}},
		run.Result{ID: "b", Metric: "m1", Value: 0.5, Defaulted: true, Error: "status 500", Usage: eval.Usage{Calls: 2}},
		run.Result{ID: "c", Metric: "m1", Value: 0.3, Error: "reply did not match the schema", Usage: eval.Usage{Calls: 1}},
		run.Result{ID: "d", Metric: "m1", Skipped: true, Reason: "no answer"}), results))

	// Cut short: nothing judged yet, the old results count as they were.
	folder, err = run.Resume(dir, cfg)
	require.NoError(t, err)
	kept, again := folder.Kept()
	assert.Equal(t, [2]int{2, 2}, [2]int{kept, again}, "a and d kept, b and c to judge again")
	assert.Equal(t, 4, folder.Resumed())
	assert.False(t, folder.Done(run.Key{ID: "b", Metric: "m1"}))
	assert.False(t, folder.Done(run.Key{ID: "c", Metric: "m1"}))
	assert.True(t, folder.Done(run.Key{ID: "d", Metric: "m1"}), "a skipped result is final")
	var earlier []string
	for r := range folder.Earlier() {
		earlier = append(earlier, r.ID)
	}
	assert.Equal(t, []string{"a", "d"}, earlier)
	s := folder.Summary(4, cfg.Started, nil)
	assert.Equal(t, run.MetricStats{Metric: "m1", N: 4, Scored: 2, Defaulted: 1, Skipped: 1, Errors: 1, Mean: 0.65}, pick(s.Metrics[0]))
	assert.Equal(t, s, folder.Summary(4, cfg.Started, nil), "the results to judge again are counted anew each time, not added up")
	assert.True(t, s.Complete)
	assert.Equal(t, 1, folder.Defaults().Defaulted)
	require.NoError(t, folder.Close())

	folder, err = run.Resume(dir, cfg)
	require.NoError(t, err)
	var mu sync.Mutex
	seen := map[run.Key]int{}
	judge := dispatch.Unit{Metrics: []string{"m1"}, Judge: func(_ context.Context, s eval.Sample) ([]eval.Score, error) {
		mu.Lock()
		seen[run.Key{ID: s.ID, Metric: "m1"}]++
		mu.Unlock()
		return []eval.Score{{Metric: "m1", Value: 0.9, Usage: eval.Usage{Calls: 1}}}, nil
	}}
	require.NoError(t, Evaluate(t.Context(), folder, dataset.All(records("a", "b", "c", "d")), []dispatch.Unit{judge}, 2, nil))
	assert.Equal(t, map[run.Key]int{{ID: "b", Metric: "m1"}: 1, {ID: "c", Metric: "m1"}: 1}, seen, "the default and the error are judged again, once each")
	s = folder.Summary(4, time.Now(), nil)
	require.NoError(t, folder.Close())
	want := run.MetricStats{Metric: "m1", N: 4, Scored: 3, Skipped: 1, Mean: 0.933333}
	assert.Equal(t, want, pick(s.Metrics[0]), "each pair once, with its new value")
	assert.Equal(t, 0, folder.Defaults().Defaulted)
	assert.Equal(t, 4, folder.Defaults().Total)
	assert.Equal(t, 3+1+1, s.Metrics[0].Calls, "the calls of the results that count")
	assert.Equal(t, 3+2+1+1+1, s.Usage.Calls, "the calls of every attempt, the results judged again included")

	// Every reader takes the last line of a pair.
	rf, err := run.ReadResults(results)
	require.NoError(t, err)
	got := map[string]run.Result{}
	for r := range rf.All() {
		got[r.ID] = r
	}
	require.Len(t, got, 4)
	assert.Equal(t, 0.9, got["b"].Value)
	assert.True(t, got["b"].Final())
	assert.Equal(t, 0.9, got["c"].Value)
	assert.Empty(t, got["c"].Error)

	each := map[string][]float64{}
	require.NoError(t, run.EachResult(results, func(r run.Result) { each[r.ID] = append(each[r.ID], r.Value) }))
	assert.Equal(t, map[string][]float64{"a": {1}, "b": {0.9}, "c": {0.9}, "d": {0}}, each)

	bounded, err := run.ReadResultsBounded(results, 10)
	require.NoError(t, err)
	assert.Len(t, bounded.Results, 4)
	assert.Equal(t, 0, bounded.Bounded.Defaulted)
	assert.Equal(t, 0, bounded.Bounded.Errors)
	assert.Equal(t, 1, bounded.Bounded.Skipped)
	assert.Equal(t, run.Bins{9: 3}, bounded.Bounded.Bins["m1"])

	s.Label = ""
	labels, err := dataset.ReadLabels(dataset.All([]dataset.Record{
		{ID: "a", Human: map[string]any{"good": true}}, {ID: "b", Human: map[string]any{"good": true}}, {ID: "c", Human: map[string]any{"good": false}},
	}), "good")
	require.NoError(t, err)
	require.NoError(t, s.AddCalibration(results, labels))
	require.NotNil(t, s.Metrics[0].Calibration)
	n := 0
	for _, b := range s.Metrics[0].Calibration.Reliability {
		n += b.N
	}
	assert.Equal(t, 3, n, "three labelled values, b and c once each")
	assert.InDelta(t, (0+0.01+0.81)/3, s.Metrics[0].Calibration.Brier, 1e-9)

	// As a baseline, the run pairs each sample once.
	cmp, _, err := run.Compare(dir, filepath.Join(dir, run.FileResults), s, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, cmp.Metrics[0].Paired)
	assert.InDelta(t, (1+0.9+0.9)/3, float64(cmp.Metrics[0].BaselineMean), 1e-9)

	// Resumed again: everything is final, nothing is judged.
	folder, err = run.Resume(dir, cfg)
	require.NoError(t, err)
	kept, again = folder.Kept()
	assert.Equal(t, [2]int{4, 0}, [2]int{kept, again})
	s = folder.Summary(4, time.Now(), nil)
	require.NoError(t, folder.Close())
	assert.Equal(t, 3+2+1+1+1, s.Usage.Calls, "the superseded lines' calls still count")
	assert.Equal(t, want, pick(s.Metrics[0]))
}

// pick is m's counts and mean (to six places), the rest zeroed, for
// comparing.
func pick(m run.MetricStats) run.MetricStats {
	mean := run.Num(math.Round(float64(m.Mean)*1e6) / 1e6)
	return run.MetricStats{Metric: m.Metric, N: m.N, Scored: m.Scored, Defaulted: m.Defaulted, Skipped: m.Skipped, Errors: m.Errors, Mean: mean}
}

// resultsAt writes results as results.jsonl in a folder of its own and returns its path.
func resultsAt(t *testing.T, results ...run.Result) string {
	t.Helper()
	var data []byte
	for _, r := range results {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		data = append(append(data, b...), '\n')
	}
	path := filepath.Join(t.TempDir(), run.FileResults)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}
