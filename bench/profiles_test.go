package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
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
		ids           []string
		line          int
		field, msg    string
	}{
		"context samples, ids from lines or given": {profile: ProfileContext, text: ctxLine + "\n\n" + ctxLine[:1] + `"id":"q2",` + ctxLine[1:] + "\n", ids: []string{"line-1", "q2"}},
		"research samples":                         {profile: ProfileResearch, text: `{"id":7,"query":"q","report":"# R\n\nText."}` + "\n" + `{"id":"b","query":"q","report":"Text."}`, ids: []string{"7", "b"}},
		"a report is required":                     {profile: ProfileResearch, text: `{"id":"a","query":"q"}`, line: 1, field: "report", msg: "missing"},
		"a bad line is named":                      {profile: ProfileContext, text: ctxLine + "\n{\"query\": \n", line: 2, msg: "not a JSON object of a context sample"},
		"ids are unique":                           {profile: ProfileResearch, text: `{"id":"a","report":"x"}` + "\n" + `{"id":"a","report":"y"}`, line: 2, field: "id", msg: `id "a" is also on line 1`},
		"an empty file":                            {profile: ProfileResearch, text: "\n\n", msg: "empty input"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, tc.text)
			d, err := OpenProfileData(path, "", tc.profile)
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

func TestProfileUnits(t *testing.T) {
	t.Parallel()
	path := writeFile(t, ctxLine)
	d, err := OpenProfileData(path, "", ProfileContext)
	require.NoError(t, err)
	for rec, rerr := range d.Records() {
		require.NoError(t, rerr)
		scores, err := ContextUnit().Judge(context.Background(), rec.Sample)
		require.NoError(t, err)
		require.Len(t, scores, 5)
		for i, sc := range scores {
			assert.Equal(t, ContextMetrics[i], sc.Metric)
			if i > 0 {
				assert.Equal(t, scores[0].Evidence.Counts[sc.Metric], sc.Value, sc.Metric)
			}
		}
	}

	p, err := agent.LoadProfile("research")
	require.NoError(t, err)
	u := ResearchUnit(p, agent.Options{})
	assert.Equal(t, []string{"grounding", "source_quality", "source_diversity", "completeness", "clarity", MetricTotal}, u.Metrics)
	scores, err := u.Judge(context.Background(), eval.Sample{ID: "r", Query: "What is QUIC?", Answer: "# QUIC\n\nQUIC is a transport protocol [RFC 9000](https://www.rfc-editor.org/rfc/rfc9000).\n"})
	require.NoError(t, err)
	require.Len(t, scores, 6)
	total, points := scores[5], 0.0
	for _, sc := range scores[:5] {
		points += sc.Points
	}
	assert.InDelta(t, points, total.Points, 1e-9)
	assert.Equal(t, 10.0, total.Max)
	assert.InDelta(t, points/10, total.Value, 1e-9)
}
