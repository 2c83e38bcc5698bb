package daily

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestMarkdownStatesTheProfilesOverallWeights: the Markdown card states
// the weights its overall quality was computed with, the profile's; it
// printed seed 003's 0.5/0.2/0.2/0.1 beside a figure a profile of
// other weights had computed. A result that does not know its weights
// (decoded from JSON) states none.
func TestMarkdownStatesTheProfilesOverallWeights(t *testing.T) {
	t.Parallel()
	truth := &eval.Truth{Values: map[string]float64{"atr_pct": 3.03, "vwap_pct": 43.79}}
	report := "## 📖 The story\nThe ATR of 3.03% is high. The price is 3.03% above VWAP.\n"
	tests := map[string]struct {
		overall string // "" keeps the built-in's
		decoded bool
		want    string
	}{
		"the seed's weights": {want: "/100 (0.5 faithfulness + 0.2 completeness + 0.2 reasoning + 0.1 compliance; QoS apart)."},
		"a profile's own":    {overall: "overall: {faithfulness: 0.1, completeness: 0.2, reasoning: 0.2, compliance: 0.5}", want: "/100 (0.1 faithfulness + 0.2 completeness + 0.2 reasoning + 0.5 compliance; QoS apart)."},
		"weights unknown":    {decoded: true, want: "/100 (QoS apart)."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Default()
			if tc.overall != "" {
				var err error
				p, err = ParseProfile("my.yaml", edited(t, "overall: {faithfulness: 0.5, completeness: 0.2, reasoning: 0.2, compliance: 0.1}", tc.overall))
				require.NoError(t, err)
			}
			r := p.Score(report, truth, nil)
			w := p.Overall
			want := r.Faithfulness.OverallScore*w.Faithfulness + r.Completeness.OverallScore*w.Completeness +
				r.Reasoning.OverallScore*w.Reasoning + r.Compliance.OverallScore*w.Compliance
			assert.InDelta(t, want, r.OverallQuality, 0.05)
			if tc.decoded {
				r = Result{OverallQuality: r.OverallQuality, Gate: r.Gate}
			}
			assert.Contains(t, r.Markdown(), fmt.Sprintf("Overall quality **%.1f**%s", r.OverallQuality, tc.want))
		})
	}
}
