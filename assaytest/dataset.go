package assaytest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
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
	parsed := make([]gate, 0, len(gates))
	var metrics []string
	for _, g := range gates {
		pg, err := parseGate(g)
		if err != nil {
			t.Fatalf("assaytest.RequireDataset: %v", err)
			return nil
		}
		parsed = append(parsed, pg)
		if !slices.Contains(metrics, pg.metric) {
			metrics = append(metrics, pg.metric)
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
	for i, m := range metrics {
		stats[i] = Stats{Metric: m, Threshold: judges.DefaultThreshold(m, j.model)}
	}
	err = bench.ScoreStream(j.ctx, data.Records(), scorers, j.concurrency*bench.TasksPerCall, func(_ int, rec bench.Record, scores []eval.Score) error {
		for i, sc := range scores {
			stats[i].add(rec.ID, sc)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("assaytest.RequireDataset: %v", data.Err(err))
		return nil
	}
	for i := range stats {
		stats[i].summarise()
	}
	for _, s := range stats {
		if s.Defaulted > 0 {
			t.Errorf("%s on %s: %d of %d judgements defaulted, and a default passes nothing:\n%s", s.Metric, path, s.Defaulted, s.N, s.listDefaults())
		}
	}
	for _, g := range parsed {
		s := stats[slices.Index(metrics, g.metric)]
		got := s.stat(g.stat)
		if !math.IsNaN(got) && compare(got, g.op, g.want) {
			continue
		}
		t.Errorf("gate %s on %s: got %s (%d scored, %d defaulted, %d skipped of %d)\n%s",
			g.text, path, fmtStat(got), s.Scored, s.Defaulted, s.Skipped, s.N, s.listLowest(3))
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

	values []float64
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
	s.values = append(s.values, sc.Value)
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

// summarise computes the statistics from the values, once all are added.
func (s *Stats) summarise() {
	if len(s.values) == 0 {
		s.Mean, s.Min, s.Max, s.Median, s.P10, s.PassRate = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return
	}
	v := slices.Sorted(slices.Values(s.values))
	sum, pass := 0.0, 0
	for _, x := range v {
		sum += x
		if x >= s.Threshold {
			pass++
		}
	}
	n := float64(len(v))
	s.Mean, s.Min, s.Max = sum/n, v[0], v[len(v)-1]
	s.Median, s.P10 = quantile(v, 0.5), quantile(v, 0.1)
	s.PassRate = float64(pass) / n
}

// quantile is the q-quantile of sorted values, interpolated linearly
// between the closest ranks.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// stat is the named statistic; NaN when nothing was scored (a gate on it
// then fails).
func (s Stats) stat(name string) float64 {
	if s.Scored == 0 && name != "defaulted" && name != "defaulted_rate" {
		return math.NaN()
	}
	switch name {
	case "mean":
		return s.Mean
	case "min":
		return s.Min
	case "max":
		return s.Max
	case "median":
		return s.Median
	case "p10":
		return s.P10
	case "pass_rate":
		return s.PassRate
	case "defaulted":
		return float64(s.Defaulted)
	case "defaulted_rate":
		if s.N == 0 {
			return math.NaN()
		}
		return float64(s.Defaulted) / float64(s.N)
	}
	return math.NaN()
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

// gate is one parsed "METRIC.STAT OP NUMBER".
type gate struct {
	text, metric, stat, op string
	want                   float64
}

// stats are the statistics a gate may name.
var stats = []string{"mean", "min", "max", "median", "p10", "pass_rate", "defaulted", "defaulted_rate"}

// parseGate reads a gate as `assay bench --gate` does: METRIC.STAT OP
// NUMBER. It is kept apart and small; the bench package's own gate parser
// is the one to use once it is there.
func parseGate(text string) (gate, error) {
	bad := fmt.Errorf("gate %q: want METRIC.STAT OP NUMBER, such as \"faithfulness.mean>=0.7\" (STAT: %s; OP: >=, >, <=, <)", text, strings.Join(stats, ", "))
	c, err := parseCheck(text, nil)
	if err != nil || !strings.ContainsAny(text, "<>") {
		return gate{}, bad
	}
	metric, stat, ok := strings.Cut(c.metric, ".")
	if !ok || metric == "" {
		return gate{}, bad
	}
	if !slices.Contains(stats, stat) {
		return gate{}, fmt.Errorf("gate %q: unknown statistic %q (have %s)", text, stat, strings.Join(stats, ", "))
	}
	return gate{text: c.text, metric: metric, stat: stat, op: c.op, want: c.want}, nil
}
