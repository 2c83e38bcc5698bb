package runstore_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/assaylabs/assay/internal/runtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

// TestRunsDiffMarkdown renders the pull-request summary with goldmark
// (GitHub's flavour: tables) and checks that its table, notes and lists
// come out as HTML elements, its lists capped.
func TestRunsDiffMarkdown(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// Twelve samples in both runs, q13 in A alone, q14 and q15 in B
	// alone. q1-q10 fall from 0.9 to 0.2 (pass to fail under 0.5), q12
	// rises from 0.3 to 0.95.
	var a, b []run.Result
	for i := 1; i <= 12; i++ {
		va, vb := 0.9, 0.2
		switch i {
		case 11:
			vb = 0.9
		case 12:
			va, vb = 0.3, 0.95
		}
		id := fmt.Sprintf("q%d", i)
		a = append(a, run.Result{ID: id, Metric: "faithfulness", Value: va})
		b = append(b, run.Result{ID: id, Metric: "faithfulness", Value: vb})
	}
	a = append(a, run.Result{ID: "q13", Metric: "faithfulness", Value: 1})
	b = append(b, run.Result{ID: "q14", Metric: "faithfulness", Value: 1}, run.Result{ID: "q15_x", Metric: "faithfulness", Value: 1})
	folder := func(id, model, version string, rs []run.Result) string {
		cfg := run.Config{RunID: id, Model: model, Metrics: []string{"faithfulness"}, Prompts: map[string]string{"faithfulness.claims": version}}
		s := run.Summary{RunID: id, Metrics: []run.MetricStats{{Metric: "faithfulness", Mean: 0.5, Threshold: 0.5}}}
		return runtest.WriteFolder(t, filepath.Join(root, id), cfg, &s, rs)
	}
	dirA, dirB := folder("run-a", "offline", "1", a), folder("run-b", "llm:openai:gpt-4o", "2", b)
	d, err := runstore.Runs{Store: filepath.Join(root, "runs.db")}.Diff(context.Background(), dirA, dirB)
	require.NoError(t, err)
	var md bytes.Buffer
	require.NoError(t, d.Write(&md, report.OutputMD))
	t.Logf("the summary:\n%s", md.String())

	gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := gm.Parser().Parse(text.NewReader(md.Bytes()))
	kinds := map[ast.NodeKind]int{}
	require.NoError(t, ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			kinds[n.Kind()]++
		}
		return ast.WalkContinue, nil
	}))
	assert.Equal(t, 1, kinds[east.KindTable], "one table")
	assert.Equal(t, 2, kinds[east.KindTableRow]+kinds[east.KindTableHeader], "its header and a row a metric")
	assert.Equal(t, 2, kinds[ast.KindBlockquote], "two notes")
	assert.Equal(t, 3, kinds[ast.KindList], "alerts, flips, moved")
	var html bytes.Buffer
	require.NoError(t, gm.Renderer().Render(&html, md.Bytes(), doc))
	t.Logf("rendered:\n%s", html.String())
	for _, want := range []string{
		"<h3>Assay: <code>run-b</code> against baseline <code>run-a</code></h3>",
		"<th>metric</th>\n<th>baseline</th>\n<th>current</th>\n<th>paired diff (95% CI)</th>\n<th>Wilcoxon p</th>\n<th>pass→fail</th>\n<th>fail→pass</th>\n<th>McNemar p</th>",
		// Means over the 12 shared samples (10.2/12, 3.85/12), not the
		// summaries' 0.5; 10 flips one way, 1 the other: McNemar
		// 2*12/2048.
		"<td>faithfulness</td>\n<td>0.8500</td>\n<td>0.3208</td>\n<td>-0.5292 (-0.7000, -0.2500)</td>\n<td>0.0020</td>\n",
		"<td>10</td>\n<td>1</td>\n<td>0.0117</td>",
		"<blockquote>\n<p><strong>Note</strong>: Compared on the 12 samples both runs have; A has 1 that B lacks, B has 2 that A lacks.</p>\n</blockquote>",
		`Judged otherwise than the baseline (model &quot;offline&quot;, now &quot;llm:openai:gpt-4o&quot;; prompt faithfulness.claims version 1, now 2)`,
		"<h4>Alerts</h4>\n<ul>\n<li><strong>warning</strong> degradation: faithfulness degraded from baseline",
		"<h4>Flipped pass/fail</h4>\n<ul>\n<li><strong>faithfulness</strong>, now failing (passed in A), 10: <code>q1</code> 0.900→0.200, <code>q2</code> 0.900→0.200,",
		"<code>q8</code> 0.900→0.200, and 2 more</li>",
		"<li><strong>faithfulness</strong>, now passing (failed in A), 1: <code>q12</code> 0.300→0.950</li>",
		"<h4>Moved most</h4>",
	} {
		assert.Contains(t, html.String(), want)
	}
	assert.NotContains(t, html.String(), "q9</code>", "capped at MDListed")
}

// TestRunShowMarkdownHostileText renders `runs show --format md` of a
// run whose dataset path and model-written judge steps carry line breaks,
// HTML, Markdown links, images, emphasis and headings. Its cells and
// list items used to escape only | and *, so those went into the page
// raw; now each stays text on its own line: no link, image, raw HTML,
// emphasis or extra heading comes of it.
func TestRunShowMarkdownHostileText(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		dataset string
		step    string
		want    string // in the rendered HTML
	}{
		"a blank line then HTML": {
			dataset: "data\n\n<img src=x onerror=alert(1)>.jsonl", step: "Check it.\n\n<script>alert(1)</script>",
			want: `&lt;script&gt;alert(1)&lt;/script&gt;`,
		},
		"a Markdown link and an image": {
			dataset: "[click](https://evil.example).jsonl", step: "See ![x](https://evil.example/p.png) and [here](https://evil.example)",
			want: `See ![x](`, // the bare address an autolink, its text the address itself
		},
		"a heading and emphasis": {
			dataset: "d.jsonl\n# owned", step: "__bold__ and _it_ and ~~gone~~\n## owned",
			want: `__bold__ and _it_ and ~~gone~~\n## owned`,
		},
		"an entity": {
			dataset: "d&amp;.jsonl", step: "a &lt;b&gt; c",
			want: `a &amp;lt;b&amp;gt; c`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := runstore.RunView{ID: "r1", Config: run.Config{Dataset: tc.dataset, Model: "offline",
				Judges: []judges.StepsRecord{{Name: "tone", Version: "1", Steps: []string{tc.step, "Grade it."}, Generated: true}}},
				Summary: run.Summary{RunID: "r1", Metrics: []run.MetricStats{{Metric: "tone", N: 1, Scored: 1, Mean: 1}}}}
			var md bytes.Buffer
			require.NoError(t, v.Write(&md, report.OutputMD))
			gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
			doc := gm.Parser().Parse(text.NewReader(md.Bytes()))
			kinds := map[ast.NodeKind]int{}
			require.NoError(t, ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if entering {
					kinds[n.Kind()]++
				}
				return ast.WalkContinue, nil
			}))
			assert.Equal(t, 1, kinds[ast.KindHeading], "the judges' heading alone\n%s", md.String())
			assert.Zero(t, kinds[ast.KindLink]+kinds[ast.KindImage], "no link, no image\n%s", md.String())
			assert.Zero(t, kinds[ast.KindRawHTML]+kinds[ast.KindHTMLBlock], "no raw HTML\n%s", md.String())
			var emphasized []string
			require.NoError(t, ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if entering && n.Kind() == ast.KindEmphasis {
					emphasized = append(emphasized, string(n.Text(md.Bytes()))) //nolint:staticcheck // the plain text of a test's node
				}
				return ast.WalkContinue, nil
			}))
			assert.Equal(t, []string{"run", "started", "finished", "dataset", "model", "samples", "cost", "folder", "status"}, emphasized,
				"the head's labels alone are bold\n%s", md.String())
			assert.Zero(t, kinds[east.KindStrikethrough], "no strikethrough\n%s", md.String())
			var html bytes.Buffer
			require.NoError(t, gm.Renderer().Render(&html, md.Bytes(), doc))
			assert.Contains(t, html.String(), tc.want)
		})
	}
}

// TestRunsDiffTextPValues: the text diff shows p-values as the Markdown
// summary and report.html do: a p-value under 0.00005 is "<0.0001",
// never "0.0000", which reads as certainty.
func TestRunsDiffTextPValues(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// Twenty samples fall from 1 to 0: Wilcoxon's and McNemar's exact p
	// are both 2/2^20, about 1.9e-6, and the mid-p half of it.
	base, cur := make([]float64, 20), make([]float64, 20)
	for i := range base {
		base[i] = 1
	}
	folder := func(id string, vs []float64) string {
		cfg := run.Config{RunID: id, Metrics: []string{"m"}}
		s := run.Summary{RunID: id, Metrics: []run.MetricStats{{Metric: "m", Mean: runtest.Mean(vs...), Threshold: 0.5}}}
		return runtest.WriteFolder(t, filepath.Join(root, id), cfg, &s, runtest.Values("m", vs...))
	}
	d, err := runstore.Runs{Store: filepath.Join(root, "runs.db")}.Diff(context.Background(), folder("run-a", base), folder("run-b", cur))
	require.NoError(t, err)
	require.Len(t, d.Comparison.Metrics, 1)
	assert.InDelta(t, 2.0/(1<<20), float64(d.Comparison.Metrics[0].P), 1e-12)
	var out bytes.Buffer
	require.NoError(t, d.Write(&out, report.OutputText))
	text := out.String()
	assert.Regexp(t, `(?m)^m +1\.0000 +0\.0000 +-1\.0000 +20 +<0\.0001 +wilcoxon signed-rank \(exact\)$`, text)
	assert.Regexp(t, `(?m)^m +20 +-1\.0000 +.* +20 +0 +<0\.0001 +<0\.0001$`, text)
	assert.Contains(t, text, "significant (p<0.0001)")
}
