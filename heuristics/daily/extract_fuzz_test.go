package daily

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assaylabs/assay/eval"
)

// FuzzExtractClaims runs the pattern extraction and the five scorers over
// arbitrary text: no panic, scores within 0-100, and every bound number
// names one of the profile's metrics.
func FuzzExtractClaims(f *testing.F) {
	for _, s := range []string{
		"ราคา 43.79% เหนือ VWAP ซึ่งอยู่ในเปอร์เซ็นไทล์ 95%",
		"The ATR of 3.03% sits in the 88th percentile [1][7] [^2] [1-3]",
		"## 📖 The story\n| a | b |\n1. x\n- y\n",
		"-5% 1,234.5x 12th 2025-11-01 [", "%%%[[]]]", "ความไม่แน่นอน 56.6 อยู่ในระดับสูงมาก",
		"\xff\xfe 3.0 ATR", "above VWAP 1e9 above",
	} {
		f.Add(s)
	}
	p := Default()
	tr := &eval.Truth{Values: map[string]float64{"atr_pct": 3.03, "vwap_pct": 43.79, "uncertainty_score": 56.6},
		Percentiles: map[string]float64{"atr_pct": 88}, News: []eval.News{{Title: "a"}}}
	known := map[string]bool{}
	for _, n := range p.MetricNames() {
		known[n] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		x := p.Extract(s)
		for _, c := range x.Numbers {
			if !known[c.Metric] {
				t.Fatalf("number %q bound to unknown metric %q", c.Text, c.Metric)
			}
			if !strings.Contains(s, strings.TrimSuffix(strings.TrimSuffix(c.Text, "%"), "x")) {
				t.Fatalf("number %q is not in the text", c.Text)
			}
		}
		if !utf8.ValidString(s) {
			return
		}
		r := p.Score(s, tr, &eval.Telemetry{Total: 1})
		for _, v := range []float64{r.Faithfulness.OverallScore, r.Completeness.OverallScore, r.Reasoning.OverallScore,
			r.Compliance.OverallScore, r.QoS.OverallScore, r.OverallQuality} {
			if !(v >= 0 && v <= 100) {
				t.Fatalf("score %v out of 0-100", v)
			}
		}
	})
}
