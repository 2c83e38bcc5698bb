package openai_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// TestLogprobs: a request that asks for log-probabilities sends logprobs
// and top_logprobs (at most 20), and the reply's come back token by token;
// a model that refuses them (a reasoning model) is asked without, and a
// request that does not ask sends neither.
func TestLogprobs(t *testing.T) {
	t.Parallel()
	content := `{"grade":4}`
	lps := llmtest.Tokenize(content, "4", []string{"4", "5", "3"}, map[string]float64{"4": 0.6, "5": 0.3, "3": 0.1})
	tests := map[string]struct {
		model string
		top   int
		// sent is the top_logprobs sent; 0 sends no logprobs at all.
		sent int
	}{
		"asked":                  {"gpt-4o-mini", 2, 2},
		"asked for more than 20": {"qwen2.5:7b", 30, 20},
		"not asked":              {"gpt-4o-mini", 0, 0},
		"a reasoning model":      {"o3-mini", 5, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Script(llmtest.Reply{Content: content, Logprobs: lps}))
			b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: tc.model})
			require.NoError(t, err)
			resp, err := b.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "grade"}}, TopLogprobs: tc.top})
			require.NoError(t, err)
			assert.Equal(t, content, resp.Content)
			var raw map[string]any
			require.NoError(t, json.Unmarshal(srv.RawRequests()[0], &raw))
			if tc.sent == 0 {
				assert.NotContains(t, raw, "logprobs")
				assert.NotContains(t, raw, "top_logprobs")
				assert.Nil(t, resp.Logprobs, "the server sends none unasked")
				return
			}
			assert.Equal(t, true, raw["logprobs"])
			assert.InDelta(t, tc.sent, raw["top_logprobs"], 0)
			require.Len(t, resp.Logprobs, 3)
			assert.Equal(t, `{"grade":`, resp.Logprobs[0].Token)
			g := resp.Logprobs[1]
			assert.Equal(t, "4", g.Token)
			assert.InDelta(t, math.Log(0.6), g.Logprob, 1e-12)
			require.Len(t, g.Top, min(tc.sent, 3))
			assert.Equal(t, "5", g.Top[1].Token)
			assert.InDelta(t, math.Log(0.3), g.Top[1].Logprob, 1e-12)
		})
	}
}
