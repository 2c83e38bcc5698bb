package report_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
)

// TestComparisonMDHostileIDs renders the pull-request summary of a
// comparison whose sample ids carry line breaks, control characters,
// HTML and Markdown links, and checks that each id stays one code span
// in its list item: no id ends the list, starts a heading, or renders a
// link or raw HTML.
func TestComparisonMDHostileIDs(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		id   string
		want string // the code span's text, as goldmark renders it
	}{
		"a blank line then HTML": {
			id:   "x\n\n<img src=x onerror=alert(1)>",
			want: `<code>x\n\n&lt;img src=x onerror=alert(1)&gt;</code>`,
		},
		"a line that is a heading": {
			id:   "y\n# owned",
			want: `<code>y\n# owned</code>`,
		},
		"a Markdown link after a line break": {
			id:   "z\r\n[click](https://evil.example)",
			want: `<code>z\r\n[click](https://evil.example)</code>`,
		},
		"control characters": {
			id:   "a\x00b\x1b[31mc\td",
			want: `<code>a\x00b\x1b[31mc\td</code>`,
		},
		"backticks and a pipe": {
			id:   "k`l`|m",
			want: "<code>k`l`|m</code>",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := &run.Comparison{Shared: 1, Metrics: []run.MetricComparison{{
				Metric: "faithfulness", BaselineMean: 1, CurrentMean: 0, Paired: 1,
				NowFailing: 1,
				Flipped:    []run.SampleChange{{ID: tc.id, Baseline: 1, Current: 0, Flip: run.FlipFails}},
				Moved:      []run.SampleChange{{ID: tc.id, Baseline: 1, Current: 0}},
			}}}
			var md bytes.Buffer
			require.NoError(t, report.WriteComparisonMD(&md, "run-a", "run-b", c, nil))
			gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
			doc := gm.Parser().Parse(text.NewReader(md.Bytes()))
			kinds := map[ast.NodeKind]int{}
			require.NoError(t, ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if entering {
					kinds[n.Kind()]++
				}
				return ast.WalkContinue, nil
			}))
			assert.Equal(t, 3, kinds[ast.KindHeading], "the title, flipped and moved: no heading from an id\n%s", md.String())
			assert.Equal(t, 2, kinds[ast.KindListItem], "one item a list\n%s", md.String())
			assert.Zero(t, kinds[ast.KindLink]+kinds[ast.KindAutoLink], "no link\n%s", md.String())
			assert.Zero(t, kinds[ast.KindRawHTML]+kinds[ast.KindHTMLBlock], "no raw HTML\n%s", md.String())
			var html bytes.Buffer
			require.NoError(t, gm.Renderer().Render(&html, md.Bytes(), doc))
			assert.Equal(t, 2, strings.Count(html.String(), tc.want), "the id a code span in both lists\n%s", html.String())
		})
	}
}

// TestComparisonMDMetricNotInBaseline: a metric the baseline never
// judged gets a note saying so, where its row alone ("-" for the
// baseline) gave no reason; a metric it judged gets none.
func TestComparisonMDMetricNotInBaseline(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		missing bool
		want    string
	}{
		"never judged":  {missing: true, want: "\n> **Note**: The baseline has no results for answer\\_relevancy: nothing to compare.\n"},
		"judged before": {missing: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := &run.Comparison{Shared: 6, Metrics: []run.MetricComparison{{Metric: "answer_relevancy", BaselineMean: run.Num(math.NaN()), CurrentMean: 0.579,
				Delta: run.Num(math.NaN()), P: run.Num(math.NaN()), NotInBaseline: tc.missing}}}
			var md bytes.Buffer
			require.NoError(t, report.WriteComparisonMD(&md, "run-a", "run-b", c, nil))
			if tc.want != "" {
				assert.Contains(t, md.String(), tc.want)
			} else {
				assert.NotContains(t, md.String(), "no results for")
			}
		})
	}
}

// TestComparisonMDCountsAlertsAndSamples: the summary's counts agree with
// their nouns: one alert, one shared sample, and more.
func TestComparisonMDCountsAlertsAndSamples(t *testing.T) {
	t.Parallel()
	alert := run.QualityAlert{Type: "degradation", Severity: "warning", Message: "Quality degraded", Metric: "faithfulness"}
	tests := map[string]struct {
		alerts []run.QualityAlert
		shared int
		want   []string
	}{
		"one of each": {alerts: []run.QualityAlert{alert}, shared: 1,
			want: []string{"**1 quality alert**: a regression.", "Compared on the 1 sample both runs have"}},
		"two of each": {alerts: []run.QualityAlert{alert, alert}, shared: 2,
			want: []string{"**2 quality alerts**: a regression.", "Compared on the 2 samples both runs have"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := &run.Comparison{Shared: tc.shared, OnlyBaseline: 3}
			var md bytes.Buffer
			require.NoError(t, report.WriteComparisonMD(&md, "run-a", "run-b", c, tc.alerts))
			for _, w := range tc.want {
				assert.Contains(t, md.String(), w)
			}
		})
	}
}
