package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
)

const ctxLine = `{"query":"How does QUIC avoid head-of-line blocking?","chunks":[{"content":"QUIC delivers each stream independently, so a lost packet blocks only its stream.","score":0.9,"documentId":"rfc9000"}],"context":{"text":"QUIC delivers each stream independently.","tokenCount":40}}`

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func TestProfileUnits(t *testing.T) {
	t.Parallel()
	path := writeFile(t, ctxLine)
	d, err := dataset.OpenProfileData(path, "", dataset.ProfileContext, nil)
	require.NoError(t, err)
	for rec, rerr := range d.Records() {
		require.NoError(t, rerr)
		scores, err := ContextUnit().Judge(context.Background(), rec.Sample)
		require.NoError(t, err)
		require.Len(t, scores, 5)
		for i, sc := range scores {
			assert.Equal(t, contextMetrics[i], sc.Metric)
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
