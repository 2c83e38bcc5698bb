package serve

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestARunReadsItsDatasetInTheFormatGiven: a run's dataset text is read
// in the format its request names, TSV as a .tsv file is; an unknown
// format is a 400 naming the formats there are.
func TestARunReadsItsDatasetInTheFormatGiven(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	tests := map[string]struct {
		dataset, format string
		code, records   int
		msg             string
	}{
		"tsv": {dataset: "question\tanswer\tcontexts\nWho wrote Dubliners?\tJames Joyce, in 1914.\tDubliners is by James Joyce.\nq2\ta2\tc2\n",
			format: "tsv", code: http.StatusAccepted, records: 2},
		"csv": {dataset: "question,answer,contexts\nWho wrote Dubliners?,\"James Joyce, in 1914.\",c\n",
			format: "csv", code: http.StatusAccepted, records: 1},
		"an unknown format": {dataset: "question\tanswer\nq\ta\n", format: "xlsx", code: http.StatusBadRequest,
			msg: `format: want jsonl, json, csv or tsv, got "xlsx"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, body := call(t, http.MethodPost, s.URL+"/v1/runs", mustJSON(t, map[string]any{"metrics": []string{"faithfulness"}, "dataset": tc.dataset, "format": tc.format}))
			require.Equal(t, tc.code, code, body)
			if tc.msg != "" {
				var eb ErrorBody
				require.NoError(t, json.Unmarshal([]byte(body), &eb))
				assert.Equal(t, "format", eb.Field)
				assert.Equal(t, tc.msg, eb.Error)
				return
			}
			var st RunStatus
			require.NoError(t, json.Unmarshal([]byte(body), &st))
			assert.Equal(t, tc.records, st.Records)
		})
	}
}
