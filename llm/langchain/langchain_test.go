package langchain_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/langchain"
)

// model is an llms.Model that records what it was sent and replies with
// resp or err.
type model struct {
	resp *llms.ContentResponse
	err  error

	mu   sync.Mutex
	msgs []llms.MessageContent
	opts llms.CallOptions
}

func (m *model) GenerateContent(_ context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs = msgs
	m.opts = llms.CallOptions{}
	for _, o := range options {
		o(&m.opts)
	}
	return m.resp, m.err
}

func (m *model) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

func reply(content string, info map[string]any) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: content, GenerationInfo: info}}}
}

// text flattens recorded messages to role: text pairs.
func text(msgs []llms.MessageContent) [][2]string {
	var out [][2]string
	for _, m := range msgs {
		for _, p := range m.Parts {
			out = append(out, [2]string{string(m.Role), p.(llms.TextContent).Text})
		}
	}
	return out
}

func TestChatMessages(t *testing.T) {
	t.Parallel()
	schema := &llm.Schema{Name: "verdict", JSON: json.RawMessage(`{"type":"object"}`)}
	instr := "Reply with one JSON object only, no prose and no code fence. It must conform to this JSON schema (\"verdict\"):\n{\"type\":\"object\"}"
	tests := map[string]struct {
		req  llm.Request
		want [][2]string
	}{
		"roles map to system, human and ai": {
			req: llm.Request{Messages: []llm.Message{
				{Role: llm.System, Content: "be strict"},
				{Role: llm.User, Content: "q"},
				{Role: llm.Assistant, Content: "a"},
				{Role: llm.User, Content: "again"},
			}},
			want: [][2]string{{"system", "be strict"}, {"human", "q"}, {"ai", "a"}, {"human", "again"}},
		},
		"a schema joins the first system message": {
			req: llm.Request{Schema: schema, Messages: []llm.Message{
				{Role: llm.System, Content: "be strict"},
				{Role: llm.User, Content: "q"},
			}},
			want: [][2]string{{"system", "be strict\n\n" + instr}, {"human", "q"}},
		},
		"a schema without a system message gets its own, first": {
			req:  llm.Request{Schema: schema, Messages: []llm.Message{{Role: llm.User, Content: "q"}}},
			want: [][2]string{{"system", instr}, {"human", "q"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &model{resp: reply("ok", nil)}
			_, err := langchain.New("langchain:test:m", m).Chat(context.Background(), tc.req)
			require.NoError(t, err)
			require.Equal(t, tc.want, text(m.msgs))
		})
	}
}

func TestChatUnknownRole(t *testing.T) {
	t.Parallel()
	m := &model{resp: reply("ok", nil)}
	_, err := langchain.New("langchain:test:m", m).Chat(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: "tool", Content: "x"}},
	})
	require.ErrorContains(t, err, `unsupported message role "tool"`)
	require.Nil(t, m.msgs, "nothing is sent")
}

func TestChatOptions(t *testing.T) {
	t.Parallel()
	seed := 7
	tests := map[string]struct {
		req  llm.Request
		want llms.CallOptions
	}{
		"temperature zero is sent, nothing else": {
			req:  llm.Request{},
			want: llms.CallOptions{Temperature: 0},
		},
		"temperature, max tokens and seed": {
			req:  llm.Request{Temperature: 0.7, MaxTokens: 256, Seed: &seed},
			want: llms.CallOptions{Temperature: 0.7, MaxTokens: 256, Seed: 7},
		},
		"a schema turns on JSON mode": {
			req:  llm.Request{Schema: &llm.Schema{Name: "v", JSON: json.RawMessage(`{}`)}},
			want: llms.CallOptions{JSONMode: true},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &model{resp: reply("ok", nil)}
			tc.req.Messages = []llm.Message{{Role: llm.User, Content: "q"}}
			_, err := langchain.New("langchain:test:m", m).Chat(context.Background(), tc.req)
			require.NoError(t, err)
			require.Equal(t, tc.want, m.opts)
		})
	}
}

func TestChatReply(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		resp    *llms.ContentResponse
		content string
		usage   eval.Usage
	}{
		"int prompt and completion tokens (Ollama)": {
			resp:    reply("yes", map[string]any{"PromptTokens": 12, "CompletionTokens": 3}),
			content: "yes", usage: eval.Usage{TokensIn: 12, TokensOut: 3},
		},
		"int32 and float64 counts": {
			resp:    reply("yes", map[string]any{"PromptTokens": int32(5), "CompletionTokens": float64(2)}),
			content: "yes", usage: eval.Usage{TokensIn: 5, TokensOut: 2},
		},
		"input and output tokens (Anthropic)": {
			resp:    reply("yes", map[string]any{"InputTokens": 40, "OutputTokens": 9}),
			content: "yes", usage: eval.Usage{TokensIn: 40, TokensOut: 9},
		},
		"missing or odd counts are zero": {
			resp:    reply("yes", map[string]any{"PromptTokens": "12", "usage": struct{}{}}),
			content: "yes", usage: eval.Usage{},
		},
		"no generation info": {
			resp: reply("yes", nil), content: "yes", usage: eval.Usage{},
		},
		"a thinking block before the answer is skipped": {
			resp: &llms.ContentResponse{Choices: []*llms.ContentChoice{
				{Content: "", GenerationInfo: map[string]any{"InputTokens": 1, "OutputTokens": 1}},
				{Content: "answer", GenerationInfo: map[string]any{"InputTokens": 10, "OutputTokens": 20}},
			}},
			content: "answer", usage: eval.Usage{TokensIn: 10, TokensOut: 20},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := langchain.New("langchain:test:m", &model{resp: tc.resp}).Chat(context.Background(),
				llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}})
			require.NoError(t, err)
			require.Equal(t, tc.content, got.Content)
			require.Equal(t, tc.usage, got.Usage)
		})
	}
}

func TestChatEmptyReply(t *testing.T) {
	t.Parallel()
	for name, resp := range map[string]*llms.ContentResponse{
		"nil response": nil,
		"no choices":   {},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := langchain.New("langchain:test:m", &model{resp: resp}).Chat(context.Background(),
				llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}})
			require.ErrorIs(t, err, llm.ErrEmpty)
		})
	}
}

func TestChatErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err error
		// code is the *llm.StatusError code, 0 when none is expected.
		code      int
		temporary bool
	}{
		"a typed rate-limit error is a retryable 429": {
			err: llms.NewError(llms.ErrCodeRateLimit, "anthropic", "slow down"), code: 429, temporary: true,
		},
		"a typed unavailable error is a retryable 503": {
			err: llms.NewError(llms.ErrCodeProviderUnavailable, "x", "down"), code: 503, temporary: true,
		},
		"a typed authentication error is a permanent 401": {
			err: llms.NewError(llms.ErrCodeAuthentication, "x", "bad key"), code: 401,
		},
		"a quota error stays permanent": {
			err: llms.NewError(llms.ErrCodeQuotaExceeded, "x", "insufficient quota"),
		},
		// The documented limitation: no typed status, no string matching.
		"an untyped string 429 is not classified": {
			err: errors.New("API returned unexpected status code: 429: rate limited"),
		},
		"a deadline passes through as a deadline": {
			err: context.DeadlineExceeded, temporary: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := langchain.New("langchain:test:m", &model{err: tc.err}).Chat(context.Background(),
				llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}})
			require.ErrorIs(t, err, tc.err)
			require.ErrorContains(t, err, "langchain:test:m")
			var se *llm.StatusError
			if tc.code == 0 {
				require.False(t, errors.As(err, &se), "got %v", err)
			} else {
				require.ErrorAs(t, err, &se)
				require.Equal(t, tc.code, se.Code)
			}
			require.Equal(t, tc.temporary, llm.Temporary(err))
		})
	}
}

type embedder struct{ err error }

func (e embedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}

func (e embedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := e.EmbedDocuments(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("without an embedder there are no embeddings", func(t *testing.T) {
		t.Parallel()
		_, _, err := langchain.New("langchain:test:m", &model{}).Embed(ctx, []string{"a"})
		require.ErrorIs(t, err, llm.ErrNoEmbeddings)
	})
	t.Run("the embedder's vectors are returned in order", func(t *testing.T) {
		t.Parallel()
		b := langchain.New("langchain:test:m", &model{}, langchain.WithEmbedder(embedder{}))
		vecs, u, err := b.Embed(ctx, []string{"a", "bcd"})
		require.NoError(t, err)
		require.Equal(t, [][]float32{{1, 1}, {3, 1}}, vecs)
		require.Equal(t, eval.Usage{Calls: 1}, u)
	})
	t.Run("a typed embedder error is classified", func(t *testing.T) {
		t.Parallel()
		b := langchain.New("langchain:test:m", &model{}, langchain.WithEmbedder(embedder{err: llms.ErrRateLimit}))
		_, _, err := b.Embed(ctx, []string{"a"})
		var se *llm.StatusError
		require.ErrorAs(t, err, &se)
		require.Equal(t, 429, se.Code)
	})
}

func TestFakeModelThroughClient(t *testing.T) {
	t.Parallel()
	// langchaingo's own fake model, through the llm.Client.
	c := llm.New(llm.Config{Backend: langchain.New("langchain:fake:m", fake.NewFakeLLM([]string{`{"ok":true}`}))})
	var v struct{ OK bool }
	_, err := llm.ChatJSON(context.Background(), c, llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "q"}},
		Schema:   &llm.Schema{Name: "v", JSON: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)},
	}, &v)
	require.NoError(t, err)
	require.True(t, v.OK)
	require.Equal(t, "langchain:fake:m", c.Name())
}

// A reply that stopped at the output token limit is marked Truncated, in
// each provider's words for it.
func TestChatTruncated(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"length":     true, // OpenAI-compatible servers, Ollama, Mistral
		"max_tokens": true, // Anthropic, Bedrock
		"MAX_TOKENS": true, // Google
		"stop":       false,
		"end_turn":   false,
		"STOP":       false,
		"":           false,
	}
	for stop, want := range tests {
		resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: `{"a":`, StopReason: stop}}}
		got, err := langchain.New("langchain:test:m", &model{resp: resp}).Chat(context.Background(),
			llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}})
		require.NoError(t, err)
		require.Equal(t, want, got.Truncated, "stop reason %q", stop)
	}
}
