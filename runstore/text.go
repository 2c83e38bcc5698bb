package runstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/assaylabs/assay/internal/encode"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
)

// documentFormats backs DocumentFormats, which hands out copies.
var documentFormats = []string{report.OutputText, report.OutputMD, report.OutputJSON, report.OutputYAML}

// DocumentFormats returns the output formats of what prints one document (a
// run, a diff): text and md render it for people, json and yaml carry
// its data with the same keys. What prints a list (of runs, of a trend's
// points) takes every one of report.OutputFormats: jsonl too, one record a line.
func DocumentFormats() []string { return slices.Clone(documentFormats) }

// rendering is what a view of the recorded runs prints in each format.
type rendering struct {
	// human writes the text rendering, or the Markdown one when md.
	human func(w io.Writer, md bool) error
	// doc is the data that json and yaml carry.
	doc any
	// records are the lines of jsonl; nil when the view is one document.
	records []any
}

// write writes r in format, one of report.OutputFormats.
func (r rendering) write(w io.Writer, format string) error {
	allowed := report.OutputFormats()
	if r.records == nil {
		allowed = documentFormats
	}
	if err := report.CheckOutputFormat(format, allowed...); err != nil {
		return err
	}
	switch format {
	case report.OutputText, report.OutputMD:
		return r.human(w, format == report.OutputMD)
	case report.OutputJSON:
		return encode.JSON(w, r.doc)
	case report.OutputYAML:
		return encode.YAMLOfJSON(w, r.doc)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, rec := range r.records {
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}

func anySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i := range s {
		out[i] = s[i]
	}
	return out
}

// Write writes the list in format (report.OutputFormats): a table (text, md),
// an array of the runs (json, yaml) or a run a line (jsonl); in the last
// three, the rows of the store that do not read back follow the runs,
// each an UnreadableRun.
func (l *RunList) Write(w io.Writer, format string) error {
	records := append(anySlice(l.Runs), anySlice(l.UnreadableRuns)...)
	return rendering{human: l.human, doc: records, records: records}.write(w, format)
}

func (l *RunList) human(w io.Writer, md bool) error {
	if len(l.Runs) == 0 {
		if len(l.Unreadable) > 0 {
			writeUnreadable(w, md, l.Unreadable)
			return nil
		}
		_, err := fmt.Fprintf(w, "no runs recorded yet in %s: assay bench records one\n", l.Store)
		return err
	}
	t := report.Table{Head: []string{"ID", "STARTED", "DATASET", "METRICS", "MEANS", "STATUS"}}
	for _, r := range l.Runs {
		// Names and means from one list, so that they line up.
		names, means := make([]string, len(r.Metrics)), make([]string, len(r.Metrics))
		for i, m := range r.Metrics {
			names[i], means[i] = m.Metric, report.Stat(m.Mean)
		}
		t.Add(r.ID, timeText(r.Started), shortDataset(r.Dataset, r.DatasetSHA256), strings.Join(names, ","), strings.Join(means, ","), r.Status)
	}
	if err := t.Write(w, md); err != nil {
		return err
	}
	writeUnreadable(w, md, l.Unreadable)
	return nil
}

// writeUnreadable says which rows of the run store do not read back.
func writeUnreadable(w io.Writer, md bool, unreadable []string) {
	if len(unreadable) == 0 {
		return
	}
	report.Heading(w, md, fmt.Sprintf("not listed: %s that %s not read back", plural.Count(len(unreadable), "run"), plural.Verb(len(unreadable), "does", "do")))
	for _, u := range unreadable {
		report.Item(w, md, u)
	}
}

// Write writes the run in format (documentFormats): its figures, gates
// and alerts (text, md), or its summary.json (json, and yaml with the
// same keys).
func (v *RunView) Write(w io.Writer, format string) error {
	return rendering{human: v.human, doc: v.Summary}.write(w, format)
}

func (v *RunView) human(w io.Writer, md bool) error {
	s := v.Summary
	head := report.Table{Rows: [][]string{
		{"run", v.ID},
		{"started", timeText(s.Started)},
		{"finished", timeText(s.Finished)},
		{"dataset", fmt.Sprintf("%s (sha256 %s)", v.Config.Dataset, v.Config.DatasetSHA256)},
		{"model", v.Config.Model},
		{"samples", fmt.Sprint(s.Samples)},
		{"cost", fmt.Sprintf("%s (%s, %s in, %d out)", s.Usage.Cost(), plural.Count(s.Usage.Calls, "call"), plural.Count(s.Usage.TokensIn, "token"), s.Usage.TokensOut)},
		{"folder", v.Dir},
		{"status", RunStatus(s)},
	}}
	if u := s.Usage; u.CacheHits > 0 {
		head.Rows = slices.Insert(head.Rows, 7, []string{"cached", fmt.Sprintf("%s served from the cache, not paid (%s in, %d out)", plural.Count(u.CacheHits, "reply"), plural.Count(u.CachedTokensIn, "token"), u.CachedTokensOut)})
	}
	if err := head.Write(w, md); err != nil {
		return err
	}
	fmt.Fprintln(w)
	// N is what was scored, defaulted and skipped (nothing to judge): the
	// last its own column when some were, so that the row adds up.
	skipped := slices.ContainsFunc(s.Metrics, func(m run.MetricStats) bool { return m.Skipped > 0 })
	cols := []string{"METRIC", "N", "SCORED", "DEFAULTED", "ERRORS", "MEAN", "STD", "MEDIAN", "MIN", "MAX", "P10", "CI95", "PASS RATE", "THRESHOLD"}
	if skipped {
		cols = slices.Insert(cols, 4, "SKIPPED")
	}
	t := report.Table{Head: cols}
	for _, m := range s.Metrics {
		row := []string{m.Metric, fmt.Sprint(m.N), fmt.Sprint(m.Scored), fmt.Sprintf("%d (%.1f%%)", m.Defaulted, 100*m.DefaultedRate), fmt.Sprint(m.Errors),
			report.Stat(m.Mean), report.Stat(m.Std), report.Stat(m.Median), report.Stat(m.Min), report.Stat(m.Max), report.Stat(m.P10),
			report.Stat(m.CILow) + ".." + report.Stat(m.CIHigh), report.Stat(m.PassRate), fmt.Sprintf("%g", m.Threshold)}
		if skipped {
			row = slices.Insert(row, 4, fmt.Sprint(m.Skipped))
		}
		t.Add(row...)
	}
	if err := t.Write(w, md); err != nil {
		return err
	}
	if len(s.Gates) > 0 {
		report.Heading(w, md, "gates")
		for _, g := range s.Gates {
			verdict := "pass"
			if !g.Passed {
				verdict = "FAIL"
			}
			line := fmt.Sprintf("%s  %s (got %s)", verdict, g.Gate, report.Stat(g.Got))
			if g.Reason != "" {
				line += ": " + g.Reason
			}
			report.Item(w, md, line)
		}
	}
	writeAlerts(w, md, s.Alerts)
	if len(s.Failed) > 0 {
		report.Heading(w, md, "failed")
		for _, f := range s.Failed {
			report.Item(w, md, f.Kind+": "+strings.ReplaceAll(f.Message, "\n", "; "))
		}
	}
	writeJudges(w, md, v.Config.Judges)
	return nil
}

func writeAlerts(w io.Writer, md bool, alerts []run.QualityAlert) {
	if len(alerts) == 0 {
		return
	}
	report.Heading(w, md, "alerts")
	for _, a := range alerts {
		report.Item(w, md, fmt.Sprintf("%s %s %s: %s (%.4f, threshold %.4f)", a.Severity, a.Type, a.Metric, a.Message, a.CurrentValue, a.Threshold))
	}
}

// Write writes the diff in format (documentFormats): its tables (text,
// md), or its data (json, yaml).
func (d *RunDiff) Write(w io.Writer, format string) error {
	return rendering{human: d.human, doc: d}.write(w, format)
}

func (d *RunDiff) human(w io.Writer, md bool) error {
	a, b := d.base, d.cur
	if a == nil || b == nil {
		return errors.New("runs diff: a RunDiff not made by Runs.Diff has no runs to show")
	}
	if md {
		return report.WriteComparisonMD(w, a.ID, b.ID, d.Comparison, d.Alerts)
	}
	report.Para(w, md, "A (baseline, control):  %s  %s  %s", a.ID, timeText(a.Summary.Started), a.Dir)
	report.Para(w, md, "B (current, treatment): %s  %s  %s", b.ID, timeText(b.Summary.Started), b.Dir)
	if a.Config.DatasetSHA256 != b.Config.DatasetSHA256 {
		report.Para(w, md, "note: the runs judged different datasets (%s, %s): only the samples with the same id are paired",
			shortDataset(a.Config.Dataset, a.Config.DatasetSHA256), shortDataset(b.Config.Dataset, b.Config.DatasetSHA256))
	}
	if note := report.SharedNote(d.Comparison); note != "" {
		report.Para(w, md, "note: %s", note)
	}
	if j := d.Comparison.Judged; len(j) > 0 {
		report.Para(w, md, "note: B was judged otherwise than A (%s): the changes measure the judge as well as the system", strings.Join(j, "; "))
	}
	for _, m := range d.Comparison.Metrics {
		if note := run.NotInBaselineNote(m); note != "" {
			report.Para(w, md, "note: %s", note)
		}
	}
	if note := run.BaselineOnlyNote(d.Comparison); note != "" {
		report.Para(w, md, "note: %s", note)
	}
	if f := d.Fingerprints; f != nil {
		report.Para(w, md, "note: the runs were served by different model builds (system_fingerprint A: %s; B: %s): the changes measure the model's build as well",
			f.Baseline, f.Current)
	}
	fmt.Fprintln(w)
	t := report.Table{Head: []string{"METRIC", "A MEAN", "B MEAN", "DELTA", "PAIRED", "P", "TEST"}}
	for _, m := range d.Comparison.Metrics {
		t.Add(m.Metric, report.Stat(m.BaselineMean), report.Stat(m.CurrentMean), report.Signed(m.Delta), fmt.Sprint(m.Paired), report.PText(m.P), m.Test)
	}
	if err := t.Write(w, md); err != nil {
		return err
	}
	report.Heading(w, md, "paired (samples both runs scored)")
	if err := pairedTable(d.Comparison).Write(w, md); err != nil {
		return err
	}
	report.Heading(w, md, "A/B analysis (seed 002; control A, treatment B)")
	if err := d.abTable().Write(w, md); err != nil {
		return err
	}
	for _, m := range d.Comparison.Metrics {
		for _, way := range []string{run.FlipFails, run.FlipPasses} {
			n, listed := report.Flips(m, way)
			if n == 0 {
				continue
			}
			report.Heading(w, md, fmt.Sprintf("%s, %s (%d)", m.Metric, report.FlipTitle(way), n))
			for _, f := range listed[:min(len(listed), TextListed)] {
				report.Item(w, md, changeText(f))
			}
			if more := n - min(len(listed), TextListed); more > 0 {
				report.Item(w, md, fmt.Sprintf("and %d more (--format json lists %d)", more, min(n, run.MaxFlipped)))
			}
		}
	}
	for _, m := range d.Comparison.Metrics {
		if len(m.Moved) == 0 {
			continue
		}
		report.Heading(w, md, "moved most, "+m.Metric)
		for _, f := range m.Moved {
			report.Item(w, md, changeText(f))
		}
	}
	writeAlerts(w, md, d.Alerts)
	return nil
}

// TextListed is how many of the samples that flipped each way a diff
// lists in text; --format json lists MaxFlipped.
const TextListed = 20

// pairedTable is each metric's paired figures: the mean difference and
// its interval, the flips each way and McNemar's test on them.
func pairedTable(c *run.Comparison) report.Table {
	t := report.Table{Head: []string{"METRIC", "PAIRED", "MEAN DIFF", "CI95", "NOW FAILING", "NOW PASSING", "MCNEMAR P", "MID-P"}}
	for _, m := range c.Metrics {
		t.Add(m.Metric, fmt.Sprint(m.Paired), report.Signed(m.MeanDiff), report.Interval(m.DiffLow, m.DiffHigh),
			fmt.Sprint(m.NowFailing), fmt.Sprint(m.NowPassing), report.PText(m.FlipP), report.PText(m.FlipMidP))
	}
	return t
}

// changeText is a sample's change: its id, both values and the change.
func changeText(f run.SampleChange) string {
	return fmt.Sprintf("%s  %.4f -> %.4f (%s)", f.ID, f.Baseline, f.Current, report.SignedPlaces(f.Current-f.Baseline, 4))
}

// abTable is seed 002's A/B analysis, a metric a row, with the paired
// test's verdict beside the seed's rule.
func (d *RunDiff) abTable() report.Table {
	t := report.Table{Head: []string{"METRIC", "CONTROL N", "TREATMENT N", "CONTROL MEAN", "TREATMENT MEAN", "IMPROVEMENT",
		"LATENCY A", "LATENCY B", "LATENCY CHANGE", "SEED RULE (N>=100 EACH)", "PAIRED TEST (P<0.05)"}}
	for _, r := range d.AB {
		an := r.Analysis
		rule := "not significant"
		if an.IsSignificant {
			rule = "significant"
		}
		test := "-"
		if p := float64(r.P); !math.IsNaN(p) {
			test = "not significant"
			if r.Significant {
				test = "significant"
			}
			if ps := report.PText(r.P); strings.HasPrefix(ps, "<") {
				test += " (p" + ps + ")"
			} else {
				test += " (p=" + ps + ")"
			}
		}
		t.Add(r.Metric, fmt.Sprint(an.ControlSampleSize), fmt.Sprint(an.TreatmentSampleSize), fmt.Sprintf("%.4f", an.ControlAvgQuality),
			fmt.Sprintf("%.4f", an.TreatmentAvgQuality), pctText(an.QualityImprovement), fmt.Sprintf("%.0fms", an.ControlAvgLatency),
			fmt.Sprintf("%.0fms", an.TreatmentAvgLatency), pctText(an.LatencyChange), rule, test)
	}
	return t
}

// Write writes the trend in format (report.OutputFormats): a table of the
// points with a bar each, those judged otherwise than the point before
// marked (text, md), the trend (json, yaml) or a point a line (jsonl).
func (t *Trend) Write(w io.Writer, format string) error {
	return rendering{human: t.human, doc: t, records: anySlice(t.Points)}.write(w, format)
}

func (t *Trend) human(w io.Writer, md bool) error {
	tab := report.Table{Head: []string{"STARTED", "RUN", strings.ToUpper(t.Metric) + " MEAN", "SCORED", "CHANGE", "MEAN (# = 0.05)"}}
	prev := math.NaN()
	judged := false
	for _, p := range t.Points {
		mean := float64(p.Mean)
		change := ""
		if !math.IsNaN(prev) && !math.IsNaN(mean) {
			change = report.SignedPlaces(mean-prev, 4)
		}
		bar := ""
		if !math.IsNaN(mean) {
			// A mean outside [0, 1] (a run of a scorer of one's own, a
			// folder edited by hand) is drawn at the edge it passed.
			bar = strings.Repeat("#", int(math.Round(20*min(max(mean, 0), 1))))
			prev = mean
		}
		folder := p.RunID
		if len(p.Judged) > 0 {
			folder, judged = folder+" *", true
		}
		tab.Add(timeText(p.Started), folder, report.Stat(p.Mean), fmt.Sprintf("%d/%d", p.Scored, p.N), change, bar)
	}
	if err := tab.Write(w, md); err != nil {
		return err
	}
	writeUnreadable(w, md, t.Unreadable)
	if !judged {
		return nil
	}
	report.Heading(w, md, "* judged otherwise than the run before it, so its change measures the judge as well")
	for _, p := range t.Points {
		if len(p.Judged) > 0 {
			report.Item(w, md, p.RunID+": "+strings.Join(p.Judged, "; "))
		}
	}
	return nil
}

// pctText is a relative change as a signed percentage, "-" when undefined.
func pctText(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}

func timeText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// writeJudges writes the part of `assay runs show` that says, of each
// judge defined in a judges file or a profile, its version and the steps
// its judgements followed.
func writeJudges(w io.Writer, md bool, recs []judges.StepsRecord) {
	if len(recs) == 0 {
		return
	}
	report.Heading(w, md, "judges you defined")
	for _, r := range recs {
		whose := "its own steps"
		if r.Generated {
			whose = "steps the model wrote from the criterion"
		}
		steps := make([]string, len(r.Steps))
		for i, st := range r.Steps {
			steps[i] = fmt.Sprintf("%d. %s", i+1, st)
		}
		report.Item(w, md, fmt.Sprintf("%s (version %s), %s: %s", r.Name, r.Version, whose, strings.Join(steps, " ")))
	}
}
