package assaytest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
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
func (j *Judge) RequireDataset(t TB, path string, gates ...string) []Stats {
	t.Helper()
	if j.modelErr != nil {
		t.Fatalf("%v", j.modelErr)
		return nil
	}
	if len(gates) == 0 {
		t.Fatalf("assaytest.RequireDataset: name at least one gate, such as \"faithfulness.mean>=0.7\"")
		return nil
	}
	parsed := make([]bench.Gate, 0, len(gates))
	var metrics []string
	for _, g := range gates {
		pg, err := bench.ParseGate(g)
		if err != nil {
			t.Fatalf("assaytest.RequireDataset: %v", err)
			return nil
		}
		parsed = append(parsed, pg)
		if !slices.Contains(metrics, pg.Metric) {
			metrics = append(metrics, pg.Metric)
		}
	}
	scorers, err := j.scorers(metrics)
	if err != nil {
		t.Fatalf("assaytest.RequireDataset: %v", err)
		return nil
	}
	data, err := bench.OpenDataset(path, bench.DatasetOptions{Scorers: scorers})
	if err != nil {
		t.Fatalf("assaytest.RequireDataset: %v", err)
		return nil
	}
	stats := make([]Stats, len(metrics))
	threshold := func(m string) float64 { return agent.Builtins().DefaultThreshold(m, j.model) }
	for i, m := range metrics {
		stats[i] = Stats{Metric: m, Threshold: threshold(m)}
	}
	var results []bench.Result
	err = bench.ScoreStream(j.ctx, data.Records(), scorers, j.concurrency*bench.TasksPerCall, func(_ int, rec bench.Record, scores []eval.Score) error {
		for i, sc := range scores {
			stats[i].add(rec.ID, sc)
			results = append(results, bench.Result{ID: rec.ID, Metric: sc.Metric, Value: sc.Value, Defaulted: sc.Defaulted, Skipped: sc.Skipped})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("assaytest.RequireDataset: %v", data.Err(err))
		return nil
	}
	// The figures are bench's, as `assay bench` prints them.
	summary := bench.Summary{Samples: data.Len(), Metrics: bench.Summarize(results, threshold)}
	for i := range stats {
		for _, ms := range summary.Metrics {
			if ms.Metric == stats[i].Metric {
				stats[i].fill(ms)
			}
		}
	}
	for _, s := range stats {
		if s.Defaulted > 0 {
			t.Errorf("%s on %s: %d of %d judgements defaulted, and a default passes nothing:\n%s", s.Metric, path, s.Defaulted, s.N, s.listDefaults())
		}
	}
	for _, g := range bench.CheckGates(parsed, summary) {
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
func (s *Stats) fill(ms bench.MetricStats) {
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
		fmt.Fprintf(&b, "    sample %q: %v\n", j.id, j.sc.Err)
	}
	return strings.TrimRight(b.String(), "\n")
}

func fmtStat(v float64) string {
	if math.IsNaN(v) {
		return "no value (nothing scored)"
	}
	return fmt.Sprintf("%.4g", v)
}
