package run

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"time"

	mstats "github.com/montanaflynn/stats"
	"golang.org/x/sync/errgroup"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/columns"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/stats"
)

// BootstrapResamples is how many resamples the bootstrap interval of a
// metric's mean draws, and BootstrapSeed the fixed seed that makes a
// run's summary the same however often it is computed.
const (
	BootstrapResamples = 2000
	BootstrapSeed      = 18
)

// Stats accumulates results by metric and computes a run's MetricStats
// from them. It keeps one value and one latency per scored result (16
// bytes each), never the results: a run of any length is summarised in the
// memory of its numbers. The zero value is ready to use; it is not safe
// for concurrent use.
type Stats struct {
	// Threshold returns a metric's pass threshold; nil means 0.5.
	Threshold func(metric string) float64

	order []string
	by    map[string]*metricAcc
}

type metricAcc struct {
	n, defaulted, skipped, errors int
	notEvaluable, undelivered     int
	values                        []float64
	latencies                     []float64 // nanoseconds, of results with model calls
	calls, tokensIn, tokensOut    int
	cost                          float64
	hits, cachedIn, cachedOut     int
	sampled, unstable, weak       int
	// verdicts counts the counted results a card decided (Result.Pass),
	// and passes those it passed; the others pass by their value.
	verdicts, passes int
	costUnknown      bool
	prints, seeds    string
	byValue          []float64
}

// Add counts one result.
func (s *Stats) Add(r Result) {
	if s.by == nil {
		s.by = map[string]*metricAcc{}
	}
	m := s.by[r.Metric]
	if m == nil {
		m = &metricAcc{}
		s.by[r.Metric] = m
		s.order = append(s.order, r.Metric)
	}
	m.n++
	if r.Undelivered > 0 {
		m.undelivered++
	}
	m.calls += r.Usage.Calls
	m.tokensIn += r.Usage.TokensIn
	m.tokensOut += r.Usage.TokensOut
	m.cost += r.Usage.CostUSD
	m.hits += r.Usage.CacheHits
	m.cachedIn += r.Usage.CachedTokensIn
	m.cachedOut += r.Usage.CachedTokensOut
	m.costUnknown = m.costUnknown || r.Usage.CostUnknown
	m.prints = eval.MergeSet(m.prints, r.Usage.Fingerprints)
	m.seeds = eval.MergeSet(m.seeds, r.Usage.Seeds)
	if r.Usage.Calls > 0 || r.Usage.Latency > 0 {
		m.latencies = append(m.latencies, float64(r.Usage.Latency))
	}
	// A judgement asked --samples k > 1 times (judges.Sampled) counts
	// towards self-consistency, whatever its value.
	if !r.Skipped && r.Evidence.Counts[judges.CountSamples] > 1 {
		m.sampled++
		if judges.Unstable(eval.Score{Evidence: r.Evidence}) {
			m.unstable++
		}
		if judges.WeakPass(eval.Score{Evidence: r.Evidence}) {
			m.weak++
		}
	}
	switch {
	case r.Defaulted:
		m.defaulted++
	case r.Skipped:
		m.skipped++
		if r.NotEvaluable() {
			m.notEvaluable++
		}
	default:
		// A measurement (Result.Counted), one that carries an error
		// without defaulting too: counted apart as well as scored.
		if r.Error != "" {
			m.errors++
		}
		m.values = append(m.values, r.Value)
		if r.Pass != nil {
			m.verdicts++
			if *r.Pass {
				m.passes++
			}
		} else {
			m.byValue = append(m.byValue, r.Value)
		}
	}
}

// Metrics returns one MetricStats per metric of want, in want's order
// (all zero, statistics undefined, for one not seen), so that a summary
// names every metric asked for in the order it was asked for; then any
// other metric seen, in first-seen order. The order of want never depends
// on the order the results arrived in (a parallel run's is not fixed).
func (s *Stats) Metrics(want ...string) []MetricStats {
	order := slices.Clone(want)
	for _, m := range s.order {
		if !slices.Contains(order, m) {
			order = append(order, m)
		}
	}
	// Each metric's figures (a bootstrap interval among them) are its
	// own: they are computed at once, one metric per processor.
	out := make([]MetricStats, len(order))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, name := range order {
		m := s.by[name]
		if m == nil {
			m = &metricAcc{}
		}
		g.Go(func() error {
			out[i] = m.stats(name, s.threshold(name))
			return nil
		})
	}
	_ = g.Wait() // nothing fails
	return out
}

// Defaulted is how many results, over every metric, were neutral
// defaults.
func (s *Stats) Defaulted() int {
	n := 0
	for _, m := range s.by {
		n += m.defaulted
	}
	return n
}

// Skipped is how many results, over every metric, were skipped: records
// the judge had nothing to judge in.
func (s *Stats) Skipped() int {
	n := 0
	for _, m := range s.by {
		n += m.skipped
	}
	return n
}

func (s *Stats) threshold(metric string) float64 {
	if s.Threshold == nil {
		return 0.5
	}
	return s.Threshold(metric)
}

// InConfigOrder is ms with the metrics of order first, in that order (a
// run's config.json Metrics: the order the user gave), then the others in
// their order. A summary written before its metrics kept the config's
// order (they were in the order the judgements finished) reads in it.
func InConfigOrder(ms []MetricStats, order []string) []MetricStats {
	if ms == nil {
		return nil
	}
	out := make([]MetricStats, 0, len(ms))
	for _, name := range order {
		if i := slices.IndexFunc(ms, func(m MetricStats) bool { return m.Metric == name }); i >= 0 {
			out = append(out, ms[i])
		}
	}
	for _, m := range ms {
		if !slices.Contains(order, m.Metric) {
			out = append(out, m)
		}
	}
	return out
}

// clone is a copy of s that results can be added to without changing s.
func (s *Stats) clone() Stats {
	out := Stats{Threshold: s.Threshold, order: slices.Clone(s.order), by: make(map[string]*metricAcc, len(s.by))}
	for name, m := range s.by {
		c := *m
		c.values, c.latencies, c.byValue = slices.Clone(m.values), slices.Clone(m.latencies), slices.Clone(m.byValue)
		out.by[name] = &c
	}
	return out
}

// Summarize computes the MetricStats of results, as Stats does.
func Summarize(results []Result, threshold func(metric string) float64) []MetricStats {
	s := Stats{Threshold: threshold}
	for _, r := range results {
		s.Add(r)
	}
	return s.Metrics()
}

func (m *metricAcc) stats(name string, threshold float64) MetricStats {
	nan := Num(math.NaN())
	ms := MetricStats{
		Metric: name, N: m.n, Scored: len(m.values), Defaulted: m.defaulted, Skipped: m.skipped, NotEvaluable: m.notEvaluable, Errors: m.errors,
		Undelivered: m.undelivered,
		Mean:        nan, Std: nan, Median: nan, Min: nan, Max: nan, P10: nan, CILow: nan, CIHigh: nan, PassRate: nan,
		Threshold: threshold, Calls: m.calls, TokensIn: m.tokensIn, TokensOut: m.tokensOut, CostUSD: m.cost, CostUnknown: m.costUnknown,
		Sampled: m.sampled, Unstable: m.unstable, WeakPasses: m.weak, CacheHits: m.hits, CachedTokensIn: m.cachedIn, CachedTokensOut: m.cachedOut,
		Fingerprints: m.prints, Seeds: m.seeds,
	}
	if m.n > 0 {
		ms.DefaultedRate = float64(m.defaulted) / float64(m.n)
	}
	if lat := m.latencies; len(lat) > 0 {
		ms.LatencyP50 = time.Duration(stats.Percentile(lat, 50))
		ms.LatencyP95 = time.Duration(stats.Percentile(lat, 95))
	}
	v := mstats.Float64Data(m.values)
	if len(v) == 0 {
		return ms
	}
	// The library's errors are for empty input (checked above) and for
	// statistics undefined on it (a sample deviation of one value): NaN.
	orNaN := func(x float64, err error) Num {
		if err != nil {
			return nan
		}
		return Num(x)
	}
	// Sums are taken in ascending order, not in the order the results
	// arrived, which concurrency varies: the same values give the same
	// mean to the last bit, so a rerun of the same replies is no change.
	asc := mstats.Float64Data(slices.Sorted(slices.Values(m.values)))
	ms.Mean = orNaN(mstats.Mean(asc))
	ms.Std = orNaN(mstats.StandardDeviationSample(asc))
	ms.Median = orNaN(mstats.Median(v))
	ms.Min = orNaN(mstats.Min(v))
	ms.Max = orNaN(mstats.Max(v))
	ms.P10 = Num(stats.Percentile(v, 10))
	// Resampled in sorted order, so that the interval does not depend on
	// the order the judgements finished in (a parallel run's is not fixed).
	lo, hi := stats.BootstrapMean(slices.Sorted(slices.Values(v)), BootstrapResamples, BootstrapSeed)
	ms.CILow, ms.CIHigh = Num(lo), Num(hi)
	passed := m.passes
	for _, x := range m.byValue {
		// Rounded as judge prints it and a --min floor compares it, so
		// that the count and the floor agree on a value such as 0.589088
		// under a floor of 0.58909.
		if Round(x) >= threshold {
			passed++
		}
	}
	ms.Passed = passed
	ms.PassRate = Num(float64(passed) / float64(len(v)))
	return ms
}

// FormatMetricStats writes a run's statistics as an aligned table: per
// metric the results scored of all, mean, std, median, min, max, p10, the
// bootstrap 95% interval of the mean, the pass rate at the threshold,
// defaults (count and share), skipped (and of them not_evaluable, a
// column there when some were), errors, tokens and cost paid (and the
// tokens served from the cache, when some were) and latency p50/p95. An
// undefined statistic (nothing scored) prints as "-".
func FormatMetricStats(w io.Writer, ms []MetricStats) error {
	tw := columns.New(w)
	// Tokens served from the cache have a column of their own, there only
	// when some were: "tokens in/out" and "cost USD" are what was paid.
	cached := slices.ContainsFunc(ms, func(m MetricStats) bool { return m.CacheHits > 0 })
	cachedHead := ""
	if cached {
		cachedHead = "\tcached in/out"
	}
	// Conversations that could not be judged too, when some could not.
	notEval := slices.ContainsFunc(ms, func(m MetricStats) bool { return m.NotEvaluable > 0 })
	notEvalHead := ""
	if notEval {
		notEvalHead = "\t" + eval.NotEvaluable
	}
	fmt.Fprintln(tw, "metric\tscored\tmean\tstd\tmedian\tmin\tmax\tp10\tci95\tpassed\tdefaulted\tskipped"+notEvalHead+"\terrors\ttokens in/out"+cachedHead+"\tcost USD\tlatency p50/p95")
	for _, m := range ms {
		ci := "-"
		if m.CILow.Defined() && m.CIHigh.Defined() {
			ci = fmt.Sprintf("[%.3f, %.3f]", float64(m.CILow), float64(m.CIHigh))
		}
		passed := "-"
		if m.PassRate.Defined() {
			passed = sharePct(float64(m.PassRate)) + " (>= " + m.thresholdText() + ")"
		}
		defaulted := "0"
		if m.Defaulted > 0 {
			defaulted = fmt.Sprintf("%d (%.0f%%)", m.Defaulted, 100*m.DefaultedRate)
		}
		latency := "-"
		if m.LatencyP50 > 0 || m.LatencyP95 > 0 {
			latency = m.LatencyP50.Round(time.Millisecond).String() + "/" + m.LatencyP95.Round(time.Millisecond).String()
		}
		cost := strconv.FormatFloat(m.CostUSD, 'f', 4, 64)
		if m.CostUnknown {
			cost = "unknown"
		}
		tokens := fmt.Sprintf("%d/%d", m.TokensIn, m.TokensOut)
		if cached {
			tokens += fmt.Sprintf("\t%d/%d", m.CachedTokensIn, m.CachedTokensOut)
		}
		skipped := strconv.Itoa(m.Skipped)
		if notEval {
			skipped += "\t" + strconv.Itoa(m.NotEvaluable)
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n",
			m.Metric, m.Scored, m.N, m.Mean.Text(), m.Std.Text(), m.Median.Text(), m.Min.Text(), m.Max.Text(), m.P10.Text(), ci, passed,
			defaulted, skipped, m.Errors, tokens, cost, latency)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range ms {
		if m.Sampled > 0 {
			if _, err := fmt.Fprintf(w, "%s: unstable %d of %d sampled judgement(s) (majority share below 1 or spread std above %g); weak passes %d (passed in some draws, failed in others)\n",
				m.Metric, m.Unstable, m.Sampled, judges.UnstableStd, m.WeakPasses); err != nil {
				return err
			}
		}
	}
	return nil
}

// Defined reports whether n is a number: neither NaN nor infinite.
func (n Num) Defined() bool { return !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) }

// Text is n to three places, "-" when undefined.
func (n Num) Text() string {
	if !n.Defined() {
		return "-"
	}
	return strconv.FormatFloat(float64(n), 'f', 3, 64)
}

// AddCalibration measures each metric's calibration against labels over
// the run's results.jsonl at path (read once, streamed) and sets it in s:
// Summary.Label, and MetricStats.Calibration of every metric with a scored
// value of a labelled sample (Calibrate; neutral defaults and skipped
// results are left out, as from every statistic). It keeps one value and
// one label per labelled result.
func (s *Summary) AddCalibration(path string, labels dataset.Labels) error {
	type pairs struct {
		values []float64
		labels []bool
	}
	by := map[string]*pairs{}
	err := EachResult(path, func(r Result) {
		label, ok := labels.Of(r.ID)
		if !ok || !r.Counted() {
			return
		}
		p := by[r.Metric]
		if p == nil {
			p = &pairs{}
			by[r.Metric] = p
		}
		p.values = append(p.values, r.Value)
		p.labels = append(p.labels, label)
	})
	if err != nil {
		return err
	}
	s.Label = labels.Name
	for i := range s.Metrics {
		if p := by[s.Metrics[i].Metric]; p != nil {
			s.Metrics[i].Calibration = stats.Calibrate(p.values, p.labels, CalibrationBins)
		}
	}
	return nil
}

// sharePct writes a share (0 to 1) as a whole percentage, with the
// decimals more it takes not to read as all or none when it is neither:
// 249 of 250 is 99.6%, not 100%, which a gate on pass_rate>=1 fails.
func sharePct(r float64) string {
	for prec := 0; prec < 6; prec++ {
		s := strconv.FormatFloat(100*r, 'f', prec, 64)
		v, _ := strconv.ParseFloat(s, 64)
		if (v == 100) == (r == 1) && (v == 0) == (r == 0) {
			return s + "%"
		}
	}
	return strconv.FormatFloat(100*r, 'g', -1, 64) + "%"
}

// fmtThreshold writes a threshold with as few digits as tell it apart.
func fmtThreshold(t float64) string { return strconv.FormatFloat(t, 'g', 4, 64) }

// thresholdText is m's threshold as a summary shows it: the value, and
// the grade it stands for when a judges file defines the metric ("0.75,
// grade 4 of 1-5").
func (m MetricStats) thresholdText() string {
	if m.ThresholdGrade == "" {
		return fmtThreshold(m.Threshold)
	}
	return fmtThreshold(m.Threshold) + ", " + m.ThresholdGrade
}
