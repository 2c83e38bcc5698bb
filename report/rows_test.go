package report

import (
	"fmt"
	"html/template"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

// rowsTemplate is the template report.html's rows were drawn with
// before page.rows drew them (testdata/rows.tmpl, as report.tmpl held
// it), with the functions it called.
var rowsTemplate = sync.OnceValues(func() (*template.Template, error) {
	text, err := os.ReadFile("testdata/rows.tmpl")
	if err != nil {
		return nil, err
	}
	funcs := template.FuncMap{
		"g":         fmtG,
		"chars":     utf8.RuneCountInString,
		"listed":    func(i int) bool { return i < MaxListed },
		"maxListed": func() int { return MaxListed },
		"unlisted":  func(n int) int { return n - MaxListed },
		"clip":      clip,
	}
	return template.New("report").Funcs(reportFuncs).Funcs(funcs).Parse(string(text))
})

// templateRows draws part with the template.
func templateRows(t testing.TB, part rowsPart) string {
	t.Helper()
	tmpl, err := rowsTemplate()
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, tmpl.ExecuteTemplate(&b, "rows", part))
	return b.String()
}

// goRows draws part with page.rows.
func goRows(part rowsPart) string {
	var p page
	p.rows(part)
	return p.String()
}

// hostile are texts a dataset or a model may hold: markup, quotes and
// the characters html/template escapes, NUL, bytes that are not UTF-8,
// other scripts, and nothing.
var hostile = []string{
	"", "plain", `<script>alert("x")</script>`, `"><img src=x onerror=alert(1)>`, "it's a+b & c<d>e",
	"nul\x00byte", "bad \xff\xfe utf-8 \xc3", "ผลตอบแทน 4.2%", "line\nbreak\ttab", "&amp; already", "javascript:alert(1)",
	"{{.ID}}", "\u2028\u2029", "🙂 emoji", "+", "'", `\`, "rlo \u202egnp.exe", "esc \x1b[31m",
}

// randText is a text of hostile pieces, sometimes longer than the
// template folds (600 bytes).
func randText(r *rand.Rand) string {
	n := r.IntN(4)
	if r.IntN(8) == 0 {
		n = 60
	}
	var b strings.Builder
	for range n {
		b.WriteString(hostile[r.IntN(len(hostile))])
	}
	return b.String()
}

func randCut(r *rand.Rand) Text {
	t := Text{Text: randText(r)}
	if r.IntN(3) == 0 {
		t.Cut = r.IntN(5000)
	}
	return t
}

// numbers are values whose writing varies: exponents, infinities, NaN.
var numbers = []float64{0, 1, 0.5, 0.12345, -0.25, 4.4, 1e21, 1e-7, math.Inf(1), math.Inf(-1), math.NaN(), 123456789}

func randNum(r *rand.Rand) float64 { return numbers[r.IntN(len(numbers))] }

func randMarks(r *rand.Rand) []mark {
	ms := make([]mark, r.IntN(3))
	for i := range ms {
		ms[i] = mark{Metric: randText(r), Kind: randText(r), Note: randText(r)}
	}
	return ms
}

func randConv(r *rand.Rand) *convView {
	c := &convView{Conversation: &Conversation{MoreTurns: r.IntN(3), MoreExpected: r.IntN(2), Ordered: r.IntN(2) == 0}, Marked: r.IntN(5)}
	if r.IntN(3) == 0 {
		c.NotEvaluable = randText(r)
	}
	for i := range r.IntN(4) {
		tv := turnView{Turn: Turn{N: i + 1, Role: hostile[r.IntN(len(hostile))], Text: randCut(r), MoreCalls: r.IntN(2), Failed: r.IntN(4) == 0}, Marks: randMarks(r)}
		if r.IntN(3) == 0 {
			tv.Tool = randText(r)
		}
		for j := range r.IntN(3) {
			cv := callView{Call: Call{N: j + 1, Name: randText(r), Arguments: randCut(r), Failed: r.IntN(3) == 0}, Marks: randMarks(r)}
			if r.IntN(2) == 0 {
				res := randCut(r)
				cv.Result = &res
			}
			tv.Calls = append(tv.Calls, cv)
		}
		c.Turns = append(c.Turns, tv)
	}
	for i := range r.IntN(3) {
		c.Expected = append(c.Expected, expectedView{ExpectedCall: ExpectedCall{N: i + 1, Name: randText(r), Arguments: randCut(r), Any: r.IntN(3) == 0}, Marks: randMarks(r)})
	}
	return c
}

func randEvidence(r *rand.Rand) eval.Evidence {
	var ev eval.Evidence
	// Lists of up to 25 items, past the 20 the page lists.
	size := func() int {
		if r.IntN(6) == 0 {
			return 25
		}
		return r.IntN(3)
	}
	for range size() {
		c := eval.Claim{Text: randText(r), Verdict: hostile[r.IntN(len(hostile))], SourceID: randText(r)}
		for range r.IntN(3) {
			c.Citations = append(c.Citations, eval.Citation{Quote: randText(r)})
		}
		if r.IntN(3) == 0 {
			c.Check = &eval.ClaimCheck{Checker: randText(r), Probability: randNum(r), From: randText(r), Chunk: r.IntN(3), Chunks: r.IntN(4)}
		}
		ev.Claims = append(ev.Claims, c)
	}
	for range size() {
		ev.Sources = append(ev.Sources, eval.SourceRating{URL: randText(r), Rating: randNum(r), Basis: randText(r)})
	}
	for range size() {
		ev.Gaps = append(ev.Gaps, randText(r)+strings.Repeat("x", r.IntN(2)*500))
	}
	for range size() {
		ev.Issues = append(ev.Issues, randText(r))
	}
	if n := r.IntN(4); n > 0 {
		ev.Counts = map[string]float64{}
		for range n {
			ev.Counts[randText(r)] = randNum(r)
		}
	}
	return ev
}

var states = []string{"scored", "below", "defaulted", "skipped", "not_evaluable", "error", "missing", `x"<`}

func randResult(r *rand.Rand) resultView {
	res := run.Result{ID: randText(r), Metric: randText(r), Value: randNum(r), Points: randNum(r), Max: randNum(r), Method: randText(r),
		Reason: randText(r), Defaulted: r.IntN(5) == 0, Skipped: r.IntN(5) == 0, Evidence: randEvidence(r)}
	if r.IntN(3) == 0 {
		res.Max = 0
	}
	switch r.IntN(4) {
	case 0:
		res.Error = eval.NotEvaluable
	case 1:
		res.Error = randText(r)
	}
	rv := resultView{Result: res, Flip: []string{"", run.FlipFails, run.FlipPasses}[r.IntN(3)]}
	if r.IntN(2) == 0 {
		rv.Base = &run.Result{Value: randNum(r), Defaulted: r.IntN(4) == 0, Skipped: r.IntN(4) == 0}
		if r.IntN(3) == 0 {
			rv.Base.Error = eval.NotEvaluable
		}
	}
	return rv
}

// randRow is a sample's row with every field drawn from hostile texts,
// odd numbers and each state.
func randRow(r *rand.Rand) sampleRow {
	row := sampleRow{ID: randText(r), Question: randText(r), Marked: r.IntN(2) == 0}
	for range r.IntN(4) {
		row.Cells = append(row.Cells, sampleCell{Metric: randText(r), State: states[r.IntN(len(states))], Value: randNum(r), Sort: randText(r),
			Base: []string{"", "0.500", randText(r)}[r.IntN(3)], Flip: []string{"", run.FlipFails, run.FlipPasses, randText(r)}[r.IntN(4)]})
	}
	if r.IntN(4) != 0 {
		t := SampleText{Question: randCut(r), Answer: randCut(r), Reference: randCut(r), MoreContexts: r.IntN(2) * r.IntN(9)}
		for range r.IntN(3) {
			t.Contexts = append(t.Contexts, Context{Label: randText(r), Text: randCut(r)})
		}
		row.Text = &t
	}
	if r.IntN(3) == 0 {
		row.Conv = randConv(r)
	}
	for range r.IntN(4) {
		row.Results = append(row.Results, randResult(r))
	}
	return row
}

func TestRowsAsTheTemplateDrewThem(t *testing.T) {
	t.Parallel()
	cfg, s, results := reportFixture(t)
	trip := tripSample()
	tripResults := scoreAll(t, trip)
	tests := map[string]struct {
		parts func(t *testing.T) []rowsPart
	}{
		"the fixture run": {func(t *testing.T) []rowsPart {
			v := newReportView(cfg, s, results, reportData(t, results), nil)
			return []rowsPart{{Rows: v.Rows, Texts: v.Texts, Width: v.Width}}
		}},
		"the fixture run without texts": {func(*testing.T) []rowsPart {
			v := newReportView(cfg, s, results, Data{}, nil)
			return []rowsPart{{Rows: v.Rows, Texts: v.Texts, Width: v.Width}}
		}},
		"a marked conversation": {func(t *testing.T) []rowsPart {
			v := newReportView(run.Config{RunID: "r"}, run.Summary{RunID: "r", Samples: 1}, tripResults, Data{Texts: textsOf(t, tripResults, trip)}, nil)
			return []rowsPart{{Rows: v.Rows, Texts: v.Texts, Width: v.Width}}
		}},
		"no rows": {func(*testing.T) []rowsPart { return []rowsPart{{Texts: true, Width: 3}} }},
		"hostile rows, drawn at random": {func(*testing.T) []rowsPart {
			r := rand.New(rand.NewPCG(34, 2026))
			var parts []rowsPart
			for range 400 {
				rows := make([]sampleRow, 1+r.IntN(3))
				for i := range rows {
					rows[i] = randRow(r)
				}
				parts = append(parts, rowsPart{Rows: rows, Texts: r.IntN(2) == 0, Width: r.IntN(6)})
			}
			return parts
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for i, part := range tc.parts(t) {
				want := templateRows(t, part)
				got := goRows(part)
				if want != got {
					t.Fatalf("part %d drawn otherwise than the template %s", i, firstDiff(want, got))
				}
			}
		})
	}
}

func TestRowsEscapeTheirTexts(t *testing.T) {
	t.Parallel()
	row := sampleRow{ID: `s"1`, Question: `<script>alert(1)</script>`, Text: &SampleText{Answer: Text{Text: "a\x00b & 'c' + <d>"}},
		Results: []resultView{{Result: run.Result{Metric: "m<", Reason: `"><img src=x>`}}}}
	got := goRows(rowsPart{Rows: []sampleRow{row}, Texts: true, Width: 2})
	for _, want := range []string{
		`data-v="s&#34;1">s&#34;1</td>`,
		`<td class="q">&lt;script&gt;alert(1)&lt;/script&gt;</td>`,
		"<div class=\"full\">a\uFFFDb &amp; &#39;c&#39; &#43; &lt;d&gt;</div>",
		`data-metric="m&lt;"`,
		`<p class="reason">&#34;&gt;&lt;img src=x&gt;</p>`,
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "<script>")
	assert.NotContains(t, got, "<img")
}

// FuzzRows holds page.rows to the template on rows made of any texts.
func FuzzRows(f *testing.F) {
	for _, s := range hostile {
		f.Add(s, s+"<b>", uint64(7))
	}
	f.Fuzz(func(t *testing.T, a, b string, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 1))
		texts := []string{a, b, a + b, strings.Repeat(a, 700/max(len(a), 1))}
		pick := func() string { return texts[r.IntN(len(texts))] }
		row := randRow(r)
		row.ID, row.Question = pick(), pick()
		for i := range row.Cells {
			row.Cells[i].State, row.Cells[i].Sort, row.Cells[i].Base = pick(), pick(), pick()
		}
		row.Results = append(row.Results, resultView{Result: run.Result{Metric: pick(), Method: pick(), Reason: pick(), Error: pick(),
			Evidence: eval.Evidence{Claims: []eval.Claim{{Text: pick(), Verdict: pick()}}, Gaps: []string{pick()}, Counts: map[string]float64{pick(): 1}}}})
		row.Text = &SampleText{Question: Text{Text: pick()}, Contexts: []Context{{Label: pick(), Text: Text{Text: pick()}}}}
		part := rowsPart{Rows: []sampleRow{row}, Texts: true, Width: 3}
		if want, got := templateRows(t, part), goRows(part); want != got {
			t.Fatalf("drawn otherwise than the template:\n%s", firstDiff(want, got))
		}
	})
}

// firstDiff shows where two texts part.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(i-80, 0)
	return fmt.Sprintf("at byte %d:\nwant %q\ngot  %q", i, want[from:min(len(want), i+80)], got[from:min(len(got), i+80)])
}

func TestFmtG(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]string{
		4.5: "4.5", 2: "2", 0.7911327937874695: "0.7911", 0.66666666: "0.6667", 330: "330",
		0.00004: "0", 12345.678912: "12345.6789", 1e21: "1e+21", math.Inf(1): "+Inf",
	} {
		assert.Equal(t, want, fmtG(v), "%v", v)
	}
	assert.Equal(t, "NaN", fmtG(math.NaN()))
}
