package bench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/assaylabs/assay/eval"
)

// MetricSummary aggregates one metric's scores over a run, the way RAGAS
// reports a mean per metric and DeepEval a pass rate, but with the judge
// failures and the records with nothing to judge kept apart: a neutral
// default is counted in Defaulted, a skipped record (eval.Score.Skipped)
// in Skipped, and both are left out of Mean, Min and Passed, never
// averaged in.
type MetricSummary struct {
	Metric string
	// N is the number of scores; Scored of them were neither defaulted
	// nor skipped.
	N, Scored, Defaulted, Skipped int
	// Mean and Min are over the Scored values; both are NaN when Scored is
	// 0, and FormatSummaries prints them as "-".
	Mean, Min float64
	// Passed counts Scored values at or above Threshold.
	Passed    int
	Threshold float64
}

// Tally accumulates scores by metric, in the order metrics first appear.
// The zero value is ready to use; it is not safe for concurrent use.
type Tally struct {
	// Threshold returns the pass threshold of a metric; nil means 0.5.
	Threshold func(metric string) float64

	order []string
	by    map[string]*tallied
}

type tallied struct {
	n, defaulted, skipped, passed int
	sum, min                      float64
}

// Add counts one score.
func (t *Tally) Add(s eval.Score) {
	if t.by == nil {
		t.by = map[string]*tallied{}
	}
	m := t.by[s.Metric]
	if m == nil {
		m = &tallied{min: math.Inf(1)}
		t.by[s.Metric] = m
		t.order = append(t.order, s.Metric)
	}
	m.n++
	switch {
	case s.Defaulted:
		m.defaulted++
		return
	case s.Skipped:
		m.skipped++
		return
	}
	m.sum += s.Value
	m.min = min(m.min, s.Value)
	if s.Value >= t.threshold(s.Metric) {
		m.passed++
	}
}

func (t *Tally) threshold(metric string) float64 {
	if t.Threshold == nil {
		return 0.5
	}
	return t.Threshold(metric)
}

// Defaulted is how many of the scores, over every metric, were neutral
// defaults.
func (t *Tally) Defaulted() int {
	n := 0
	for _, m := range t.by {
		n += m.defaulted
	}
	return n
}

// Skipped is how many of the scores, over every metric, were skipped:
// records the judge had nothing to judge in.
func (t *Tally) Skipped() int {
	n := 0
	for _, m := range t.by {
		n += m.skipped
	}
	return n
}

// Summaries returns one MetricSummary per metric seen, in first-seen order.
func (t *Tally) Summaries() []MetricSummary {
	out := make([]MetricSummary, 0, len(t.order))
	for _, name := range t.order {
		m := t.by[name]
		s := MetricSummary{Metric: name, N: m.n, Scored: m.n - m.defaulted - m.skipped, Defaulted: m.defaulted, Skipped: m.skipped,
			Passed: m.passed, Threshold: t.threshold(name), Mean: math.NaN(), Min: math.NaN()}
		if s.Scored > 0 {
			s.Mean, s.Min = m.sum/float64(s.Scored), m.min
		}
		out = append(out, s)
	}
	return out
}

// FormatSummaries writes the summaries as an aligned table. A "skipped"
// column follows "defaulted" when any record was skipped; a run without
// one keeps the table it always had.
func FormatSummaries(w io.Writer, ss []MetricSummary) error {
	skipped := slices.ContainsFunc(ss, func(s MetricSummary) bool { return s.Skipped > 0 })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "metric\tscored\tmean\tmin\tpassed\tdefaulted")
	if skipped {
		fmt.Fprint(tw, "\tskipped")
	}
	fmt.Fprintln(tw)
	for _, s := range ss {
		mean, low, passed := "-", "-", "-"
		if s.Scored > 0 {
			mean, low = fmt.Sprintf("%.3f", s.Mean), fmt.Sprintf("%.3f", s.Min)
			passed = fmt.Sprintf("%d/%d (>= %s)", s.Passed, s.Scored, fmtThreshold(s.Threshold))
		}
		defaulted := "0"
		if s.Defaulted > 0 {
			// The rate beside the count: a mean over few scored records
			// reads differently from one over most of them.
			defaulted = fmt.Sprintf("%d (%.0f%%)", s.Defaulted, 100*float64(s.Defaulted)/float64(s.N))
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\t%s", s.Metric, s.Scored, s.N, mean, low, passed, defaulted)
		if skipped {
			fmt.Fprintf(tw, "\t%d", s.Skipped)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
