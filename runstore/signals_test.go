package runstore

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/run"
)

// TestABRowZeroChangeNeverSignificant: an A/B row whose change shows as
// +0.0% is significant by neither rule, whatever its sizes and p-value;
// a change that shows is, by each rule that holds.
func TestABRowZeroChangeNeverSignificant(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		control, treatment float64
		p                  run.Num
		seed, test         bool
		shown              string
	}{
		"no change":                             {0.5, 0.5, run.Num(math.NaN()), false, false, "+0.0%"},
		"a change under 0.05%, p 0.001":         {0.5, 0.5002, 0.001, false, false, "+0.0%"},
		"a fall under 0.05%, p 0.001":           {0.5, 0.4998, 0.001, false, false, "-0.0%"},
		"a change that shows, p 0.001":          {0.5, 0.51, 0.001, true, true, "+2.0%"},
		"a change that shows, p 0.2":            {0.5, 0.51, 0.2, true, false, "+2.0%"},
		"nothing to measure (0/0) is no change": {0, 0, 0.001, false, false, "-"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var results []run.ABTestResult
			for range 200 {
				results = append(results, run.ABTestResult{Variant: run.VariantControl, QualityScore: heuristics.ContextAssessment{Overall: tc.control}},
					run.ABTestResult{Variant: run.VariantTreatment, QualityScore: heuristics.ContextAssessment{Overall: tc.treatment}})
			}
			an := run.AnalyzeABTest(results)
			require.Equal(t, tc.shown, pctText(an.QualityImprovement))
			r := newABRow("m", an, "wilcoxon", tc.p)
			assert.Equal(t, tc.seed, r.Analysis.IsSignificant, "seed rule")
			assert.Equal(t, tc.test, r.Significant, "paired test")
			d := &RunDiff{AB: []ABRow{r}}
			var buf bytes.Buffer
			require.NoError(t, d.abTable().Write(&buf, false))
			if !tc.seed && !tc.test {
				assert.NotRegexp(t, `(^|[^t] )significant`, buf.String())
			}
		})
	}
}
