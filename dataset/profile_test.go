package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

const ctxLine = `{"query":"How does QUIC avoid head-of-line blocking?","chunks":[{"content":"QUIC delivers each stream independently, so a lost packet blocks only its stream.","score":0.9,"documentId":"rfc9000"}],"context":{"text":"QUIC delivers each stream independently.","tokenCount":40}}`

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func TestOpenProfileData(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		profile, text string
		metrics       []string // the daily truth's metric names
		ids           []string
		line          int
		field, msg    string
	}{
		"context samples, ids from lines or given":     {profile: ProfileContext, text: ctxLine + "\n\n" + ctxLine[:1] + `"id":"q2",` + ctxLine[1:] + "\n", ids: []string{"line-1", "q2"}},
		"research samples":                             {profile: ProfileResearch, text: `{"id":7,"query":"q","report":"# R\n\nText."}` + "\n" + `{"id":"b","query":"q","report":"Text."}`, ids: []string{"7", "b"}},
		"a report is required":                         {profile: ProfileResearch, text: `{"id":"a","query":"q"}`, line: 1, field: "report", msg: "missing"},
		"a bad line is named":                          {profile: ProfileContext, text: ctxLine + "\n{\"query\": \n", line: 2, msg: "not a JSON object of a context sample"},
		"ids are unique":                               {profile: ProfileResearch, text: `{"id":"a","report":"x"}` + "\n" + `{"id":"a","report":"y"}`, line: 2, field: "id", msg: `id "a" is also on line 1`},
		"an empty file":                                {profile: ProfileResearch, text: "\n\n", msg: "empty input"},
		"a daily truth keyed by the profile's metrics": {profile: ProfileDaily, metrics: []string{"atr_pct"}, text: `{"id":"d1","report":"# R","truth":{"values":{"atr_pct":3}}}`, ids: []string{"d1"}},
		"a daily truth keyed by a metric the profile lacks": {profile: ProfileDaily, metrics: []string{"atr_pct"}, text: `{"id":"d1","report":"# R","truth":{"values":{"rsi":3}}}`,
			line: 1, field: "truth", msg: "unknown metric name; the profile knows atr_pct"},
		"no metric names take any": {profile: ProfileDaily, text: `{"id":"d1","report":"# R","truth":{"values":{"rsi":3}}}`, ids: []string{"d1"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, tc.text)
			d, err := OpenProfileData(path, "", tc.profile, tc.metrics)
			if tc.msg != "" {
				var ie *eval.InputError
				require.True(t, errors.As(err, &ie), "got %v", err)
				assert.Equal(t, path, ie.File)
				assert.Equal(t, tc.line, ie.Line)
				assert.Equal(t, tc.field, ie.Field)
				assert.Contains(t, ie.Msg, tc.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(tc.ids), d.Len())
			var ids []string
			for rec, err := range d.Records() {
				require.NoError(t, err)
				assert.Equal(t, rec.ID, rec.Sample.ID)
				ids = append(ids, rec.ID)
			}
			assert.Equal(t, tc.ids, ids)
		})
	}
}
