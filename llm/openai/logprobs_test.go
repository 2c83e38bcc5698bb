package openai_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
)

// TestLogprobs: a request with TopLogprobs asks for logprobs and that many
// alternatives (capped at the API's 20), and the reply's tokens come back
// with theirs; a request without asks for none, and a server that sends
// none gives nil.
func TestLogprobs(t *testing.T) {
	served := []llmtest.Logprob{{Token: "No", Logprob: math.Log(0.7), Top: []llmtest.Logprob{
		{Token: "No", Logprob: math.Log(0.7)}, {Token: "Yes", Logprob: math.Log(0.25)}, {Token: "no", Logprob: math.Log(0.05)},
	}}}
	tests := []struct {
		name     string
		ask      int
		serve    []llmtest.Logprob
		wantTop  int // top_logprobs sent; 0: logprobs not asked for
		wantBack []llm.TokenLogprob
	}{
		{name: "asked and served", ask: 2, serve: served, wantTop: 2, wantBack: []llm.TokenLogprob{{
			Token: "No", Logprob: math.Log(0.7), Top: []llm.TopLogprob{{Token: "No", Logprob: math.Log(0.7)}, {Token: "Yes", Logprob: math.Log(0.25)}},
		}}},
		{name: "asked for more than the API takes", ask: 50, serve: served, wantTop: 20, wantBack: []llm.TokenLogprob{{
			Token: "No", Logprob: math.Log(0.7),
			Top: []llm.TopLogprob{{Token: "No", Logprob: math.Log(0.7)}, {Token: "Yes", Logprob: math.Log(0.25)}, {Token: "no", Logprob: math.Log(0.05)}},
		}}},
		{name: "asked, not served", ask: 5, wantTop: 5},
		{name: "not asked", serve: served},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Script(llmtest.Reply{Content: "No", Logprobs: tt.serve}))
			b := newBackend(t, srv, nil)
			resp, err := b.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Document: a\nClaim: b"}}, TopLogprobs: tt.ask})
			require.NoError(t, err)
			assert.Equal(t, "No", resp.Content)
			got := srv.Requests()[0]
			assert.Equal(t, tt.wantTop > 0, got.LogProbs)
			assert.Equal(t, tt.wantTop, got.TopLogProbs)
			if tt.wantBack == nil {
				assert.Nil(t, resp.Logprobs)
				return
			}
			require.Len(t, resp.Logprobs, 1)
			assert.Equal(t, tt.wantBack[0].Token, resp.Logprobs[0].Token)
			assert.InDelta(t, tt.wantBack[0].Logprob, resp.Logprobs[0].Logprob, 1e-12)
			require.Len(t, resp.Logprobs[0].Top, len(tt.wantBack[0].Top))
			for i, a := range tt.wantBack[0].Top {
				assert.Equal(t, a.Token, resp.Logprobs[0].Top[i].Token)
				assert.InDelta(t, a.Logprob, resp.Logprobs[0].Top[i].Logprob, 1e-12)
			}
		})
	}
}
