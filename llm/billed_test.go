package llm

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// billedFailure answers every call with err and the tokens the server
// counted for it, as a server does that bills a refusal or an empty reply.
type billedFailure struct {
	err   error
	usage eval.Usage
	calls atomic.Int64
}

func (b *billedFailure) Name() string { return "stub:gpt-4o-mini" }

func (b *billedFailure) Chat(context.Context, Request) (Response, error) {
	b.calls.Add(1)
	return Response{Usage: b.usage}, b.err
}

func (b *billedFailure) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, ErrNoEmbeddings
}

// TestClientCountsTheTokensOfAFailedReply: a reply the server answered
// and billed, but that is no usable answer (a refusal, no content, no chat
// completion), costs its tokens in the usage and in the budget, so that
// a model refusing every call neither shows a cost of $0 nor spends past
// --max-cost.
func TestClientCountsTheTokensOfAFailedReply(t *testing.T) {
	t.Parallel()
	// gpt-4o-mini: 2,000 in x $0.15/M + 300 out x $0.60/M = $0.00048 a call.
	billed := eval.Usage{TokensIn: 2000, TokensOut: 300}
	tests := map[string]struct {
		err error
	}{
		"a refusal":              {err: &RefusalError{Reason: "I will not grade this."}},
		"a message with no text": {err: fmt.Errorf("no content (finish_reason %q): %w", "stop", ErrEmpty)},
		"no chat completion":     {err: fmt.Errorf("%w: a 200 reply whose message has no \"content\"", ErrNotChat)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := &billedFailure{err: tc.err, usage: billed}
			c := New(Config{Backend: b, MaxCostUSD: 0.001})
			for i := range 2 {
				r, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: fmt.Sprint("grade ", i)}}})
				require.ErrorIs(t, err, tc.err, "call %d", i)
				assert.Equal(t, 2000, r.Usage.TokensIn, "call %d: its own usage", i)
				assert.Equal(t, 300, r.Usage.TokensOut, "call %d: its own usage", i)
			}
			u := c.Usage()
			assert.Equal(t, 4000, u.TokensIn)
			assert.Equal(t, 600, u.TokensOut)
			assert.InDelta(t, 0.00096, u.CostUSD, 1e-9)
			// $0.00096 spent of $0.001: the next call's estimate passes it.
			_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Content: "grade 3"}}})
			require.True(t, errors.Is(err, ErrBudget), "got %v", err)
			assert.Equal(t, int64(2), b.calls.Load(), "the third call was not sent")
		})
	}
}
