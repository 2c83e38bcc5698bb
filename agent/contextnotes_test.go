package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
)

// TestContextCardSaysWhatWasMissing: a retrieval scored with negative
// logits and no context text carries the scorer's notes into the card's
// JSON, YAML and Markdown, so a user sees how the input was read.
func TestContextCardSaysWhatWasMissing(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("context")
	require.NoError(t, err)
	sample, err := eval.DecodeContextSample("logits.json", []byte(`{
	  "query": "ผลตอบแทนพันธบัตรรัฐบาลอายุ 10 ปี",
	  "chunks": [
	    {"content": "Ten-year yields rose to 2.9% in May.", "score": 0.55, "rerankScore": -0.6, "documentId": "bond-1", "metadata": {}},
	    {"content": "The curve flattened.", "score": 0.5, "rerankScore": -2.1, "documentId": "bond-2", "metadata": {}}
	  ],
	  "context": {"text": null}
	}`))
	require.NoError(t, err)
	card, err := Score(context.Background(), p, sample, Options{NoRecency: true, Concurrency: 1})
	require.NoError(t, err)
	v := NewContextView(p, card, sample)
	want := []string{
		"context.text is missing or null: context sufficiency is 0, as for an empty context",
		"negative rerankScore in chunks[0], chunks[1]: used as given in place of score (cross-encoder logits are not normalised), so retrieval confidence can fall below 0",
		"chunks[0].rerankScore is -0.6, not positive: the score spread (last over first) counts as 0",
	}
	assert.Equal(t, want, v.Notes)
	assert.Less(t, v.RetrievalConfidence, 0.0, "logits below zero are used as given")

	b, err := json.Marshal(v)
	require.NoError(t, err)
	var j struct {
		Notes []string `json:"notes"`
	}
	require.NoError(t, json.Unmarshal(b, &j))
	assert.Equal(t, want, j.Notes)

	y, err := yaml.Marshal(v)
	require.NoError(t, err)
	var yv struct {
		Notes []string `yaml:"notes"`
	}
	require.NoError(t, yaml.Unmarshal(y, &yv))
	assert.Equal(t, want, yv.Notes)

	md := v.Markdown()
	for _, n := range want {
		assert.Contains(t, md, "Note: "+n)
	}
	assert.Less(t, strings.Index(md, "Note: "), strings.Index(md, "CRAG action:"), "notes come before the action")
}
