package llm

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// embedder answers chat and embedding calls with the tokens it is told,
// and names its embedding model apart from its chat model.
type embedder struct {
	embedModel      string
	chatIn, embedIn int
	chats, embeds   atomic.Int64
}

func (e *embedder) Name() string          { return "openai:gpt-4o-mini" }
func (e *embedder) EmbeddingName() string { return "openai:" + e.embedModel }

func (e *embedder) Chat(context.Context, Request) (Response, error) {
	e.chats.Add(1)
	return Response{Content: "ok", Usage: eval.Usage{TokensIn: e.chatIn, TokensOut: 0}}, nil
}

func (e *embedder) Embed(_ context.Context, texts []string) ([][]float32, eval.Usage, error) {
	e.embeds.Add(1)
	return make([][]float32, len(texts)), eval.Usage{TokensIn: e.embedIn}, nil
}

// TestEmbeddingsSpendFromTheBudget: an embedding call is held to
// --max-cost as a chat call is, at the embedding model's price: it is
// refused once the budget is spent, and refused under a budget when its
// model has no price, as no spending on it could be counted; never made
// past the budget unseen.
func TestEmbeddingsSpendFromTheBudget(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		embedModel string
		chatIn     int // a chat call made first: 10,000 tokens x $0.15/M = $0.0015
		max        float64
		wantEmbeds int64
		wantErr    string
		wantSpent  float64
	}{
		// text-embedding-3-small: 50,000 tokens x $0.02/M = $0.001.
		"a priced embedding within the budget": {embedModel: "text-embedding-3-small", max: 0.01, wantEmbeds: 1, wantSpent: 0.001},
		"a priced embedding past the spent budget": {embedModel: "text-embedding-3-small", chatIn: 10000, max: 0.002,
			wantErr: "spent $0.0015, next call about $0.0010, limit $0.0020", wantSpent: 0.0015},
		"an embedding model with no price under a budget": {embedModel: "my-embed", max: 1,
			wantErr: "model my-embed is not in the price table"},
		"an embedding model with no price and no budget": {embedModel: "my-embed", wantEmbeds: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := &embedder{embedModel: tc.embedModel, chatIn: tc.chatIn, embedIn: 50000}
			c := New(Config{Backend: b, MaxCostUSD: tc.max})
			if tc.chatIn > 0 {
				_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: "grade"}}})
				require.NoError(t, err)
			}
			text := strings.Repeat("word ", 40000) // about 50,000 tokens at four bytes a token
			_, u, err := c.Embed(context.Background(), []string{text})
			if tc.wantErr != "" {
				require.ErrorIs(t, err, ErrBudget)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Equal(t, 1, c.BudgetStops())
			} else {
				require.NoError(t, err)
				assert.Equal(t, 50000, u.TokensIn)
			}
			assert.Equal(t, tc.wantEmbeds, b.embeds.Load(), "embedding requests made")
			assert.InDelta(t, tc.wantSpent, c.Budget().Spent(), 1e-12)
		})
	}
}
