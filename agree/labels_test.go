package agree_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/eval"
)

// labelData writes records whose human.verdict is each of labels (a JSON
// value, "" for none) and whose meta.judge alternates high and low.
func labelData(t *testing.T, labels ...string) string {
	t.Helper()
	var b strings.Builder
	for i, l := range labels {
		human := ""
		if l != "" {
			human = `,"human":{"verdict":` + l + `}`
		}
		judge := "0.8"
		if i%2 == 1 {
			judge = "0.3"
		}
		b.WriteString(`{"id":"v` + string(rune('a'+i)) + `","question":"Is the office open on Sunday?","answer":"No.","metadata":{"judge":` + judge + `}` + human + "}\n")
	}
	path := filepath.Join(t.TempDir(), "verdicts.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// TestMeasureRefusesALabelItCannotRead: a label that is there but is not
// one of the label's kind (a binary label of "unsure" or 2) is an input
// error naming its line, not a record counted among the unlabelled.
func TestMeasureRefusesALabelItCannotRead(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		labels    []string
		labelType string
		want      string
	}{
		"a binary label in words": {[]string{"true", "false", `"unsure"`, "true"}, "",
			`:3: human.verdict is "unsure": a binary label must be true or false (1 or 0; "yes" or "no"), or absent or null on a record without one`},
		"a binary label out of range": {[]string{"1", "0", "1", "2"}, "binary",
			`:4: human.verdict is 2: a binary label must be true or false (1 or 0; "yes" or "no"), or absent or null on a record without one`},
		"a graded label in words": {[]string{"4", "2", `"high"`, "5"}, "",
			`:3: human.verdict is "high": a graded label must be a number, or absent or null on a record without one`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, labelData(t, tc.labels...))
			j.Label, j.LabelType, j.Score = "verdict", tc.labelType, "meta.judge"
			out, err := agree.Measure(context.Background(), j)
			assert.Nil(t, out)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestMeasureLeavesOutRecordsWithoutALabel: an absent, null or blank
// label is a record without one, counted as skipped.
func TestMeasureLeavesOutRecordsWithoutALabel(t *testing.T) {
	t.Parallel()
	j := job(t, labelData(t, "true", "false", "", "null", `"  "`, "true", "false"))
	j.Label, j.Score = "verdict", "meta.judge"
	out, err := agree.Measure(context.Background(), j)
	require.NoError(t, err)
	res := out.Tables[0].Results[0]
	assert.Equal(t, 4, res.N)
	assert.Equal(t, 3, res.Skipped)
}
