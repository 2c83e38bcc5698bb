package agree

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/stats"
)

// TestMarkdownThresholdSplitsTheValuesAsItDoes holds that a threshold
// the Markdown prints, read back (as --threshold), calls the same values
// true as the threshold the row was measured at: its matrix is the
// row's. Four significant digits do not always: 0.12341 and 0.12342 have
// their best threshold at 0.123415, not 0.1234. Groups alike.
func TestMarkdownThresholdSplitsTheValuesAsItDoes(t *testing.T) {
	t.Parallel()
	fixed := 0.5
	tests := map[string]struct {
		values []float64
		labels []bool
		want   string // the best threshold as printed
	}{
		"values five digits apart":    {values: []float64{0.01, 0.12341, 0.12342, 0.9}, labels: []bool{false, false, true, true}, want: "0.123415"},
		"a midpoint with float noise": {values: []float64{0.2, 0.2, 0.4, 0.4}, labels: []bool{false, false, true, true}, want: "0.3"},
		"a judge's thirds":            {values: []float64{1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3}, labels: []bool{false, false, true, true}, want: "0.5"},
		"large values close by":       {values: []float64{1000.001, 1000.002, 1000.003}, labels: []bool{false, true, true}, want: "1000.0015"},
	}
	cell := regexp.MustCompile(`\| (best )?([^ |]+) \| [^|]+ \| [^|]+ \| [^|]+ \| (\d+)/(\d+)/(\d+)/(\d+) \|`)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var rows []Row
			for i, v := range tc.values {
				group := "a"
				if i%2 == 1 {
					group = "b"
				}
				rows = append(rows, Row{ID: strconv.Itoa(i), Value: v, Label: tc.labels[i], Group: group})
			}
			res := Rows("judge", rows, 0, Options{Label: "ok", Threshold: &fixed, By: "meta.g"})
			out := &Outcome{File: "d.jsonl", Tables: []Table{{Results: []Result{res}}}}
			var md strings.Builder
			require.NoError(t, out.Write(&md, nil, Style{}))
			assert.Contains(t, md.String(), "| best "+tc.want+" |")
			var checked int
			group := "" // the table's: "" the whole's
			for _, line := range strings.Split(md.String(), "\n") {
				if g, ok := strings.CutPrefix(line, "By meta.g = "); ok {
					group = g
				}
				m := cell.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				th, err := strconv.ParseFloat(m[2], 64)
				require.NoError(t, err, line)
				var values []float64
				var labels []bool
				for _, r := range rows {
					if group == "" || r.Group == group {
						values = append(values, r.Value)
						labels = append(labels, r.Label)
					}
				}
				c := stats.ConfusionAt(values, labels, th)
				assert.Equal(t, m[3]+"/"+m[4]+"/"+m[5]+"/"+m[6], strconv.Itoa(c.TP)+"/"+strconv.Itoa(c.FP)+"/"+strconv.Itoa(c.TN)+"/"+strconv.Itoa(c.FN), "%s read back", line)
				checked++
			}
			assert.Equal(t, 6, checked, "the whole's two rows and each group's")
		})
	}
}
