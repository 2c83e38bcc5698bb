package daily

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkDeductions asserts that every point a dimension lost is a
// deduction with its reason: 100 less the dimension's score is the sum of
// its deductions (floored at 0, each rounded to a tenth).
func checkDeductions(t *testing.T, scorer string, dims Dims, ds []Deduction) {
	t.Helper()
	for _, d := range ds {
		assert.NotEmpty(t, d.Reason, "%s %s: a deduction without its reason", scorer, d.Dimension)
		assert.Positive(t, d.Points, "%s %s: %s", scorer, d.Dimension, d.Reason)
		_, ok := dims.Get(d.Dimension)
		assert.True(t, ok, "%s: deduction of unknown dimension %q", scorer, d.Dimension)
	}
	for _, dim := range dims {
		got := ForDimension(ds, dim.Name)
		sum := 0.0
		for _, d := range got {
			sum += d.Points
		}
		assert.InDelta(t, 100-dim.Score, math.Min(100, sum), 0.1*float64(len(got)+1), "%s %s %v: deductions %+v", scorer, dim.Name, dim.Score, got)
	}
}

// TestEveryDeductionCarriesItsReason: over the fixtures and reports
// written for this test, in Thai and English, each scorer's lost points
// are deductions with reasons, and each score carries the seed's rating.
func TestEveryDeductionCarriesItsReason(t *testing.T) {
	t.Parallel()
	tr, tel := load(t)
	files, err := filepath.Glob("../../fixtures/daily/*.md")
	require.NoError(t, err)
	reports := map[string]string{
		"a long Thai story":     "## 📖 เรื่องราวของหุ้นตัวนี้\nราคาขึ้น ความไม่แน่นอน 56.6 สูง ATR 3.03% แกว่ง VWAP 43.79% แรงซื้อ วอลุ่ม 1.0 เท่า ทรงตัว\n",
		"English, no sections":  "The stock is maybe fine. It might be up. Generally it is what it is. Basically, really, very just fine.\n",
		"a Thai report with En": "## 📖 เรื่องราวของหุ้นตัวนี้\nความไม่แน่นอน 56.6 อยู่ในระดับสูง The stock looks overbought right now. ATR 3.03%\n\n## ⚠️ ระวังอะไร?\nระวังข่าวร้าย\n",
		"bad citations":         "## 📖 The story\nUncertainty is 56.6 [4] and VWAP 3.03% [^1] [1-2], buy more and sell some.\n",
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		reports[filepath.Base(f)] = string(b)
	}
	for name, rep := range reports {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Default().Score(rep, tr, tel)
			checkDeductions(t, "faithfulness", r.Faithfulness.MetricScores, r.Faithfulness.Deductions)
			checkDeductions(t, "completeness", r.Completeness.DimensionScores, r.Completeness.Deductions)
			checkDeductions(t, "reasoning", r.Reasoning.DimensionScores, r.Reasoning.Deductions)
			checkDeductions(t, "compliance", r.Compliance.DimensionScores, r.Compliance.Deductions)
			require.NotNil(t, r.QoS)
			checkDeductions(t, "qos", r.QoS.DimensionScores, r.QoS.Deductions)
			assert.Equal(t, rating(r.Faithfulness.OverallScore), r.Faithfulness.Rating)
			assert.NotEmpty(t, r.Compliance.Rating)
		})
	}
}

// TestRatingsAreTheSeeds: 90-100 Excellent, 80-89 Good, 70-79 Fair, 60-69
// Poor, below 60 Failed.
func TestRatingsAreTheSeeds(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]string{100: "Excellent", 90: "Excellent", 89.9: "Good", 80: "Good", 79.95: "Good", 70: "Fair", 69.9: "Poor", 60: "Poor", 59.9: "Failed", 0: "Failed"} {
		assert.Equal(t, want, rating(v), "%v", v)
	}
}
