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

// TestANegativeTokenCountIsNoCount: a backend that reports a negative
// token count (a provider library that got the usage wrong, or a server
// that lies) has it taken as none: the run counts what it counts for a
// backend that reported none (its estimates), never fewer tokens or less
// cost than that, nor gives back budget a call spent.
func TestANegativeTokenCountIsNoCount(t *testing.T) {
	t.Parallel()
	none := eval.Usage{}
	tests := map[string]struct {
		chat, embed         eval.Usage
		chatNone, embedNone eval.Usage // what the backend counts as none
	}{
		"a negative prompt count":    {chat: eval.Usage{TokensIn: -1000000, TokensOut: 5}, embed: eval.Usage{TokensIn: 3}, chatNone: none, embedNone: eval.Usage{TokensIn: 3}},
		"a negative reply count":     {chat: eval.Usage{TokensIn: 7, TokensOut: -1000000}, embed: eval.Usage{TokensIn: 3}, chatNone: none, embedNone: eval.Usage{TokensIn: 3}},
		"a negative embedding count": {chat: eval.Usage{TokensIn: 7, TokensOut: 5}, embed: eval.Usage{TokensIn: -1000000}, chatNone: eval.Usage{TokensIn: 7, TokensOut: 5}, embedNone: none},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run := func(chat, embed eval.Usage) *Client {
				c := New(Config{Backend: &negativeUsage{chat: chat, embed: embed}, MaxCostUSD: 1})
				_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: "grade"}}})
				require.NoError(t, err)
				_, _, err = c.Embed(context.Background(), []string{"12345678"})
				require.NoError(t, err)
				return c
			}
			got, want := run(tc.chat, tc.embed), run(tc.chatNone, tc.embedNone)
			require.Positive(t, want.Usage().TokensIn)
			require.Positive(t, want.Usage().TokensOut)
			assert.Equal(t, want.Usage().TokensIn, got.Usage().TokensIn)
			assert.Equal(t, want.Usage().TokensOut, got.Usage().TokensOut)
			// gpt-4o-mini: $0.15 in and $0.60 out per million tokens.
			cost := (float64(want.Usage().TokensIn)*0.15 + float64(want.Usage().TokensOut)*0.6) / 1e6
			assert.InDelta(t, cost, got.Usage().CostUSD, 1e-15)
			assert.InDelta(t, cost, got.Budget().Spent(), 1e-15)
		})
	}
}

// negativeUsage answers with the usage it is told, however wrong.
type negativeUsage struct{ chat, embed eval.Usage }

func (b *negativeUsage) Name() string { return "openai:gpt-4o-mini" }

func (b *negativeUsage) Chat(context.Context, Request) (Response, error) {
	return Response{Content: "ok", Usage: b.chat}, nil
}

func (b *negativeUsage) Embed(_ context.Context, texts []string) ([][]float32, eval.Usage, error) {
	return make([][]float32, len(texts)), b.embed, nil
}
