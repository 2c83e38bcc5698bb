package daily

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// load returns the fixtures' truth and telemetry.
func load(t testing.TB) (*eval.Truth, *eval.Telemetry) {
	t.Helper()
	td, err := os.ReadFile("../../fixtures/daily/truth.json")
	require.NoError(t, err)
	tr, err := eval.ReadTruth("truth.json", td, Default().MetricNames())
	require.NoError(t, err)
	rd, err := os.ReadFile("../../fixtures/daily/run.json")
	require.NoError(t, err)
	tel, err := eval.ReadTelemetry("run.json", rd)
	require.NoError(t, err)
	return tr, tel
}

func report(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../fixtures/daily/" + name)
	require.NoError(t, err)
	return string(b)
}

func TestFaithfulReportsPublish(t *testing.T) {
	t.Parallel()
	tr, tel := load(t)
	for _, lang := range []string{"th", "en"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			r := Default().Score(report(t, lang+"-faithful.md"), tr, tel)
			assert.Equal(t, lang, r.Language)
			assert.Empty(t, r.Faithfulness.Violations)
			assert.InDelta(t, 100, r.Faithfulness.OverallScore, 1e-9)
			assert.Empty(t, r.Completeness.MissingElements)
			assert.Empty(t, r.Compliance.Violations)
			assert.Empty(t, r.Reasoning.Issues)
			// 6 numbers + 4 percentiles + ... verified: every claim of the
			// report is checked, none is wrong.
			assert.GreaterOrEqual(t, r.Faithfulness.VerifiedClaims, 20)
			assert.Equal(t, Gate{Decision: Publish, Failed: []string{}}, r.Gate)
			assert.InDelta(t, 100, r.OverallQuality, 1e-9)
			require.NotNil(t, r.QoS)
			// 14 s is "acceptable" (70) for latency and, inferred from it,
			// scalability; the rest is clean: 0.25*70+0.2*100+0.15*100+
			// 0.2*100+0.1*100+0.1*70 = 89.5.
			assert.InDelta(t, 89.5, r.QoS.OverallScore, 1e-9)
		})
	}
}

// TestSeedViolationsAreCaughtAndNamed runs each of seed 003's example
// violations, in Thai and in English, and checks the scorer that must
// catch it names it.
func TestSeedViolationsAreCaughtAndNamed(t *testing.T) {
	t.Parallel()
	tr, tel := load(t)
	type find func(Result) []string
	faith := func(r Result) []string { return r.Faithfulness.Violations }
	comp := func(r Result) []string { return r.Compliance.Violations }
	reason := func(r Result) []string { return r.Reasoning.Issues }
	tests := map[string]struct {
		in    find
		want  []string
		score func(Result) float64
		below float64
	}{
		"swap": {in: faith, want: []string{"vwap_pct mismatch: narrative claims 3.03, actual is 43.79"},
			score: func(r Result) float64 { v, _ := r.Faithfulness.MetricScores.Get("numeric_accuracy"); return v }, below: 100},
		"percentile": {in: faith, want: []string{"atr_pct percentile mismatch: narrative claims 75, actual is 88"},
			score: func(r Result) float64 { v, _ := r.Faithfulness.MetricScores.Get("percentile_accuracy"); return v }, below: 100},
		"interpretation": {in: faith, want: []string{"uncertainty_score 56.6 interpreted as 'moderate' but should be 'high'"},
			score: func(r Result) float64 { v, _ := r.Faithfulness.MetricScores.Get("interpretation_accuracy"); return v }, below: 100},
		"citation": {in: faith, want: []string{"citation [5] is beyond the news list (3 items)"},
			score: func(r Result) float64 { v, _ := r.Faithfulness.MetricScores.Get("news_citation_accuracy"); return v }, below: 100},
		"format": {in: comp, want: []string{"Contains tables (prohibited)", "Contains numbered lists (prohibited)"},
			score: func(r Result) float64 { v, _ := r.Compliance.DimensionScores.Get("format_compliance"); return v }, below: 50},
		"missing-section": {in: comp, want: []string{"Missing required section: Risk Section (⚠)"},
			score: func(r Result) float64 { v, _ := r.Compliance.DimensionScores.Get("structure_compliance"); return v }, below: 80},
		"two-recommendations": {in: reason, want: []string{"Contradiction: 2 recommendations (SELL and HOLD); give one"},
			score: func(r Result) float64 { v, _ := r.Reasoning.DimensionScores.Get("consistency"); return v }, below: 60},
	}
	for name, tc := range tests {
		for _, lang := range []string{"th", "en"} {
			t.Run(lang+"/"+name, func(t *testing.T) {
				t.Parallel()
				r := Default().Score(report(t, lang+"-"+name+".md"), tr, tel)
				got := tc.in(r)
				for _, w := range tc.want {
					assert.Contains(t, got, w)
				}
				assert.Less(t, tc.score(r), tc.below)
			})
		}
	}
}

func TestExtractBindsNumbersToTheirMetric(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text    string
		numbers []Claim
		pcts    []PercentileClaim
		bands   []BandClaim
	}{
		"a number after its name": {
			text:    "ATR 3.03% today.",
			numbers: []Claim{{Metric: "atr_pct", Value: 3.03, Percent: true, Text: "3.03%"}},
		},
		"a number before its name, after a link word": {
			text:    "The price is 43.79% above VWAP.",
			numbers: []Claim{{Metric: "vwap_pct", Value: 43.79, Percent: true, Text: "43.79%", Direction: "above"}},
		},
		"Thai: price above VWAP is VWAP's number": {
			text:    "ราคา 43.79% เหนือ VWAP",
			numbers: []Claim{{Metric: "vwap_pct", Value: 43.79, Percent: true, Text: "43.79%", Direction: "above"}},
		},
		"a percent sign never binds to a price": {
			text: "The price rose 4.2% today.",
		},
		"a Thai percentile bound to the metric before it": {
			text:    "RSI 75 ซึ่งอยู่ในเปอร์เซ็นไทล์ 85%",
			numbers: []Claim{{Metric: "rsi", Value: 75, Text: "75"}},
			pcts:    []PercentileClaim{{Metric: "rsi", Value: 85, Text: "85%"}},
		},
		"an English ordinal percentile": {
			text:    "The volume ratio of 1.2x is in the 88th percentile.",
			numbers: []Claim{{Metric: "volume_ratio", Value: 1.2, Text: "1.2x"}},
			pcts:    []PercentileClaim{{Metric: "volume_ratio", Value: 88, Text: "88th"}},
		},
		"the longest band word wins": {
			text:    "ความไม่แน่นอน 80 อยู่ในระดับสูงมาก",
			numbers: []Claim{{Metric: "uncertainty_score", Value: 80, Text: "80"}},
			bands:   []BandClaim{{Metric: "uncertainty_score", Label: "extreme", Word: "ระดับสูงมาก"}},
		},
		"dates and citations are not values": {
			text: "On 2025-11-01 RSI [2] moved.",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			x := Default().Extract(tc.text)
			assert.Equal(t, tc.numbers, x.Numbers)
			assert.Equal(t, tc.pcts, x.Percentiles)
			assert.Equal(t, tc.bands, x.Bands)
		})
	}
}

func TestSentencesOfThaiAreCountedBySpacesBetweenThaiLetters(t *testing.T) {
	t.Parallel()
	d := Default().parse("## 📖 เรื่องราวของหุ้นตัวนี้\nราคาขึ้นวันนี้ ATR 3.03% สูงกว่าปกติ ตลาดยังเป็นกลาง\n")
	require.Len(t, d.sections, 1)
	assert.Equal(t, 2, d.sections[0].sentences)
	assert.Equal(t, "th", d.lang)
}

func TestQoSPenalisesErrorsAndDegradingLatency(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		tel  eval.Telemetry
		dims map[string]float64
		msg  string
	}{
		"an error": {
			tel:  eval.Telemetry{Total: 4, LLMCalls: 1, Errors: []string{"news fetch: timeout"}},
			dims: map[string]float64{"reliability": 30, "latency": 100},
			msg:  "1 error during the run (first: news fetch: timeout)",
		},
		"very slow and degrading": {
			tel:  eval.Telemetry{Total: 70, LLMCalls: 3, DBQueries: 12, History: []float64{10, 12}},
			dims: map[string]float64{"reliability": 80, "latency": 40, "resource_efficiency": 75, "scalability": 10},
			msg:  "Latency degrading: 70.00s against a mean of 11.00s over 2 earlier runs",
		},
		"slower than the one earlier run": {
			tel: eval.Telemetry{Total: 70, LLMCalls: 3, History: []float64{10}},
			msg: "Latency degrading: 70.00s against a mean of 10.00s over 1 earlier run",
		},
		"expensive": {
			tel:  eval.Telemetry{Total: 6, CostUSD: 0.25},
			dims: map[string]float64{"cost_efficiency": 40, "latency": 85},
			msg:  "Poor cost: $0.2500",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := Default().QoS(&tc.tel)
			for k, want := range tc.dims {
				got, ok := q.DimensionScores.Get(k)
				require.True(t, ok, k)
				assert.InDelta(t, want, got, 1e-9, k)
			}
			assert.Contains(t, q.Issues, tc.msg)
		})
	}
}

func TestDimsKeepTheSeedsOrder(t *testing.T) {
	t.Parallel()
	tr, _ := load(t)
	r := Default().Score(report(t, "en-faithful.md"), tr, nil)
	b, err := r.Compliance.DimensionScores.MarshalJSON()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), `{"structure_compliance":100,"content_compliance":100,"format_compliance":100`), string(b))
	assert.Nil(t, r.QoS)
}

// TestPercentWrittenAsAWord: "percent", "per cent" and "pct" say what
// "%" says, so the number binds to the percent
// metric it names, never to the price written before it.
func TestPercentWrittenAsAWord(t *testing.T) {
	t.Parallel()
	vwap := func(text string) []Claim {
		return []Claim{{Metric: "vwap_pct", Value: 43.79, Percent: true, Text: text, Direction: "above"}}
	}
	tests := map[string]struct {
		text    string
		numbers []Claim
		pcts    []PercentileClaim
	}{
		"percent":             {text: "The price trades 43.79 percent above VWAP.", numbers: vwap("43.79 percent")},
		"per cent":            {text: "The price trades 43.79 per cent above VWAP.", numbers: vwap("43.79 per cent")},
		"PCT":                 {text: "The price trades 43.79 PCT above VWAP.", numbers: vwap("43.79 PCT")},
		"after its name":      {text: "ATR 3.03 percent today.", numbers: []Claim{{Metric: "atr_pct", Value: 3.03, Percent: true, Text: "3.03 percent"}}},
		"never binds a price": {text: "The price rose 4.2 percent today."},
		"percentile is no percent": {
			text:    "The volume ratio of 1.2x is at the 88 percentile.",
			numbers: []Claim{{Metric: "volume_ratio", Value: 1.2, Text: "1.2x"}},
			pcts:    []PercentileClaim{{Metric: "volume_ratio", Value: 88, Text: "88"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			x := Default().Extract(tc.text)
			assert.Equal(t, tc.numbers, x.Numbers)
			assert.Equal(t, tc.pcts, x.Percentiles)
		})
	}
}
