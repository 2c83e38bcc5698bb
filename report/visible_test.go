package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// TestIDsShowTheirHiddenCharacters: a sample's id (in its row and in the
// "fell most" list) and the run's id holding a bidirectional override
// or a control character are shown with it as its escape: the page would
// obey it, and an id with U+202E would show reversed, and reverse the
// figures after it ("0.800→0.050" read as "050.0←008.0").
func TestIDsShowTheirHiddenCharacters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, id, shown string }{
		{"right-to-left override", "inv\u202egnp.exe", `inv\u202egnp.exe`},
		{"isolate never closed", "a\u2067b", `a\u2067b`},
		{"escape sequence", "s\x1b[31m1", `s\x1b[31m1`},
		{"bell", "s\a2", `s\a2`},
		{"plain", "s07", "s07"},
		{"right-to-left script", "שלום", "שלום"},
	} {
		var buf bytes.Buffer
		for _, id := range []string{tc.id, "other"} {
			b, err := json.Marshal(run.Result{ID: id, Metric: "m", Value: 0.05})
			require.NoError(t, err, tc.name)
			buf.Write(append(b, '\n'))
		}
		results, err := run.ReadResultsFrom(run.FileResults, &buf)
		require.NoError(t, err, tc.name)
		s := run.Summary{RunID: "run" + tc.id, Samples: 2, Metrics: []run.MetricStats{{Metric: "m", N: 2}},
			Baseline: &run.Comparison{BaselineRunID: "base" + tc.id, Metrics: []run.MetricComparison{{
				Metric: "m", Fell: []run.SampleChange{{ID: tc.id, Baseline: 0.8, Current: 0.05}}}}}}
		var out strings.Builder
		require.NoError(t, WriteHTML(&out, run.Config{Metrics: []string{"m"}}, s, results, Data{}), tc.name)
		doc, err := html.Parse(strings.NewReader(out.String()))
		require.NoError(t, err, tc.name)
		var hidden []string
		counts := map[string]int{}
		for n := range doc.Descendants() {
			if n.Type != html.TextNode || n.Parent.Data == "script" || n.Parent.Data == "style" {
				continue
			}
			if strings.ContainsFunc(n.Data, func(r rune) bool { return r != '\n' && termtext.Hidden(r) }) {
				hidden = append(hidden, n.Data)
			}
			counts[n.Data]++
		}
		assert.Empty(t, hidden, "%s: text the page obeys rather than shows", tc.name)
		assert.Equal(t, 2, counts[tc.shown], "%s: the sample's row and the fell most list", tc.name)
		assert.Equal(t, 1, counts["Assay run run"+tc.shown], "%s: the title", tc.name)
		assert.Equal(t, 1, counts["run"+tc.shown], "%s: the heading", tc.name)
		assert.Equal(t, 1, counts["base"+tc.shown], "%s: the baseline's heading", tc.name)
		assert.Contains(t, out.String(), `<span class="mono">`+tc.shown+`</span> 0.800→0.050`, "%s: fell most", tc.name)
	}
}

// TestReportPolicy: report.html says, before anything it governs, that it
// loads nothing from anywhere (its style and script are inline), so a
// text that slipped its escaping could neither fetch nor send anything.
func TestReportPolicy(t *testing.T) {
	t.Parallel()
	cfg, s, results := reportFixture(t)
	for _, tc := range []struct {
		name string
		data Data
	}{
		{"with texts", reportData(t, results)},
		{"without", Data{}},
	} {
		var out strings.Builder
		require.NoError(t, WriteHTML(&out, cfg, s, results, tc.data), tc.name)
		doc, err := html.Parse(strings.NewReader(out.String()))
		require.NoError(t, err, tc.name)
		var policies []string
		var before []string // the elements of head ahead of the policy
		for n := range doc.Descendants() {
			if n.Type != html.ElementNode || n.Parent == nil || n.Parent.Data != "head" {
				continue
			}
			equiv, content := "", ""
			for _, a := range n.Attr {
				switch a.Key {
				case "http-equiv":
					equiv = a.Val
				case "content":
					content = a.Val
				}
			}
			if strings.EqualFold(equiv, "Content-Security-Policy") {
				policies = append(policies, content)
			} else if len(policies) == 0 && !(n.Data == "meta" && equiv == "" && content == "") {
				before = append(before, n.Data)
			}
		}
		require.Len(t, policies, 1, tc.name)
		assert.Empty(t, before, "%s: the policy comes first", tc.name)
		directives := map[string]string{}
		for d := range strings.SplitSeq(policies[0], ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
			directives[name] = value
		}
		assert.Equal(t, map[string]string{
			"default-src": "'none'", "style-src": "'unsafe-inline'", "script-src": "'unsafe-inline'",
			"img-src": "data:", "form-action": "'none'", "base-uri": "'none'",
		}, directives, tc.name)
	}
}
