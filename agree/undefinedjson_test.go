package agree_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
)

// TestResultJSONWritesAnUndefinedAUCAsNull: with the labels all of one
// class the ROC AUC is undefined. The Markdown table says n/a; the JSON
// must not say 0, which reads as a judge that ranks every pair wrong, but
// null. Where both classes are present the AUC is written as a number.
func TestResultJSONWritesAnUndefinedAUCAsNull(t *testing.T) {
	t.Parallel()
	th := 0.5
	tests := map[string]struct {
		labels []bool
		auc    any // the JSON value of "auc"
		md     string
	}{
		"all true":   {labels: []bool{true, true, true}, auc: nil, md: "| n/a |"},
		"all false":  {labels: []bool{false, false, false}, auc: nil, md: "| n/a |"},
		"both kinds": {labels: []bool{true, false, true}, auc: 1.0, md: "| 1.000 |"},
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
			var got map[string]any
			require.NoError(t, json.Unmarshal(b, &got))
			v, ok := got["auc"]
			require.True(t, ok, "auc is missing from %s", b)
			assert.Equal(t, tc.auc, v)
			assert.Contains(t, res.Markdown(), tc.md)
		})
	}
}
