package report_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
)

// TestTerminalTextEscapesControls: what `assay runs` prints for people
// (tables, items, lines, headings, the Markdown summary) writes a
// control character or a bidirectional override in a sample id, a
// metric or a path as its escape, never raw: a terminal would obey it.
func TestTerminalTextEscapesControls(t *testing.T) {
	t.Parallel()
	const hostile = "a\x1b[31mX\x07\u202eb\r\n\tc\u0085"
	const escaped = `a\x1b[31mX\a\u202eb\r\n\tc\u0085`
	write := map[string]func(w *bytes.Buffer, md bool){
		"table cell": func(w *bytes.Buffer, md bool) {
			tab := report.Table{Head: []string{"ID", "V"}}
			tab.Add(hostile, "1")
			_ = tab.Write(w, md)
		},
		"table without head": func(w *bytes.Buffer, md bool) {
			_ = report.Table{Rows: [][]string{{"run", hostile}}}.Write(w, md)
		},
		"item":    func(w *bytes.Buffer, md bool) { report.Item(w, md, hostile) },
		"para":    func(w *bytes.Buffer, md bool) { report.Para(w, md, "run %s", hostile) },
		"heading": func(w *bytes.Buffer, md bool) { report.Heading(w, md, hostile) },
		"markdown summary": func(w *bytes.Buffer, _ bool) {
			c := &run.Comparison{Metrics: []run.MetricComparison{{Metric: "faithfulness", NowPassing: 1,
				Flipped: []run.SampleChange{{ID: hostile, Baseline: 0, Current: 1, Flip: run.FlipPasses}}}}}
			_ = report.WriteComparisonMD(w, hostile, "b", c, nil)
		},
	}
	for name, f := range write {
		for _, md := range []bool{false, true} {
			var b bytes.Buffer
			f(&b, md)
			out := strings.TrimRight(b.String(), "\n")
			for _, r := range out {
				if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e') {
					t.Errorf("%s (md %v): raw %U in %q", name, md, r, out)
				}
			}
			if !md {
				assert.Contains(t, out, escaped, name)
			}
		}
	}
}

// TestSignedNeverShowsMinusZero: a change or a bound is shown with its
// sign; one that is zero but for the noise of floating-point sums is +0,
// whatever side of zero the noise left it on, so an interval that
// touches zero never reads as lying below it.
func TestSignedNeverShowsMinusZero(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		n        float64
		signed   string
		interval string // [-0.4, n]
	}{
		"a bound that is 0 but for noise": {n: -1.3877787807814457e-17, signed: "+0.0000", interval: "-0.4000..+0.0000"},
		"a real change too small to show": {n: -0.00004, signed: "-0.0000", interval: "-0.4000..-0.0000"},
		"negative zero":                   {n: math.Copysign(0, -1), signed: "+0.0000", interval: "-0.4000..+0.0000"},
		"zero":                            {n: 0, signed: "+0.0000", interval: "-0.4000..+0.0000"},
		"a negative that shows":           {n: -0.00005001, signed: "-0.0001", interval: "-0.4000..-0.0001"},
		"a positive":                      {n: 0.25, signed: "+0.2500", interval: "-0.4000..+0.2500"},
		"a large negative":                {n: -12.5, signed: "-12.5000", interval: "-0.4000..-12.5000"},
		"undefined":                       {n: math.NaN(), signed: "-", interval: "-"},
		"infinite":                        {n: math.Inf(-1), signed: "-", interval: "-"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.signed, report.Signed(run.Num(tc.n)))
			assert.Equal(t, tc.interval, report.Interval(-0.4, run.Num(tc.n)))
		})
	}
}
