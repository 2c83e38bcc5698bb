package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

// faithValues are the fixture's faithfulness values by sample (s01...):
// s05 is a neutral default and s09 skipped, so neither is drawn.
var faithValues = []float64{0.9, 0.35, 1, 0.62, 0.5, 0.71, 0.05, 0.88, 0, 0.44, 0.97, 0.66}

// reportFixture is a small run: two metrics over twelve samples, with a
// default, a skipped sample, an error, a gate of each outcome, two alerts
// and a baseline. Sample s03's evidence carries a script.
func reportFixture(t testing.TB) (run.Config, run.Summary, *run.ResultFile) {
	t.Helper()
	start := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	cfg := run.Config{
		RunID: "20261124-090000-ab12", Started: start,
		Command: []string{"assay", "bench", "data.jsonl", "--metric", "faithfulness,answer_relevancy"},
		Version: "v0.9.0 (abc1234)", Dataset: "data.jsonl", DatasetSHA256: strings.Repeat("ab", 32),
		Metrics: []string{"faithfulness", "answer_relevancy"}, Model: "openai:gpt-4o-mini",
		Prompts:  map[string]string{"faithfulness.claims": "v3", "relevancy": "v2"},
		Settings: map[string]string{"strict": "false"},
	}
	var buf bytes.Buffer
	for i, v := range faithValues {
		id := fmt.Sprintf("s%02d", i+1)
		f := run.Result{ID: id, Metric: "faithfulness", Value: v, Method: "llm:openai:gpt-4o-mini", Reason: fmt.Sprintf("%g of the claims are supported", v),
			Evidence: eval.Evidence{Claims: []eval.Claim{
				{Text: "Claim one of " + id + ".", Verdict: eval.VerdictSupported, SourceID: "c1"},
				{Text: "Claim two of " + id + ".", Verdict: eval.VerdictUnsupported},
			}},
			Usage: eval.Usage{Calls: 2, TokensIn: 400, TokensOut: 60, Latency: 800 * time.Millisecond, CostUSD: 0.0001}}
		switch id {
		case "s01":
			f.Evidence.Claims[0].Check = &eval.ClaimCheck{Checker: "openai:bespoke-minicheck", Probability: 0.93, From: eval.CheckLogprobs, Chunk: 2, Chunks: 3}
		case "s03":
			f.Evidence.Claims[0].Text = `<script>alert("pwned")</script> is a claim`
			f.Reason = `<b>bold</b> reason`
		case "s05":
			f.Defaulted, f.Error, f.Reason = true, "status 500 after 4 attempts", "judge failed, neutral grade 3 of 5 used"
		case "s09":
			f.Skipped, f.Error, f.Reason, f.Evidence = true, "no answer", "skipped, not scored: no answer", eval.Evidence{}
		}
		r := run.Result{ID: id, Metric: "answer_relevancy", Value: 1 - v/2,
			Evidence: eval.Evidence{Gaps: []string{"cost of " + id}, Sources: []eval.SourceRating{{URL: "https://example.org/" + id, Rating: 0.8, Basis: "grade 4 of 5"}}}}
		if id == "s01" {
			// A grade on a 1-5 scale, weighted by its log-probabilities.
			r.Points, r.Max = 4.4, 5
			r.Evidence.Counts = map[string]float64{"grade": 4.4, "p_4": 0.6, "p_5": 0.4}
		}
		if id == "s07" {
			r.Value, r.Error = 0, "reply did not match the schema"
			r.Evidence = eval.Evidence{}
		}
		for _, res := range []run.Result{f, r} {
			b, err := json.Marshal(res)
			require.NoError(t, err)
			buf.Write(append(b, '\n'))
		}
	}
	results, err := run.ReadResultsFrom(run.FileResults, &buf)
	require.NoError(t, err)
	s := run.Summary{
		RunID: cfg.RunID, Started: start, Finished: start.Add(93 * time.Second), Samples: 12, Complete: true,
		Usage: eval.Usage{Calls: 48, TokensIn: 9600, TokensOut: 1440, CostUSD: 0.0024},
		Metrics: []run.MetricStats{
			{Metric: "faithfulness", N: 12, Scored: 10, Defaulted: 1, DefaultedRate: 1.0 / 12, Skipped: 1,
				Mean: 0.61, Std: 0.31, Median: 0.64, Min: 0.05, Max: 1, P10: 0.08, CILow: 0.42, CIHigh: 0.79,
				Threshold: 0.7, PassRate: 0.5, TokensIn: 4800, TokensOut: 720, CostUSD: 0.0012,
				LatencyP50: 800 * time.Millisecond, LatencyP95: 1200 * time.Millisecond},
			{Metric: "answer_relevancy", N: 12, Scored: 11, Errors: 1,
				Mean: 0.7, Std: 0.15, Median: 0.68, Min: 0.5, Max: 1, P10: 0.52, CILow: 0.61, CIHigh: 0.79,
				Threshold: 0.5, PassRate: 1, TokensIn: 4800, TokensOut: 720, CostUSD: 0.0012},
		},
		Gates: []run.GateResult{
			{Gate: "faithfulness.mean>=0.7", Metric: "faithfulness", Stat: "mean", Op: ">=", Want: 0.7, Got: 0.61},
			{Gate: "answer_relevancy.min>=0.3", Metric: "answer_relevancy", Stat: "min", Op: ">=", Want: 0.3, Got: 0.5, Passed: true},
		},
		Alerts: []run.QualityAlert{{Type: run.AlertDegradation, Severity: run.SeverityWarning, Metric: "faithfulness", CurrentValue: 0.61, Threshold: 0.68,
			Message: "Quality degraded by 22.8% from baseline"}},
		Baseline: &run.Comparison{BaselineRunID: "20261120-080000-cd34", Metrics: []run.MetricComparison{
			{Metric: "faithfulness", BaselineMean: 0.79, CurrentMean: 0.61, Delta: -0.18, Paired: 10, Test: "wilcoxon signed-rank", P: 0.012,
				Fell: []run.SampleChange{{ID: "s07", Baseline: 0.8, Current: 0.05}}, NowFailing: 2, NowPassing: 1},
			{Metric: "answer_relevancy", BaselineMean: 0.69, CurrentMean: 0.7, Delta: 0.01, Paired: 11, Test: "wilcoxon signed-rank", P: run.Num(math.NaN()), NowFailing: 1, NowPassing: 1},
		}},
	}
	// Labelled faithful or not, s05 and s09 aside (a default, a skip):
	// the calibration of the ten values scored.
	s.Label = "faithful"
	var values []float64
	var labels []bool
	for i, v := range faithValues {
		if i == 4 || i == 8 {
			continue
		}
		values = append(values, v)
		labels = append(labels, faithLabels[i])
	}
	s.Metrics[0].Calibration = stats.Calibrate(values, labels, run.CalibrationBins)
	return cfg, s, results
}

// reportData is the fixture's Data: its samples' texts, read
// through ReadSampleTexts from a dataset in English and Thai (s03's texts
// hostile markup, s04's answer long enough to fold and its contexts more
// than the page holds, s06's answer longer than the page holds), and the
// baseline's results of some samples: s01 failed faithfulness there and
// passes now, s02 and s07 passed it and fail now, s04 failed both times;
// s03 failed answer relevancy there and passes now, s07 passed it and
// now has an error (its value 0 counted, as a summary counts it).
func reportData(t testing.TB, results *run.ResultFile) Data {
	t.Helper()
	long := strings.Repeat("The refund window is thirty days from delivery, and store credit is offered after that. ", 9)
	longer := strings.Repeat("ผลตอบแทนของกองทุนปรับตัวขึ้นตามดัชนี SET ", 120) // about 5 KB
	var contexts []string
	for i := 1; i <= 7; i++ {
		contexts = append(contexts, fmt.Sprintf("Policy chunk %d: returns are accepted with a receipt.", i))
	}
	records := []map[string]any{
		{"id": "s01", "question": "What is the refund window?", "answer": "Thirty days from delivery.", "contexts": []string{"Refunds: 30 days from delivery."}, "reference": "30 days."},
		{"id": "s02", "question": "ราคาปิดของหุ้น PTT วันนี้เท่าไร", "answer": "หุ้น PTT ปิดที่ 34.50 บาท เพิ่มขึ้น 1.2%", "contexts": []string{"PTT ปิดตลาดที่ 34.50 บาท (+1.2%)"}, "reference": "34.50 บาท"},
		{"id": "s03", "question": `<img src=x onerror="window.__pwned=1">`, "answer": `"><svg onload=window.__pwned=3>`, "contexts": []string{`</script><script>window.__pwned=2</script>`}, "reference": "<b>bold</b>"},
		{"id": "s04", "question": "How long do I have to return an item?", "answer": long, "contexts": contexts, "reference": "Thirty days."},
		{"id": "s06", "question": "กองทุนนี้ให้ผลตอบแทนเท่าไร", "answer": longer, "contexts": []string{"ผลตอบแทนย้อนหลัง 1 ปี 4.2%"}},
		{"id": "s08", "question": "Who signs the form?", "answer": "The account holder.", "contexts": []string{"The account holder signs."}},
	}
	for _, id := range []string{"s05", "s07", "s09", "s10", "s11", "s12", "s99"} {
		records = append(records, map[string]any{"id": id, "question": "Question of " + id + "?", "answer": "Answer of " + id + ".", "contexts": []string{"Context of " + id + "."}})
	}
	var buf bytes.Buffer
	for _, r := range records {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		buf.Write(append(b, '\n'))
	}
	texts, err := ReadSampleTexts(dataset.Records("data.jsonl", &buf), ShownIDs(results))
	require.NoError(t, err)
	require.NotContains(t, texts, "s99", "a sample the page does not show")
	base := map[run.Key]run.Result{}
	for _, r := range []run.Result{
		{ID: "s01", Metric: "faithfulness", Value: 0.5}, {ID: "s02", Metric: "faithfulness", Value: 0.8},
		{ID: "s07", Metric: "faithfulness", Value: 0.8}, {ID: "s04", Metric: "faithfulness", Value: 0.6},
		{ID: "s05", Metric: "faithfulness", Value: 0.9}, {ID: "s03", Metric: "answer_relevancy", Value: 0.3},
		{ID: "s07", Metric: "answer_relevancy", Value: 0.9},
	} {
		base[r.Key()] = r
	}
	return Data{Texts: texts, Baseline: base}
}

// faithLabels are the fixture's human labels by sample, s05's and s09's
// unused.
var faithLabels = []bool{true, false, true, false, false, true, false, true, false, false, true, true}

func TestWriteReport(t *testing.T) {
	t.Parallel()
	cfg, s, results := reportFixture(t)
	noBaseline := s
	noBaseline.Baseline, noBaseline.Alerts, noBaseline.Gates = nil, nil, nil
	data := reportData(t, results)
	// A p-value under the places shown reads as the Markdown summary
	// writes it, never as 0.
	tinyP := s
	tinyBase := *s.Baseline
	tinyBase.Metrics = []run.MetricComparison{{Metric: "faithfulness", BaselineMean: 1, CurrentMean: 0.2, Delta: -0.8, Paired: 40,
		Test: "wilcoxon signed-rank (exact)", P: 0.00006103515625, NowFailing: 15},
		{Metric: "answer_relevancy", BaselineMean: 0.9, CurrentMean: 0.3, Delta: -0.6, Paired: 60,
			Test: "wilcoxon signed-rank (normal approximation)", P: 0.00002, NowFailing: 30}}
	tinyP.Baseline = &tinyBase
	tests := map[string]struct {
		s       run.Summary
		results *run.ResultFile
		data    Data
		want    []string
		absent  []string
	}{
		"the whole run": {
			s: s, results: results,
			want: []string{
				"<title>Assay run 20261124-090000-ab12</title>",
				"data.jsonl", "sha256 abababababab", "openai:gpt-4o-mini", "faithfulness.claims <span class=\"muted\">v3</span>", "strict=false",
				"<code>assay bench data.jsonl --metric faithfulness,answer_relevancy</code>",
				"2026-11-24 09:00:00 UTC", "(1m33s)", "48 model calls", "$0.0024",
				"1 defaulted · 1 skipped · 1 error",
				`<span class="mean">0.610</span>`, "95% CI 0.420 – 0.790", "<td>pass rate</td><td>50.0%</td>", "<td>1 (8.3%)</td>",
				"<td>latency p50/p95</td><td>800ms/1.2s</td>",
				`<code>faithfulness.mean&gt;=0.7</code></td><td class="num">0.610</td><td><span class="badge b-fail">failed</span>`,
				`<span class="badge b-pass">passed</span>`,
				`<span class="badge b-warning">warning</span> degradation`, "Quality degraded by 22.8% from baseline",
				`Against the baseline <span class="mono">20261120-080000-cd34</span>`,
				`<td class="num">-0.180</td><td class="num">10</td><td>wilcoxon signed-rank</td><td class="num">0.0120</td>`,
				`<td class="num">&#43;0.010</td>`, `<span class="mono">s07</span> 0.800→0.050`,
				`<td class="v defaulted" data-v=""><span class="badge b-defaulted">defaulted</span>`,
				`<td class="v skipped" data-v=""><span class="badge b-skipped">skipped</span>`,
				`<td class="v error" data-v=""><span class="badge b-error">error</span>`,
				`<td class="v below" data-v="0.35">0.350</td>`, `<td class="v scored" data-v="0.9">0.900</td>`,
				`<p class="err">error: status 500 after 4 attempts</p>`,
				`<span class="badge b-unsupported">unsupported</span> Claim two of s01.`,
				`<span class="mono">0.800</span> https://example.org/s01 <span class="muted">grade 4 of 5</span>`,
				"<li>cost of s12</li>",
				// A fact checker's verdict, a grade and its probabilities.
				`Claim one of s01. <span class="muted">(c1)</span> <span class="muted">· checked by openai:bespoke-minicheck: p 0.930 (logprobs), chunk 2 of 3</span></li>`,
				`<h3>answer_relevancy <span class="mono">0.550</span> <span class="muted">· 4.4 of 5</span>`,
				`<div class="counts muted"><span>grade 4.4</span><span>p_4 0.6</span><span>p_5 0.4</span></div>`,
				// User text is escaped, never markup.
				`&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt; is a claim`, `&lt;b&gt;bold&lt;/b&gt; reason`,
			},
			absent: []string{`<script>alert`, `<b>bold`},
		},
		"the samples' texts and their values in the baseline": {
			s: s, results: results, data: data,
			want: []string{
				`<th data-col="1" data-kind="text" class="q">question</th><th data-col="2" data-metric="0" class="num">faithfulness</th>`,
				`<option value="flipped">flipped pass/fail</option>`,
				// The flip counts of the baseline table.
				`<td class="num">0.0120</td><td class="num">2</td><td class="num">1</td>`,
				`<td class="num">–</td><td class="num">1</td><td class="num">1</td>`,
				// A question in the table and in full, in Thai too.
				`<td class="q">ราคาปิดของหุ้น PTT วันนี้เท่าไร</td>`,
				`<h4>Answer</h4><div class="full">หุ้น PTT ปิดที่ 34.50 บาท เพิ่มขึ้น 1.2%</div>`,
				`<h4>Reference</h4><div class="full">30 days.</div>`,
				`<li><div class="muted mono">c1</div><div class="full">Refunds: 30 days from delivery.</div></li>`,
				// Each cell with its baseline value, and its flip.
				`<td class="v below" data-v="0.35" data-flip="fails">0.350 <span class="flip f-fails" title="passed in the baseline, fails now">▼</span><span class="was" title="in the baseline">0.800</span></td>`,
				`<td class="v scored" data-v="0.9" data-flip="passes">0.900 <span class="flip f-passes" title="failed in the baseline, passes now">▲</span><span class="was" title="in the baseline">0.500</span></td>`,
				`<td class="v below" data-v="0.62">0.620<span class="was" title="in the baseline">0.600</span></td>`,
				`<td class="v defaulted" data-v=""><span class="badge b-defaulted">defaulted</span><span class="was" title="in the baseline">0.900</span></td>`,
				`· baseline 0.800</span> <span class="badge b-fail">now failing</span></h3>`,
				`· baseline 0.300</span> <span class="badge b-pass">now passing</span></h3>`,
				// s04's long answer folds, its contexts past five are
				// counted; s06's answer is cut.
				`<h4>Answer</h4><div class="full long">The refund window is thirty days`,
				`<button type="button" class="more" data-chars="792">show all 792 characters</button>`,
				"2 more contexts left out of this page.",
				"more characters left out of this page.",
				// Hostile text is text.
				`&lt;img src=x onerror=&#34;window.__pwned=1&#34;&gt;`,
				`&lt;/script&gt;&lt;script&gt;window.__pwned=2&lt;/script&gt;`,
				`&#34;&gt;&lt;svg onload=window.__pwned=3&gt;`,
			},
			absent: []string{`<img src=x`, `<svg onload`, `<script>window`, "Question of s99", `<b>bold`},
		},
		"a p-value under 0.0001": {
			s: tinyP, results: results,
			want: []string{`<td>wilcoxon signed-rank (exact)</td><td class="num">0.0001</td><td class="num">15</td>`,
				`<td>wilcoxon signed-rank (normal approximation)</td><td class="num">&lt;0.0001</td><td class="num">30</td>`},
			absent: []string{`<td class="num">0.000</td>`},
		},
		"no baseline, gates or alerts": {
			s: noBaseline, results: results,
			want:   []string{`<span class="mean">0.610</span>`, `<tbody class="sample">`},
			absent: []string{"Against the baseline", "Gates and alerts"},
		},
		"no results": {
			s: s, results: nil,
			want:   []string{"0 samples.", "Nothing scored: no distribution to draw."},
			absent: []string{`<tbody class="sample`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			require.NoError(t, WriteHTML(&out, cfg, tc.s, tc.results, tc.data))
			page := out.String()
			for _, w := range tc.want {
				assert.Contains(t, page, w)
			}
			for _, a := range tc.absent {
				assert.NotContains(t, page, a)
			}
			// Self-contained: nothing is loaded from anywhere. A hostile
			// text's "src=" is escaped text, no attribute: the page is
			// parsed to tell them apart.
			for _, ref := range []string{"<link", "@import", "url("} {
				assert.NotContains(t, page, ref)
			}
			assert.Empty(t, loadingTags(t, page))
		})
	}
}

// TestWriteReportReliability checks the reliability diagram of a
// labelled run: the plot's frame, the diagonal from (0, 0) to (1, 1), a
// dot per non-empty bin at its mean value and share of true labels, and a
// size bar per bin; a metric without a calibration has none.
func TestWriteReportReliability(t *testing.T) {
	t.Parallel()
	cfg, s, results := reportFixture(t)
	unlabelled := s
	unlabelled.Label = ""
	unlabelled.Metrics = slices.Clone(s.Metrics)
	unlabelled.Metrics[0].Calibration = nil
	tests := map[string]struct {
		s              run.Summary
		diagrams, dots int
		want           []string
	}{
		"a labelled run": {
			s: s, diagrams: 1, dots: 7,
			want: []string{
				"Calibration against <code>faithful</code>",
				// Brier 0.928/10; ECE (0.05 + 0.35 + 0.44 + 2*0.14 + 0.29 +
				// 0.12 + 3*0.04333)/10.
				"Brier 0.093 · ECE 0.166 · 10 labelled values in 10 bins",
				`aria-label="reliability diagram of 10 labelled values"`,
				`<rect class="frame" x="34" y="8" width="200" height="200"></rect>`,
				`<line class="diag" x1="34" y1="208" x2="234" y2="8"></line>`,
				// s07 (0.05, false) alone in the first bin; s03, s11, s01
				// (1, 0.97, 0.9; all true) in the last; s04 and s12 (0.62
				// false, 0.66 true) at (0.64, 0.5).
				`<circle class="bin" cx="44" cy="208" r="3.5" data-n="1">`,
				`<circle class="bin" cx="225.3" cy="8" r="3.5" data-n="3">`,
				`<polyline class="curve" points="44,208 104,208 122,208 162,108 176,8 210,8 225.3,8"></polyline>`,
				// The tallest size bar is the last bin's, 36 high; an
				// empty bin's bar is flat.
				`<rect class="size" x="215" y="230" width="18" height="36" data-n="3">`,
				`<rect class="size" x="55" y="266" width="18" height="0" data-n="0">`,
			},
		},
		"no label": {s: unlabelled},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			require.NoError(t, WriteHTML(&out, cfg, tc.s, results, Data{}))
			page := out.String()
			assert.Equal(t, tc.diagrams, strings.Count(page, `<svg class="rel"`))
			assert.Equal(t, tc.diagrams, strings.Count(page, `<line class="diag"`))
			assert.Equal(t, tc.dots, strings.Count(page, `<circle class="bin"`))
			assert.Equal(t, 10*tc.diagrams, strings.Count(page, `<rect class="size"`))
			for _, w := range tc.want {
				assert.Contains(t, page, w)
			}
		})
	}
}

func TestWriteReportSampleRows(t *testing.T) {
	t.Parallel()
	cfg, s, results := reportFixture(t)
	var out strings.Builder
	require.NoError(t, WriteHTML(&out, cfg, s, results, Data{}))
	page := out.String()
	assert.Equal(t, 12, strings.Count(page, `<tr class="vals">`))
	// The rows with a default, a skip or an error are marked.
	assert.Equal(t, 3, strings.Count(page, `<tbody class="sample marked">`))
	// Each metric's histogram draws its scored values only: ten faithful
	// values (not the default nor the skip), eleven relevancy ones.
	assert.Contains(t, page, `aria-label="histogram of 10 scored values"`)
	assert.Contains(t, page, `aria-label="histogram of 11 scored values"`)
}

func TestNewHistogram(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		values []float64
		counts [histBins]int
		// heights of the bars, the tallest histHeight
		heights [histBins]float64
	}{
		"none": {},
		"edges go to their bin, 1 to the last": {
			values:  []float64{0, 0.1, 0.15, 0.5, 0.99, 1, 1},
			counts:  [histBins]int{1, 2, 0, 0, 0, 1, 0, 0, 0, 3},
			heights: [histBins]float64{40, 80, 0, 0, 0, 40, 0, 0, 0, 120},
		},
		"values outside [0, 1] are clamped": {
			values:  []float64{-0.2, 1.3},
			counts:  [histBins]int{1, 0, 0, 0, 0, 0, 0, 0, 0, 1},
			heights: [histBins]float64{120, 0, 0, 0, 0, 0, 0, 0, 0, 120},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHistogram(tc.values)
			require.Len(t, h.Bars, histBins)
			assert.Equal(t, len(tc.values), h.Total)
			for i, b := range h.Bars {
				assert.Equal(t, tc.counts[i], b.Count, "bin %d", i)
				assert.InDelta(t, tc.heights[i], b.H, 0.05, "bin %d", i)
				assert.InDelta(t, float64(histBase), b.Y+b.H, 1e-9, "bars stand on the axis")
				assert.InDelta(t, float64(i)/10, b.Lo, 1e-9)
			}
		})
	}
}

// TestWriteReportRowsInSampleOrder: the sample rows come in SampleOrder
// (s2 before s10), not in the order results.jsonl was written in, which
// is the order a parallel run's judgements finished in.
func TestWriteReportRowsInSampleOrder(t *testing.T) {
	t.Parallel()
	cfg := run.Config{RunID: "r", Metrics: []string{"m1", "m2"}}
	var buf bytes.Buffer
	for _, id := range []string{"s10", "s2", "s1", "s3"} {
		for _, m := range []string{"m2", "m1"} {
			b, err := json.Marshal(run.Result{ID: id, Metric: m, Value: 0.5})
			require.NoError(t, err)
			buf.Write(append(b, '\n'))
		}
	}
	results, err := run.ReadResultsFrom(run.FileResults, &buf)
	require.NoError(t, err)
	s := run.Summary{RunID: "r", Samples: 4, Metrics: run.Summarize(slices.Collect(results.All()), nil)}
	require.Equal(t, "m2", s.Metrics[0].Metric, "the summary is in the order of the lines")
	var out strings.Builder
	require.NoError(t, WriteHTML(&out, cfg, s, results, Data{}))
	page := out.String()
	var rows []string
	for _, m := range regexp.MustCompile(`<tr class="vals"><td class="mono" data-v="([^"]+)">`).FindAllStringSubmatch(page, -1) {
		rows = append(rows, m[1])
	}
	assert.Equal(t, []string{"s1", "s2", "s3", "s10"}, rows)
	assert.Equal(t, []string{"m1", "m2"}, reportColumns(t, page), "columns in the config's order")
	assert.Less(t, strings.Index(page, "<h3>m1 "), strings.Index(page, "<h3>m2 "), "evidence in the config's order")
}

// loadingTags are the elements of page that would load something or run
// a handler: a src, href or srcset attribute, or an on... attribute.
func loadingTags(t *testing.T, page string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	require.NoError(t, err)
	var out []string
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		for _, a := range n.Attr {
			if a.Key == "src" || a.Key == "href" || a.Key == "srcset" || strings.HasPrefix(a.Key, "on") {
				out = append(out, n.Data+" "+a.Key+"="+a.Val)
			}
		}
	}
	return out
}

// reportColumns are the metric columns of report.html's sample table.
func reportColumns(t *testing.T, page string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`<th data-col="\d+" data-metric="\d+" class="num">([^<]+)</th>`).FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}
