package eval_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// The inputs seed 002's code scores although a tidy pipeline would not
// send them: logits from a cross-encoder, and contexts without text.
func TestDecodeContextSampleTakesWhatTheSeedScores(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want eval.Sample
	}{
		"cross-encoder logits below zero are kept as they are": {
			in: `{"query": "Which filter removes hum?", "chunks": [
			  {"content": "A notch filter at 50 Hz.", "score": 0.41, "rerankScore": -2.75, "documentId": "dsp-1"},
			  {"content": "Shielded cable helps.", "score": -0.08, "rerankScore": -7.5e-1, "documentId": "dsp-2"}],
			  "context": {"text": "A notch filter at 50 Hz.", "tokenCount": 9}}`,
			want: eval.Sample{Query: "Which filter removes hum?", Sources: []eval.Source{
				{ID: "dsp-1", Text: "A notch filter at 50 Hz.", Score: 0.41, RerankScore: contextScorePtr(-2.75)},
				{ID: "dsp-2", Text: "Shielded cable helps.", Score: -0.08, RerankScore: contextScorePtr(-0.75)},
			}, Context: &eval.Context{Text: "A notch filter at 50 Hz.", TokenCount: 9}},
		},
		"a zero rerank score replaces the retrieval score": {
			in: `{"query": "q", "chunks": [{"content": "c", "score": 0.6, "rerankScore": 0, "documentId": "d"}]}`,
			want: eval.Sample{Query: "q", Sources: []eval.Source{
				{ID: "d", Text: "c", Score: 0.6, RerankScore: contextScorePtr(0)}}},
		},
		"context without its text field, token count left out too": {
			in:   `{"query": "ราคาน้ำมันดิบวันนี้", "chunks": [], "context": {"chunkIds": ["a"]}}`,
			want: eval.Sample{Query: "ราคาน้ำมันดิบวันนี้", Sources: []eval.Source{}, Context: &eval.Context{TextMissing: true}},
		},
		"null context text keeps the token count given": {
			in:   `{"query": "q", "chunks": [], "context": {"text": null, "tokenCount": 240}}`,
			want: eval.Sample{Query: "q", Sources: []eval.Source{}, Context: &eval.Context{TokenCount: 240, TextMissing: true}},
		},
		"empty context text needs no token count": {
			in:   `{"query": "q", "chunks": [], "context": {"text": "", "tokenCount": null}}`,
			want: eval.Sample{Query: "q", Sources: []eval.Source{}, Context: &eval.Context{}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := eval.DecodeContextSample("sample.json", []byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
