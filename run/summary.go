package run

import (
	"fmt"
	"io"
	"slices"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/columns"
)

// FormatBrief writes the stats as a compact aligned table, the summary
// `assay judge` prints. A "skipped" column follows "defaulted" when any
// record was skipped, and a "not_evaluable" one (of them, conversations
// that could not be judged) when any was that; a run without one keeps
// the table it always had.
func FormatBrief(w io.Writer, ss []MetricStats) error {
	skipped := slices.ContainsFunc(ss, func(s MetricStats) bool { return s.Skipped > 0 })
	notEval := slices.ContainsFunc(ss, func(s MetricStats) bool { return s.NotEvaluable > 0 })
	tw := columns.New(w)
	fmt.Fprint(tw, "metric\tscored\tmean\tmin\tpassed\tdefaulted")
	if skipped {
		fmt.Fprint(tw, "\tskipped")
	}
	if notEval {
		fmt.Fprint(tw, "\t"+eval.NotEvaluable)
	}
	fmt.Fprintln(tw)
	for _, s := range ss {
		mean, low, passed := "-", "-", "-"
		if s.Scored > 0 {
			mean, low = fmt.Sprintf("%.3f", float64(s.Mean)), fmt.Sprintf("%.3f", float64(s.Min))
			passed = fmt.Sprintf("%d/%d (>= %s)", s.Passed, s.Scored, s.thresholdText())
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
		if notEval {
			fmt.Fprintf(tw, "\t%d", s.NotEvaluable)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
