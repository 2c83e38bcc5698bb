package agree_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
)

// TestResultKappaUndefinedIsNullAndNA: Cohen's kappa, (po - pe)/(1 - pe)
// (Cohen 1960, eq. 1), is 0/0 at a threshold where the predictions and the
// labels are all of one and the same class (pe = 1): with the labels all
// true, the best threshold calls every value true. It was written 0.000
// beside an F1 of 1.000, reading as a judge no better than chance; it is
// n/a in the Markdown and null in the JSON. Where pe is below 1 (the
// predictions mixed) kappa is the number it is, 0 included.
func TestResultKappaUndefinedIsNullAndNA(t *testing.T) {
	t.Parallel()
	th := 0.5
	tests := map[string]struct {
		labels    []bool
		fixed     any // the JSON kappa at 0.5
		best      any // the JSON kappa at the best threshold
		fixedCell string
		bestCell  string
	}{
		// At 0.5 two of three are called true: po = pe = 2/3, kappa 0.
		"all true": {labels: []bool{true, true, true}, fixed: 0.0, best: nil, fixedCell: "0.000", bestCell: "n/a"},
		// At 0.5 one of three is called false: po = pe = 1/3, kappa 0.
		"all false": {labels: []bool{false, false, false}, fixed: 0.0, best: nil, fixedCell: "0.000", bestCell: "n/a"},
		// 0.9 and 0.8 true, 0.2 false: every call right, kappa 1.
		"both kinds": {labels: []bool{true, false, true}, fixed: 1.0, best: 1.0, fixedCell: "1.000", bestCell: "1.000"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			values := []float64{0.9, 0.2, 0.8}
			rows := make([]agree.Row, len(values))
			for i, v := range values {
				rows[i] = agree.Row{ID: string(rune('a' + i)), Line: i + 1, Value: v, Label: tc.labels[i]}
			}
			res := agree.Rows("faithfulness", rows, 0, agree.Options{Label: "faithful", Threshold: &th})
			b, err := json.Marshal(res)
			require.NoError(t, err)
			var got struct {
				Fixed struct {
					Kappa any `json:"kappa"`
				} `json:"fixed"`
				Best struct {
					Kappa any `json:"kappa"`
				} `json:"best"`
			}
			require.NoError(t, json.Unmarshal(b, &got))
			assert.Equal(t, tc.fixed, got.Fixed.Kappa, "fixed")
			assert.Equal(t, tc.best, got.Best.Kappa, "best")
			// The kappa is the cell before the F1 (the second to last but one).
			lines := strings.Split(strings.TrimSpace(res.Markdown()), "\n")
			require.Len(t, lines, 2)
			for i, want := range []string{tc.fixedCell, tc.bestCell} {
				cells := strings.Split(lines[i], " | ")
				assert.Equal(t, want, cells[len(cells)-3], lines[i])
			}
		})
	}
}
