package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// MDListed is how many samples a line of the Markdown summary lists
// (flipped one way, or moved most); the rest are counted.
const MDListed = 8

// WriteComparisonMD writes the comparison of run b with its baseline a
// as a Markdown summary short enough for a pull request comment or
// $GITHUB_STEP_SUMMARY: how the runs differ in what they judged and how,
// a table a metric a row, the alerts, the samples that flipped and those
// that moved most, each list capped at MDListed.
func WriteComparisonMD(w io.Writer, a, b string, c *run.Comparison, alerts []run.QualityAlert) error {
	fmt.Fprintf(w, "### Assay: %s against baseline %s\n\n", code(b), code(a))
	if len(alerts) == 0 {
		fmt.Fprintln(w, "No quality alert.")
	} else {
		fmt.Fprintf(w, "**%s**: a regression.\n", plural.Count(len(alerts), "quality alert"))
	}
	var notes []string
	if note := SharedNote(c); note != "" {
		notes = append(notes, strings.ToUpper(note[:1])+note[1:]+".")
	}
	if len(c.Judged) > 0 {
		notes = append(notes, "Judged otherwise than the baseline ("+strings.Join(c.Judged, "; ")+"): the changes measure the judge as well as the system.")
	}
	for _, m := range c.Metrics {
		if note := run.NotInBaselineNote(m); note != "" {
			notes = append(notes, strings.ToUpper(note[:1])+note[1:]+".")
		}
	}
	if note := run.BaselineOnlyNote(c); note != "" {
		notes = append(notes, strings.ToUpper(note[:1])+note[1:]+".")
	}
	for _, n := range notes {
		fmt.Fprintf(w, "\n> **Note**: %s\n", mdText(n))
	}
	fmt.Fprintln(w)
	t := Table{Head: []string{"metric", "baseline", "current", "paired diff (95% CI)", "Wilcoxon p", "pass→fail", "fail→pass", "McNemar p"}}
	for _, m := range c.Metrics {
		diff := Signed(m.MeanDiff)
		if ci := Interval(m.DiffLow, m.DiffHigh); ci != "-" {
			diff += " (" + strings.Replace(ci, "..", ", ", 1) + ")"
		}
		t.Add(m.Metric, Stat(m.BaselineMean), Stat(m.CurrentMean), diff, PText(m.P),
			fmt.Sprint(m.NowFailing), fmt.Sprint(m.NowPassing), PText(m.FlipP))
	}
	if err := t.markdown(w); err != nil {
		return err
	}
	if len(alerts) > 0 {
		fmt.Fprint(w, "\n#### Alerts\n\n")
		for _, al := range alerts {
			fmt.Fprintf(w, "- **%s** %s: %s (%.4f, threshold %.4f)\n", mdText(al.Severity), mdText(al.Type), mdText(al.Message), al.CurrentValue, al.Threshold)
		}
	}
	var flips, moved []string
	for _, m := range c.Metrics {
		for _, way := range []string{run.FlipFails, run.FlipPasses} {
			if n, listed := Flips(m, way); n > 0 {
				flips = append(flips, fmt.Sprintf("**%s**, %s, %d: %s", mdText(m.Metric), FlipTitle(way), n, changesMD(listed, n)))
			}
		}
		if len(m.Moved) > 0 {
			moved = append(moved, fmt.Sprintf("**%s**: %s", mdText(m.Metric), changesMD(m.Moved, min(len(m.Moved), MDListed))))
		}
	}
	for _, part := range []struct {
		title string
		lines []string
	}{{"Flipped pass/fail", flips}, {"Moved most", moved}} {
		if len(part.lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n#### %s\n\n", part.title)
		for _, l := range part.lines {
			fmt.Fprintf(w, "- %s\n", l)
		}
	}
	return nil
}

// PText is a p-value as every report shows it: four places, "<0.0001"
// below them (never 0.0000, which reads as certainty), "-" when undefined.
func PText(p run.Num) string {
	if p.Defined() && p < 0.00005 {
		return "<0.0001"
	}
	return Stat(p)
}

// changesMD lists the first MDListed of changes (of n in all) as
// `id` 0.800→0.300, saying how many more there are.
func changesMD(changes []run.SampleChange, n int) string {
	parts := make([]string, 0, MDListed+1)
	for _, f := range changes[:min(len(changes), MDListed)] {
		parts = append(parts, fmt.Sprintf("%s %.3f→%.3f", code(f.ID), f.Baseline, f.Current))
	}
	if more := n - len(parts); more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(parts, ", ")
}

// code is s as a Markdown code span, its fence longer than any run of
// backticks in it. Control characters (line breaks among them) are
// written as Go escapes (\n, \x00), so that an id holding one stays
// in its span and on its line: a break would end the span, and a blank
// line the list, letting what follows render as HTML or a heading.
func code(s string) string {
	s = termtext.Visible(s)
	longest, folder := 0, 0
	for _, r := range s {
		if r == '`' {
			folder++
			longest = max(longest, folder)
		} else {
			folder = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdText is text that Markdown shows as it is, in a paragraph, a list
// or a table cell, a heading too: its control characters (line breaks)
// written as escapes (Visible), so that it stays on its line, and the
// characters that start markup escaped, so that no emphasis, code, link,
// image, strikethrough, table cell or HTML (a tag, an entity) comes of
// it. Every Markdown writer of this package writes text through it.
func mdText(s string) string {
	return mdEscaper.Replace(termtext.Visible(s))
}

// mdEscaper escapes what starts markup within a line. What starts it only
// at the beginning of a line (#, >, a list's -) needs nothing: the text
// follows "- ", "| " or "### " there, and Visible keeps it on that line.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", "&", "&amp;",
	"[", `\[`, "]", `\]`, "~", `\~`)
