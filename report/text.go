package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/internal/columns"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// The pieces the comparison's Markdown summary and `assay runs` print
// with: a table, a statistic, and what a comparison's flips are.

// SharedNote says, when a run has samples the other lacks, what the
// comparison is over; "" when both have the same samples.
func SharedNote(c *run.Comparison) string {
	if c.OnlyBaseline+c.OnlyCurrent == 0 {
		return ""
	}
	return fmt.Sprintf("compared on the %s both runs have; A has %d that B lacks, B has %d that A lacks", plural.Count(c.Shared, "sample"), c.OnlyBaseline, c.OnlyCurrent)
}

// Flips is how many of m's samples flipped way, and those listed.
func Flips(m run.MetricComparison, way string) (int, []run.SampleChange) {
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

// FlipTitle names a way of flipping.
func FlipTitle(way string) string {
	if way == run.FlipFails {
		return "now failing (passed in A)"
	}
	return "now passing (failed in A)"
}

// Signed is a statistic with its sign, "-" when undefined.
func Signed(n run.Num) string {
	if !n.Defined() {
		return "-"
	}
	return SignedPlaces(float64(n), 4)
}

// SignedPlaces is f with its sign and places decimals. A value within
// NoiseFloor of zero is zero, +0: the noise of floating-point sums
// (-1.4e-17 for a bound that is 0) must not read as a change below zero;
// a real change too small to show keeps its sign (-0.0000).
func SignedPlaces(f float64, places int) string {
	if math.Abs(f) < NoiseFloor {
		f = 0
	}
	s := strconv.FormatFloat(f, 'f', places, 64)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// NoiseFloor is how far from zero a difference of sums of values in
// [0, 1] can be for floating-point rounding alone.
const NoiseFloor = 1e-12

// Interval is an interval, "-" when undefined.
func Interval(lo, hi run.Num) string {
	if !lo.Defined() || !hi.Defined() {
		return "-"
	}
	return Signed(lo) + ".." + Signed(hi)
}

// Stat is a statistic with four places, "-" when undefined.
func Stat(n run.Num) string {
	if !n.Defined() {
		return "-"
	}
	return fmt.Sprintf("%.4f", float64(n))
}

// Table is a header and rows of cells, written as columns two spaces
// apart (text) or as a Markdown Table. A Table without a header is a
// list of names and values, which Markdown writes as a list.
type Table struct {
	Head []string
	Rows [][]string
}

func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

func (t Table) Write(w io.Writer, md bool) error {
	if md {
		return t.markdown(w)
	}
	tw := columns.New(w)
	line := func(cells []string) {
		vis := make([]string, len(cells))
		for i, c := range cells {
			vis[i] = termtext.Visible(c)
		}
		fmt.Fprintln(tw, strings.Join(vis, "\t"))
	}
	if t.Head != nil {
		line(t.Head)
	}
	for _, r := range t.Rows {
		line(r)
	}
	return tw.Flush()
}

func (t Table) markdown(w io.Writer) error {
	if t.Head == nil {
		for _, r := range t.Rows {
			fmt.Fprintf(w, "- **%s**: %s\n", mdText(r[0]), mdText(strings.Join(r[1:], " ")))
		}
		return nil
	}
	width := len(t.Head)
	for _, r := range t.Rows {
		width = max(width, len(r))
	}
	row := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i := range width {
			c := ""
			if i < len(cells) {
				c = mdText(cells[i])
			}
			b.WriteString(" " + c + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	row(t.Head)
	row(slices.Repeat([]string{"---"}, width))
	for _, r := range t.Rows {
		row(r)
	}
	return nil
}

// Heading starts a part: "title:" after a blank line in text, a
// Markdown heading.
func Heading(w io.Writer, md bool, title string) {
	if md {
		fmt.Fprintf(w, "\n### %s\n\n", mdText(title))
		return
	}
	fmt.Fprintf(w, "\n%s:\n", termtext.Visible(title))
}

// Item is a line of a part: indented by two in text, a Markdown list item.
func Item(w io.Writer, md bool, line string) {
	if md {
		fmt.Fprintf(w, "- %s\n", mdText(line))
		return
	}
	fmt.Fprintf(w, "  %s\n", termtext.Visible(line))
}

// Para is a line on its own: as it is in text, a Markdown list item.
func Para(w io.Writer, md bool, format string, a ...any) {
	line := termtext.Visible(fmt.Sprintf(format, a...))
	if md {
		line = "- " + mdText(line)
	}
	fmt.Fprintln(w, line)
}
