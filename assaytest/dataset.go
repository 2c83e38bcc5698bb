package assaytest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/run"
)

// RequireDataset judges every sample of the dataset at path with the
// metrics its gates name and fails t when a gate fails, naming the value
// and the samples that scored lowest with their reasons. A gate is
// "METRIC.STAT OP NUMBER" as `assay bench --gate` takes it
// ("faithfulness.mean>=0.7"), STAT one of mean, min, max, median, p10,
// pass_rate (the share at or above the metric's threshold), defaulted and
// defaulted_rate. Statistics are over the scored values: neutral defaults
// and skipped samples are counted apart, never averaged in, and any
// default fails the test (nothing was measured for that sample). It
// returns each metric's figures, in the order the gates first name them.
func RequireDataset(t TB, path string, gates ...string) []Stats {
	t.Helper()
	return New().RequireDataset(t, path, gates...)
}

// RequireDataset is the package's RequireDataset, judged with j's model.
// It is the run `assay bench --gate` makes (bench.Execute), its run folder
// a temporary one, recorded in no run store.
func (j *Judge) RequireDataset(t TB, path string, gates ...string) []Stats {
	t.Helper()
	if j.modelErr != nil {
		t.Fatalf("%s", shown(j.modelErr))
		return nil
	}
	if len(gates) == 0 {
		t.Fatalf("assaytest.RequireDataset: name at least one gate, such as \"faithfulness.mean>=0.7\"")
		return nil
	}
	var metrics []string
	for _, g := range gates {
		pg, err := run.ParseGate(g)
		if err != nil {
			t.Fatalf("assaytest.RequireDataset: %s", shown(err))
			return nil
		}
		if !slices.Contains(metrics, pg.Metric) {
			metrics = append(metrics, pg.Metric)
		}
	}
	dir, err := os.MkdirTemp("", "assaytest-run-")
	if err != nil {
		t.Fatalf("assaytest.RequireDataset: %s", shown(err))
		return nil
	}
	defer func() { _ = os.RemoveAll(dir) }() // the run folder is the test's alone
	cfg := judging.Default()
	cfg.Model, cfg.LLM.Concurrency = j.model, j.limit()
	if j.model == nil {
		cfg.LLM.Spec = "offline"
	}
	out, err := bench.Execute(j.context(), bench.Job{Data: path, Metrics: metrics, Gates: gates, Out: filepath.Join(dir, "run"),
		NoStore: true, Quiet: true, Judging: cfg, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("assaytest.RequireDataset: %s", shown(err))
		return nil
	}
	if f := out.Failures.Infra(); f != nil && f.Kind != judging.FailDefaults {
		t.Fatalf("assaytest.RequireDataset: %s", shown(f.Err))
		return nil
	}
	results, err := run.ReadResults(filepath.Join(out.Dir, run.FileResults))
	if err != nil {
		t.Fatalf("assaytest.RequireDataset: %s", shown(err))
		return nil
	}
	stats := make([]Stats, len(metrics))
	for i, m := range metrics {
		stats[i] = Stats{Metric: m}
		for _, ms := range out.Summary.Metrics {
			if ms.Metric == m {
				stats[i].fill(ms)
			}
		}
	}
	// In dataset order, so that ties among the lowest read as they were
	// written, whatever order the judgements finished in.
	byID := map[string][]run.Result{}
	for r := range results.All() {
		byID[r.ID] = append(byID[r.ID], r)
	}
	data, err := dataset.Open(path, dataset.Options{})
	if err != nil {
		t.Fatalf("assaytest.RequireDataset: %s", shown(err))
		return nil
	}
	for rec, err := range data.Records() {
		if err != nil {
			t.Fatalf("assaytest.RequireDataset: %s", shown(err))
			return nil
		}
		for _, r := range byID[rec.ID] {
			if i := slices.Index(metrics, r.Metric); i >= 0 {
				stats[i].add(r.ID, r.Score())
			}
		}
	}
	for _, s := range stats {
		if s.Defaulted > 0 {
			t.Errorf("%s on %s: %d of %d judgements defaulted, and a default passes nothing:\n%s", s.Metric, path, s.Defaulted, s.N, s.listDefaults())
		}
	}
	for _, g := range out.Summary.Gates {
		if g.Passed {
			continue
		}
		s := stats[slices.Index(metrics, g.Metric)]
		t.Errorf("gate %s on %s: got %s (%d scored, %d defaulted, %d skipped of %d)\n%s",
			g.Gate, path, fmtStat(float64(g.Got)), s.Scored, s.Defaulted, s.Skipped, s.N, s.listLowest(lowestKept))
	}
	return stats
}

// Stats are one metric's figures over a dataset. Mean, Min, Max, Median
// and P10 are over the scored values and NaN when none was scored.
type Stats struct {
	Metric string
	// N is the number of samples; Scored of them were neither defaulted
	// nor skipped.
	N, Scored, Defaulted, Skipped int
	Mean, Min, Max, Median, P10   float64
	// Threshold is the metric's default pass threshold; PassRate is the
	// share of the scored values at or above it.
	Threshold, PassRate float64

	// lowest are the scored results, lowest first; defaults the
	// defaulted ones.
	lowest   []judged
	defaults []judged
}

type judged struct {
	id string
	sc eval.Score
}

// lowestKept is how many of the lowest scores Stats keeps for a failure
// message.
const lowestKept = 3

func (s *Stats) add(id string, sc eval.Score) {
	s.N++
	switch {
	case sc.Defaulted:
		s.Defaulted++
		s.defaults = append(s.defaults, judged{id, sc})
		return
	case sc.Skipped:
		s.Skipped++
		return
	}
	s.Scored++
	i, _ := slices.BinarySearchFunc(s.lowest, sc.Value, func(j judged, v float64) int {
		if j.sc.Value <= v {
			return -1
		}
		return 1
	})
	if i < lowestKept {
		s.lowest = slices.Insert(s.lowest, i, judged{id, sc})
		s.lowest = s.lowest[:min(len(s.lowest), lowestKept)]
	}
}

// fill takes the figures bench computed for the metric.
func (s *Stats) fill(ms run.MetricStats) {
	s.Threshold = ms.Threshold
	s.Mean, s.Min, s.Max = float64(ms.Mean), float64(ms.Min), float64(ms.Max)
	s.Median, s.P10, s.PassRate = float64(ms.Median), float64(ms.P10), float64(ms.PassRate)
}

func (s Stats) listLowest(n int) string {
	if len(s.lowest) == 0 {
		return "    nothing was scored"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "    lowest %s:\n", s.Metric)
	for _, j := range s.lowest[:min(n, len(s.lowest))] {
		fmt.Fprintf(&b, "  sample %q\n%s\n", j.id, Explain(j.sc))
	}
	return strings.TrimRight(b.String(), "\n")
}

func (s Stats) listDefaults() string {
	var b strings.Builder
	for _, j := range s.defaults {
		fmt.Fprintf(&b, "    sample %q: %s\n", j.id, shown(j.sc.Err))
	}
	return strings.TrimRight(b.String(), "\n")
}

func fmtStat(v float64) string {
	if math.IsNaN(v) {
		return "no value (nothing scored)"
	}
	return fmt.Sprintf("%.4g", v)
}
