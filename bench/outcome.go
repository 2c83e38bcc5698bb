package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
)

// Write prints the outcome as `assay bench` shows it: the summary table
// on out; on log the baseline comparison, the calibration, what the model
// client did, where the run is, and each gate and alert that failed. A
// dry run prints its plan on out.
func (o *Outcome) Write(out, log io.Writer) error {
	if o.Plan != nil {
		o.Plan.Write(out)
		return nil
	}
	if o.StoreErr != nil {
		// The store's own errors name it already: said once.
		msg := o.StoreErr.Error()
		if !strings.HasPrefix(msg, "run store") {
			msg = "run store: " + msg
		}
		fmt.Fprintf(log, "assay: %s (the run folder %s has the run)\n", msg, o.Dir)
	}
	if o.writeBudget(log) {
		// The budget stopped calls: the figures are mostly neutral
		// defaults, no measurement; what the run did is all there is.
		o.Report.Write(log)
		fmt.Fprintf(log, "bench: run %s in %s\n", o.Config.RunID, o.Dir)
		return nil
	}
	if err := run.FormatMetricStats(out, o.Summary.Metrics); err != nil {
		return err
	}
	o.writeBaseline(log)
	for _, m := range o.Summary.Metrics {
		if c := m.Calibration; c != nil {
			fmt.Fprintf(log, "bench: %s against %s: Brier %.3f, ECE %.3f (reliability diagram in %s)\n", m.Metric, o.Summary.Label, c.Brier, c.ECE, run.FileReport)
		}
	}
	o.Report.Write(log)
	o.writeRunUsage(log)
	for _, r := range o.Undelivered {
		fmt.Fprintf(log, "bench: undelivered: sample %s, %s, after %d deliveries: %s\n", r.ID, r.Metric, r.Undelivered, r.Error)
	}
	fmt.Fprintf(log, "bench: run %s in %s\n", o.Config.RunID, o.Dir)
	for _, n := range o.Summary.Notices {
		fmt.Fprintf(log, "bench: notice: %s (%.3f)\n", n.Message, n.CurrentValue)
	}
	for _, f := range o.Failures {
		if f.Kind == judging.FailGate || f.Kind == judging.FailAlert {
			fmt.Fprintf(log, "assay: %v\n", f.Err)
		}
	}
	return nil
}

// writeRunUsage prints, for a resumed run, what the run's results paid in
// all, its earlier attempts with this one, as summary.json and the table
// above count it: the judge's line before it is this attempt's alone.
func (o *Outcome) writeRunUsage(w io.Writer) {
	if o.Kept == 0 && o.Redo == 0 {
		return
	}
	u := o.Summary.Usage
	fmt.Fprintf(w, "bench: the run in all, its earlier attempts with this one: calls %d, tokens %d in / %d out, cost %s (the line above is this attempt's)\n",
		u.Calls, u.TokensIn, u.TokensOut, u.Cost())
}

// writeBaseline prints the comparison with the baseline, metric by
// metric, or why there was none.
func (o *Outcome) writeBaseline(w io.Writer) {
	if o.NoBaseline != "" {
		fmt.Fprintf(w, "bench: %s\n", o.NoBaseline)
	}
	c := o.Summary.Baseline
	if c == nil {
		return
	}
	// The baseline's id and model come from its folder's config.json:
	// data, printed with its control characters escaped (termtext.Visible).
	fmt.Fprintf(w, "bench: against baseline %s:\n", termtext.Visible(c.BaselineRunID))
	if note := report.SharedNote(c); note != "" {
		fmt.Fprintf(w, "  %s\n", note)
	}
	for _, j := range c.Judged {
		fmt.Fprintf(w, "  judged otherwise: %s; the change measures the judge too\n", termtext.Visible(j))
	}
	for _, m := range c.Metrics {
		if note := run.NotInBaselineNote(m); note != "" {
			fmt.Fprintf(w, "  %-24s - -> %s: %s\n", termtext.Visible(m.Metric), m.CurrentMean.Text(), termtext.Visible(note))
			continue
		}
		p := "-"
		if !math.IsNaN(float64(m.P)) {
			p = strconv.FormatFloat(float64(m.P), 'g', 3, 64)
		}
		flips := ""
		if m.NowFailing+m.NowPassing > 0 {
			flips = fmt.Sprintf(", %d now failing, %d now passing", m.NowFailing, m.NowPassing)
		}
		fmt.Fprintf(w, "  %-24s %s -> %s (delta %s), %d paired, p %s%s\n", termtext.Visible(m.Metric), m.BaselineMean.Text(), m.CurrentMean.Text(), signed(m.Delta), m.Paired, p, flips)
	}
	if note := run.BaselineOnlyNote(c); note != "" {
		fmt.Fprintf(w, "  %s\n", termtext.Visible(note))
	}
}

// signed is a delta with its sign: +0.012, -0.300.
func signed(n run.Num) string {
	if !n.Defined() {
		return "-"
	}
	return report.SignedPlaces(float64(n), 3)
}

// writeBudget leads the output of a run whose cost budget (--max-cost)
// refused calls with what the run did before it, and reports whether it
// did: the judgements made, what they cost, the calls not made, and how
// to go on. Such a run prints no table: its values are mostly defaults.
func (o *Outcome) writeBudget(w io.Writer) bool {
	if !slices.ContainsFunc(o.Failures, func(f judging.Failure) bool { return f.Kind == judging.FailBudget }) {
		return false
	}
	pairs, scored, defaulted := 0, 0, 0
	for _, m := range o.Summary.Metrics {
		pairs += m.N
		scored += m.Scored
		defaulted += m.Defaulted
	}
	u := o.Report.Usage
	spent := fmt.Sprintf("spent %s on %d call(s)", u.Cost(), u.Calls)
	if o.Kept > 0 || o.Redo > 0 {
		// The budget bounds the run in all, earlier attempts included.
		all := o.Summary.Usage
		spent = fmt.Sprintf("the run spent %s on %d call(s) in all, %s on %d in this attempt", all.Cost(), all.Calls, u.Cost(), u.Calls)
	}
	fmt.Fprintf(w, "bench: stopped by --max-cost $%s: %s, then made no more; %d of %d judgement(s) scored, %d fell back to the neutral default (no summary table: its figures would be mostly defaults)\n",
		strconv.FormatFloat(o.MaxCost, 'f', -1, 64), spent, scored, pairs, defaulted)
	fmt.Fprintf(w, "bench: go on with --resume --out %s and a larger --max-cost: only the %d default(s) are judged again\n", o.Dir, defaulted)
	return true
}

// WriteBaselineMarkdown writes the run's comparison with its baseline
// (assay bench --baseline) as the Markdown summary `assay runs diff
// --format md` writes; nothing when the run had no baseline.
func (o *Outcome) WriteBaselineMarkdown(w io.Writer) error {
	c := o.Summary.Baseline
	if c == nil {
		return nil
	}
	return report.WriteComparisonMD(w, c.BaselineRunID, o.Config.RunID, c, o.Summary.Alerts)
}

// appendSummaryMD appends o's baseline summary to the file at path, when
// both are there.
func appendSummaryMD(path string, o *Outcome) (err error) {
	if path == "" || o.Summary.Baseline == nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("--summary-md: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("--summary-md: %w", cerr)
		}
	}()
	return o.WriteBaselineMarkdown(f)
}
