package heuristics

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func TestContextNotesSayWhatWasMissing(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		s    eval.Sample
		want []string
	}{
		"a complete retrieval has no notes": {
			s: eval.Sample{Query: "q", Sources: []eval.Source{ctxChunk("a", "x", 0.4)},
				Context: &eval.Context{Text: "x", TokenCount: 4}},
		},
		"no context object": {
			s:    eval.Sample{Query: "q", Sources: []eval.Source{ctxChunk("a", "x", 0.4)}},
			want: []string{"context is missing: context sufficiency is 0, as for an empty context"},
		},
		"context object without text": {
			s: eval.Sample{Query: "ค่าเงินบาทวันนี้", Sources: []eval.Source{ctxChunk("a", "x", 0.4)},
				Context: &eval.Context{TokenCount: 80, TextMissing: true}},
			want: []string{"context.text is missing or null: context sufficiency is 0, as for an empty context"},
		},
		"logits below zero, the first one included": {
			s: eval.Sample{Query: "q", Context: &eval.Context{Text: "x", TokenCount: 1}, Sources: []eval.Source{
				{ID: "a", Score: 0.7, RerankScore: ctxF64(-0.5)},
				{ID: "b", Score: 0.6, RerankScore: ctxF64(1.5)},
				{ID: "c", Score: 0.5, RerankScore: ctxF64(-4)},
			}},
			want: []string{
				"negative rerankScore in chunks[0], chunks[2]: used as given in place of score (cross-encoder logits are not normalised), so retrieval confidence can fall below 0",
				"rerankScore above 1 in chunks[1]: used as given in place of score (cross-encoder logits are not normalised), so retrieval confidence and the overall score can exceed 1",
				"chunks[0].rerankScore is -0.5, not positive: the score spread (last over first) counts as 0",
			},
		},
		"scores above one, one of them under a rerank score": {
			s: eval.Sample{Query: "q", Context: &eval.Context{Text: "x", TokenCount: 1}, Sources: []eval.Source{
				ctxChunk("a", "", 7.5), {ID: "b", Score: 3, RerankScore: ctxF64(0.9)}, ctxChunk("c", "", 1), ctxChunk("d", "", 1.0001),
			}},
			want: []string{"score above 1 in chunks[0], chunks[3]: used as given (the seed does not clamp), so retrieval confidence and the overall score can exceed 1"},
		},
		"negative retrieval scores, more than five": {
			s: eval.Sample{Query: "q", Context: &eval.Context{Text: "x", TokenCount: 1}, Sources: []eval.Source{
				ctxChunk("a", "", 0.2), ctxChunk("b", "", -0.1), ctxChunk("c", "", -0.1), ctxChunk("d", "", -0.2),
				ctxChunk("e", "", -0.3), ctxChunk("f", "", -0.3), ctxChunk("g", "", -0.4), ctxChunk("h", "", -0.5),
			}},
			want: []string{"negative score in chunks[1], chunks[2], chunks[3], chunks[4], chunks[5] and 2 more: used as given (the seed does not clamp), so retrieval confidence and estimated faithfulness can fall below 0"},
		},
		"zero score on top": {
			s: eval.Sample{Query: "q", Context: &eval.Context{Text: "x", TokenCount: 1}, Sources: []eval.Source{
				ctxChunk("a", "", 0), ctxChunk("b", "", 0.3),
			}},
			want: []string{"chunks[0].score is 0, not positive: the score spread (last over first) counts as 0"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, AssessContext(tc.s).Notes)
			sc, err := ContextQuality{}.Score(context.Background(), tc.s)
			require.NoError(t, err)
			assert.Equal(t, tc.want, sc.Evidence.Notes)
		})
	}
}
