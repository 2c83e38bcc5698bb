package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/assaylabs/assay/internal/encode"
	"github.com/assaylabs/assay/run"
)

// DocumentFormats are the output formats of what prints one document (a
// run, a diff): text and md render it for people, json and yaml carry
// its data with the same keys. What prints a list (of runs, of a trend's
// points) takes every one of OutputFormats: jsonl too, one record a line.
var DocumentFormats = []string{run.OutputText, run.OutputMD, run.OutputJSON, run.OutputYAML}

// rendering is what a view of the recorded runs prints in each format.
type rendering struct {
	// human writes the text rendering, or the Markdown one when md.
	human func(w io.Writer, md bool) error
	// doc is the data that json and yaml carry.
	doc any
	// records are the lines of jsonl; nil when the view is one document.
	records []any
}

// write writes r in format, one of OutputFormats.
func (r rendering) write(w io.Writer, format string) error {
	allowed := run.OutputFormats
	if r.records == nil {
		allowed = DocumentFormats
	}
	if err := run.CheckOutputFormat(format, allowed...); err != nil {
		return err
	}
	switch format {
	case run.OutputText, run.OutputMD:
		return r.human(w, format == run.OutputMD)
	case run.OutputJSON:
		return encode.JSON(w, r.doc)
	case run.OutputYAML:
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

// Write writes the list in format (OutputFormats): a table (text, md),
// an array of the runs (json, yaml) or a run a line (jsonl).
func (l *RunList) Write(w io.Writer, format string) error {
	return rendering{human: l.human, doc: l.Runs, records: anySlice(l.Runs)}.write(w, format)
}

func (l *RunList) human(w io.Writer, md bool) error {
	if len(l.Runs) == 0 {
		_, err := fmt.Fprintf(w, "no runs recorded yet in %s: assay bench records one\n", l.Store)
		return err
	}
	t := table{head: []string{"ID", "STARTED", "DATASET", "METRICS", "MEANS", "STATUS"}}
	for _, r := range l.Runs {
		// Names and means from one list, so that they line up.
		names, means := make([]string, len(r.Metrics)), make([]string, len(r.Metrics))
		for i, m := range r.Metrics {
			names[i], means[i] = m.Metric, statText(m.Mean)
		}
		t.add(r.ID, timeText(r.Started), shortDataset(r.Dataset, r.DatasetSHA256), strings.Join(names, ","), strings.Join(means, ","), r.Status)
	}
	return t.write(w, md)
}

// Write writes the run in format (DocumentFormats): its figures, gates
// and alerts (text, md), or its summary.json (json, and yaml with the
// same keys).
func (v *RunView) Write(w io.Writer, format string) error {
	return rendering{human: v.human, doc: v.Summary}.write(w, format)
}

func (v *RunView) human(w io.Writer, md bool) error {
	s := v.Summary
	head := table{rows: [][]string{
		{"run", v.ID},
		{"started", timeText(s.Started)},
		{"finished", timeText(s.Finished)},
		{"dataset", fmt.Sprintf("%s (sha256 %s)", v.Config.Dataset, v.Config.DatasetSHA256)},
		{"model", v.Config.Model},
		{"samples", fmt.Sprint(s.Samples)},
		{"cost", fmt.Sprintf("%s (%d calls, %d tokens in, %d out)", s.Usage.Cost(), s.Usage.Calls, s.Usage.TokensIn, s.Usage.TokensOut)},
		{"folder", v.Dir},
		{"status", RunStatus(s)},
	}}
	if u := s.Usage; u.CacheHits > 0 {
		head.rows = slices.Insert(head.rows, 7, []string{"cached", fmt.Sprintf("%d replies served from the cache, not paid (%d tokens in, %d out)", u.CacheHits, u.CachedTokensIn, u.CachedTokensOut)})
	}
	if err := head.write(w, md); err != nil {
		return err
	}
	fmt.Fprintln(w)
	t := table{head: []string{"METRIC", "N", "SCORED", "DEFAULTED", "ERRORS", "MEAN", "STD", "MEDIAN", "MIN", "MAX", "P10", "CI95", "PASS RATE", "THRESHOLD"}}
	for _, m := range s.Metrics {
		t.add(m.Metric, fmt.Sprint(m.N), fmt.Sprint(m.Scored), fmt.Sprintf("%d (%.1f%%)", m.Defaulted, 100*m.DefaultedRate), fmt.Sprint(m.Errors),
			statText(m.Mean), statText(m.Std), statText(m.Median), statText(m.Min), statText(m.Max), statText(m.P10),
			statText(m.CILow)+".."+statText(m.CIHigh), statText(m.PassRate), fmt.Sprintf("%g", m.Threshold))
	}
	if err := t.write(w, md); err != nil {
		return err
	}
	if len(s.Gates) > 0 {
		heading(w, md, "gates")
		for _, g := range s.Gates {
			verdict := "pass"
			if !g.Passed {
				verdict = "FAIL"
			}
			line := fmt.Sprintf("%s  %s (got %s)", verdict, g.Gate, statText(g.Got))
			if g.Reason != "" {
				line += ": " + g.Reason
			}
			item(w, md, line)
		}
	}
	writeAlerts(w, md, s.Alerts)
	writeJudges(w, md, v.Config.Judges)
	return nil
}

func writeAlerts(w io.Writer, md bool, alerts []run.QualityAlert) {
	if len(alerts) == 0 {
		return
	}
	heading(w, md, "alerts")
	for _, a := range alerts {
		item(w, md, fmt.Sprintf("%s %s %s: %s (%.4f, threshold %.4f)", a.Severity, a.Type, a.Metric, a.Message, a.CurrentValue, a.Threshold))
	}
}

// Write writes the diff in format (DocumentFormats): its tables (text,
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
		return writeComparisonMD(w, a.ID, b.ID, d.Comparison, d.Alerts)
	}
	para(w, md, "A (baseline, control):  %s  %s  %s", a.ID, timeText(a.Summary.Started), a.Dir)
	para(w, md, "B (current, treatment): %s  %s  %s", b.ID, timeText(b.Summary.Started), b.Dir)
	if a.Config.DatasetSHA256 != b.Config.DatasetSHA256 {
		para(w, md, "note: the runs judged different datasets (%s, %s): only the samples with the same id are paired",
			shortDataset(a.Config.Dataset, a.Config.DatasetSHA256), shortDataset(b.Config.Dataset, b.Config.DatasetSHA256))
	}
	if note := sharedNote(d.Comparison); note != "" {
		para(w, md, "note: %s", note)
	}
	if j := d.Comparison.Judged; len(j) > 0 {
		para(w, md, "note: B was judged otherwise than A (%s): the changes measure the judge as well as the system", strings.Join(j, "; "))
	}
	fmt.Fprintln(w)
	t := table{head: []string{"METRIC", "A MEAN", "B MEAN", "DELTA", "PAIRED", "P", "TEST"}}
	for _, m := range d.Comparison.Metrics {
		t.add(m.Metric, statText(m.BaselineMean), statText(m.CurrentMean), signedText(m.Delta), fmt.Sprint(m.Paired), statText(m.P), m.Test)
	}
	if err := t.write(w, md); err != nil {
		return err
	}
	heading(w, md, "paired (samples both runs scored)")
	if err := pairedTable(d.Comparison).write(w, md); err != nil {
		return err
	}
	heading(w, md, "A/B analysis (seed 002; control A, treatment B)")
	if err := d.abTable().write(w, md); err != nil {
		return err
	}
	for _, m := range d.Comparison.Metrics {
		for _, way := range []string{run.FlipFails, run.FlipPasses} {
			n, listed := flipsOf(m, way)
			if n == 0 {
				continue
			}
			heading(w, md, fmt.Sprintf("%s, %s (%d)", m.Metric, flipTitle(way), n))
			for _, f := range listed[:min(len(listed), TextListed)] {
				item(w, md, changeText(f))
			}
			if more := n - min(len(listed), TextListed); more > 0 {
				item(w, md, fmt.Sprintf("and %d more (--format json lists %d)", more, min(n, run.MaxFlipped)))
			}
		}
	}
	for _, m := range d.Comparison.Metrics {
		if len(m.Moved) == 0 {
			continue
		}
		heading(w, md, "moved most, "+m.Metric)
		for _, f := range m.Moved {
			item(w, md, changeText(f))
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
func pairedTable(c *run.Comparison) table {
	t := table{head: []string{"METRIC", "PAIRED", "MEAN DIFF", "CI95", "NOW FAILING", "NOW PASSING", "MCNEMAR P", "MID-P"}}
	for _, m := range c.Metrics {
		t.add(m.Metric, fmt.Sprint(m.Paired), signedText(m.MeanDiff), ciText(m.DiffLow, m.DiffHigh),
			fmt.Sprint(m.NowFailing), fmt.Sprint(m.NowPassing), statText(m.FlipP), statText(m.FlipMidP))
	}
	return t
}

// sharedNote says, when a run has samples the other lacks, what the
// comparison is over; "" when both have the same samples.
func sharedNote(c *run.Comparison) string {
	if c.OnlyBaseline+c.OnlyCurrent == 0 {
		return ""
	}
	return fmt.Sprintf("compared on the %d sample(s) both runs have; A has %d that B lacks, B has %d that A lacks", c.Shared, c.OnlyBaseline, c.OnlyCurrent)
}

// flipsOf is how many of m's samples flipped way, and those listed.
func flipsOf(m run.MetricComparison, way string) (int, []run.SampleChange) {
	var listed []run.SampleChange
	for _, f := range m.Flipped {
		if f.Flip == way {
			listed = append(listed, f)
		}
	}
	if way == run.FlipFails {
		return m.NowFailing, listed
	}
	return m.NowPassing, listed
}

// flipTitle names a way of flipping.
func flipTitle(way string) string {
	if way == run.FlipFails {
		return "now failing (passed in A)"
	}
	return "now passing (failed in A)"
}

// changeText is a sample's change: its id, both values and the change.
func changeText(f run.SampleChange) string {
	return fmt.Sprintf("%s  %.4f -> %.4f (%+.4f)", f.ID, f.Baseline, f.Current, f.Current-f.Baseline)
}

// signedText is a statistic with its sign, "-" when undefined.
func signedText(n run.Num) string {
	if !n.Defined() {
		return "-"
	}
	return fmt.Sprintf("%+.4f", float64(n))
}

// ciText is an interval, "-" when undefined.
func ciText(lo, hi run.Num) string {
	if !lo.Defined() || !hi.Defined() {
		return "-"
	}
	return fmt.Sprintf("%+.4f..%+.4f", float64(lo), float64(hi))
}

// abTable is seed 002's A/B analysis, a metric a row, with the paired
// test's verdict beside the seed's rule.
func (d *RunDiff) abTable() table {
	t := table{head: []string{"METRIC", "CONTROL N", "TREATMENT N", "CONTROL MEAN", "TREATMENT MEAN", "IMPROVEMENT",
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
			test += fmt.Sprintf(" (p=%.4f)", p)
		}
		t.add(r.Metric, fmt.Sprint(an.ControlSampleSize), fmt.Sprint(an.TreatmentSampleSize), fmt.Sprintf("%.4f", an.ControlAvgQuality),
			fmt.Sprintf("%.4f", an.TreatmentAvgQuality), pctText(an.QualityImprovement), fmt.Sprintf("%.0fms", an.ControlAvgLatency),
			fmt.Sprintf("%.0fms", an.TreatmentAvgLatency), pctText(an.LatencyChange), rule, test)
	}
	return t
}

// Write writes the trend in format (OutputFormats): a table of the
// points with a bar each, those judged otherwise than the point before
// marked (text, md), the trend (json, yaml) or a point a line (jsonl).
func (t *Trend) Write(w io.Writer, format string) error {
	return rendering{human: t.human, doc: t, records: anySlice(t.Points)}.write(w, format)
}

func (t *Trend) human(w io.Writer, md bool) error {
	tab := table{head: []string{"STARTED", "RUN", strings.ToUpper(t.Metric) + " MEAN", "SCORED", "CHANGE"}}
	prev := math.NaN()
	judged := false
	for _, p := range t.Points {
		mean := float64(p.Mean)
		change := ""
		if !math.IsNaN(prev) && !math.IsNaN(mean) {
			change = fmt.Sprintf("%+.4f", mean-prev)
		}
		bar := ""
		if !math.IsNaN(mean) {
			bar = strings.Repeat("#", int(math.Round(20*mean)))
			prev = mean
		}
		folder := p.RunID
		if len(p.Judged) > 0 {
			folder, judged = folder+" *", true
		}
		tab.add(timeText(p.Started), folder, statText(p.Mean), fmt.Sprintf("%d/%d", p.Scored, p.N), change, bar)
	}
	if err := tab.write(w, md); err != nil {
		return err
	}
	if !judged {
		return nil
	}
	heading(w, md, "* judged otherwise than the run before it, so its change measures the judge as well")
	for _, p := range t.Points {
		if len(p.Judged) > 0 {
			item(w, md, p.RunID+": "+strings.Join(p.Judged, "; "))
		}
	}
	return nil
}

// table is a header and rows of cells, written as columns two spaces
// apart (text) or as a Markdown table. A table without a header is a
// list of names and values, which Markdown writes as a list.
type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t table) write(w io.Writer, md bool) error {
	if md {
		return t.markdown(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if t.head != nil {
		fmt.Fprintln(tw, strings.Join(t.head, "\t"))
	}
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func (t table) markdown(w io.Writer) error {
	if t.head == nil {
		for _, r := range t.rows {
			fmt.Fprintf(w, "- **%s**: %s\n", mdCell(r[0]), mdCell(strings.Join(r[1:], " ")))
		}
		return nil
	}
	width := len(t.head)
	for _, r := range t.rows {
		width = max(width, len(r))
	}
	row := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i := range width {
			c := ""
			if i < len(cells) {
				c = mdCell(cells[i])
			}
			b.WriteString(" " + c + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	row(t.head)
	row(slices.Repeat([]string{"---"}, width))
	for _, r := range t.rows {
		row(r)
	}
	return nil
}

// mdCell is text that Markdown shows as it is in a table cell or a list.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`).Replace(s)
}

// heading starts a part: "title:" after a blank line in text, a
// Markdown heading.
func heading(w io.Writer, md bool, title string) {
	if md {
		fmt.Fprintf(w, "\n### %s\n\n", mdCell(title))
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
}

// item is a line of a part: indented by two in text, a Markdown list item.
func item(w io.Writer, md bool, line string) {
	if md {
		fmt.Fprintf(w, "- %s\n", mdCell(line))
		return
	}
	fmt.Fprintf(w, "  %s\n", line)
}

// para is a line on its own: as it is in text, a Markdown list item.
func para(w io.Writer, md bool, format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	if md {
		line = "- " + mdCell(line)
	}
	fmt.Fprintln(w, line)
}

// statText is a statistic with four places, "-" when undefined.
func statText(n run.Num) string {
	if !n.Defined() {
		return "-"
	}
	return fmt.Sprintf("%.4f", float64(n))
}

// pctText is a relative change as a signed percentage, "-" when undefined.
func pctText(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}

func timeText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }
