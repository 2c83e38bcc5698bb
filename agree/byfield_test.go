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

// TestMeasureNamesAFieldNoRecordHas holds that a --by field no record
// has is exit 2 naming the flag, not one group "(none)" of every record
// printed as a result; and that a path into the metadata of records
// that have none (their "meta" object is not read) says where metadata
// is read from, for --by and --score alike.
func TestMeasureNamesAFieldNoRecordHas(t *testing.T) {
	t.Parallel()
	var lines string
	for i := range 12 {
		label := "true"
		if i%3 == 0 {
			label = "false"
		}
		lines += `{"id":"r` + string(rune('a'+i)) + `","question":"q","answer":"a","human":{"faithful":` + label + `},"metadata":{"model":"m` + string(rune('0'+i%2)) + `","judge":0.` + string(rune('1'+i%9)) + `}}` + "\n"
	}
	withMeta := filepath.Join(t.TempDir(), "meta.jsonl")
	require.NoError(t, os.WriteFile(withMeta, []byte(strings.ReplaceAll(lines, `"metadata":`, `"meta":`)), 0o600))
	withMetadata := filepath.Join(t.TempDir(), "metadata.jsonl")
	require.NoError(t, os.WriteFile(withMetadata, []byte(lines), 0o600))
	tests := map[string]struct {
		data, score, by string
		want            string // "" passes
		flag            bool   // an error naming --by
	}{
		"--by a field every record has":              {data: withMetadata, score: "meta.judge", by: "meta.model"},
		"--by a field no record has":                 {data: withMetadata, score: "meta.judge", by: "meta.modle", flag: true, want: "--by: no record of " + withMetadata + " has the field meta.modle: every record would be the one group (none)"},
		"--by into records without metadata":         {data: withMeta, score: "id", by: "meta.model", flag: true, want: "has the field meta.model: every record would be the one group (none) (no record has metadata: it is read from the field metadata, an object)"},
		"--by a label no record has":                 {data: withMetadata, score: "meta.judge", by: "human.annotator", flag: true, want: "has the field human.annotator: every record would be the one group (none)"},
		"--score into records without metadata":      {data: withMeta, score: "meta.judge", want: "meta.judge: no value (the record has no metadata: it is read from the field metadata, an object)"},
		"--score a field records with metadata lack": {data: withMetadata, score: "meta.judg", want: "meta.judg: no value (give every labelled record one"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, tc.data)
			j.Score, j.By = tc.score, tc.by
			out, err := agree.Measure(context.Background(), j)
			if tc.want == "" {
				require.NoError(t, err)
				require.Len(t, out.Tables, 1)
				assert.Len(t, out.Tables[0].Results[0].Groups, 2)
				return
			}
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
			if tc.flag {
				assert.Equal(t, "--by", ie.Field)
			}
		})
	}
}
