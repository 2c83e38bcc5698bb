package daily_test

import (
	"fmt"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/daily"
)

// Score judges a report against its truth: here an English report whose
// VWAP figure is ATR's, the seed's "number swapping".
func ExampleProfile_Score() {
	truth := &eval.Truth{
		Values:      map[string]float64{"atr_pct": 3.03, "vwap_pct": 43.79},
		Percentiles: map[string]float64{"atr_pct": 88},
	}
	report := "## 📖 The story\nThe ATR of 3.03% is in the 88th percentile. The price is 3.03% above VWAP.\n"
	r := daily.Default().Score(report, truth, nil)
	fmt.Println(r.Faithfulness.OverallScore, r.Faithfulness.Violations)
	fmt.Println(r.Gate.Decision)
	// Output:
	// 85 [vwap_pct mismatch: narrative claims 3.03, actual is 43.79]
	// review
}
