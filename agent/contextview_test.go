package agent

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/encode"
)

// TestContextViewAppendJSONIsEncodeJSONs: the card the service answers
// with, written in one pass, is byte for byte what encode.JSON writes of
// it, whatever it holds.
func TestContextViewAppendJSONIsEncodeJSONs(t *testing.T) {
	t.Parallel()
	good := ContextView{Profile: "context", Status: "pass", Reason: "Retrieval is correct (overall 0.918 >= 0.7): use it.",
		Overall: 0.9183106382978723, RetrievalConfidence: 0.8777021276595743, ContextSufficiency: 0.85, DiversityScore: 1,
		EstimatedFaithfulness: 1, CRAG: ClassifyCRAG("q", 0.9183106382978723)}
	with := func(f func(v *ContextView)) ContextView {
		v := good
		f(&v)
		return v
	}
	tests := map[string]ContextView{
		"seed 002's good sample": good,
		"the zero card":          {},
		"a warning and notes": with(func(v *ContextView) {
			v.Warning = "Low source diversity. Results are heavily concentrated in a single document."
			v.Notes = []string{"context.text is missing: read as empty", "2 rerank scores < 0"}
		}),
		"empty notes are left out": with(func(v *ContextView) { v.Notes = []string{} }),
		"scores of other metrics": with(func(v *ContextView) {
			v.Scores = []ScoreRow{{Metric: "faithfulness", Points: 4.5, Max: 5, Reason: "mostly <supported> & \"quoted\""},
				{Metric: "relevance", Points: 2.5, Max: 5, Reason: "judge failed", Defaulted: true}}
		}),
		"decompose with sub-queries, HTML escaped": with(func(v *ContextView) {
			v.CRAG = CRAGClassification{Classification: CRAGAmbiguous, Confidence: 0.5,
				Action: CRAGAction{Type: ActionDecompose, SubQueries: []string{"a < b", "c & d\u2028"}}}
		}),
		"decompose without sub-queries": with(func(v *ContextView) {
			v.CRAG = CRAGClassification{Classification: CRAGAmbiguous, Confidence: 0.5, Action: CRAGAction{Type: ActionDecompose}}
		}),
		"supplemental search, empty query kept": with(func(v *ContextView) {
			v.CRAG = CRAGClassification{Classification: CRAGIncorrect, Confidence: 1e-7, Action: CRAGAction{Type: ActionSupplementalSearch}}
		}),
		"supplemental search, HTML escaped": with(func(v *ContextView) {
			v.CRAG.Action = CRAGAction{Type: ActionSupplementalSearch, SearchQuery: "<script>\"x\"</script>", SubQueries: []string{"dropped"}}
		}),
		"another action keeps what it has": with(func(v *ContextView) {
			v.CRAG.Action = CRAGAction{Type: "other", SubQueries: []string{"s"}, SearchQuery: "q>"}
		}),
		"strings to escape, numbers in exponent form": with(func(v *ContextView) {
			v.Reason, v.Profile = "tab\there \"é\" \xff\u2029", "my<profile>"
			v.Overall, v.DiversityScore, v.EstimatedFaithfulness = math.Copysign(0, -1), 1e21, -2e-9
		}),
	}
	for name, v := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var want bytes.Buffer
			require.NoError(t, encode.JSON(&want, v))
			got, err := v.AppendJSON([]byte("kept"))
			require.NoError(t, err)
			assert.Equal(t, "kept"+want.String(), string(got))
		})
	}

	t.Run("a number JSON cannot hold is encode.JSON's error", func(t *testing.T) {
		t.Parallel()
		for _, v := range []ContextView{with(func(v *ContextView) { v.Overall = math.NaN() }),
			with(func(v *ContextView) { v.Scores = []ScoreRow{{Metric: "m", Points: math.Inf(1)}} })} {
			wantErr := encode.JSON(&bytes.Buffer{}, v)
			require.Error(t, wantErr)
			_, err := v.AppendJSON(nil)
			assert.EqualError(t, err, wantErr.Error())
		}
	})
}

func BenchmarkContextViewJSON(b *testing.B) {
	v := ContextView{Profile: "context", Status: "pass", Reason: "Retrieval is correct (overall 0.918 >= 0.7): use it.",
		Overall: 0.9183106382978723, RetrievalConfidence: 0.8777021276595743, ContextSufficiency: 0.85, DiversityScore: 1,
		EstimatedFaithfulness: 1, CRAG: ClassifyCRAG("q", 0.9183106382978723)}
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			buf, _ = v.AppendJSON(buf[:0])
		}
	})
	b.Run("encode.JSON", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			_ = encode.JSON(&buf, v)
		}
	})
}
