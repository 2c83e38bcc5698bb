package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/offline"
	"github.com/assaylabs/assay/telemetry"
	"github.com/assaylabs/assay/telemetry/telemetrytest"
)

// stub is a Backend with nothing beyond Backend.
type stub struct {
	name string
	resp llm.Response
	err  error
}

func (s *stub) Name() string { return s.name }

func (s *stub) Chat(context.Context, llm.Request) (llm.Response, error) { return s.resp, s.err }

func (s *stub) Embed(_ context.Context, texts []string) ([][]float32, eval.Usage, error) {
	return make([][]float32, len(texts)), eval.Usage{TokensIn: 7 * len(texts)}, s.err
}

// rich is a Backend with every method the llm.Client asks for beyond
// Backend.
type rich struct {
	stub
	closed bool
}

func (r *rich) Embeds() bool          { return false }
func (r *rich) EmbeddingName() string { return "openai:text-embedding-3-small" }
func (r *rich) CacheScope() string    { return "openai:m@http://gateway/v1#json_schema" }
func (r *rich) Close() error          { r.closed = true; return errors.New("closed") }
func (r *rich) Offline() bool         { return false }

func TestBackendKeepsWhatTheClientAsks(t *testing.T) {
	type asks struct {
		offline, embeds     bool
		embedName, scope    string
		closeErr, closedNow bool
	}
	tests := map[string]struct {
		b    llm.Backend
		want asks
	}{
		"a backend with nothing more: the client's defaults": {
			b:    &stub{name: "vllm:m"},
			want: asks{embeds: true, embedName: "vllm:m", scope: "vllm:m"},
		},
		"a backend with every method: its own answers": {
			b:    &rich{stub: stub{name: "openai:m"}},
			want: asks{embeds: false, embedName: "openai:text-embedding-3-small", scope: "openai:m@http://gateway/v1#json_schema", closeErr: true, closedNow: true},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := telemetry.Backend(tc.b)
			assert.Same(t, w, telemetry.Backend(w), "wrapped once")
			assert.Equal(t, tc.b.Name(), w.Name())
			got := asks{offline: llm.IsOffline(w), embeds: w.(llm.EmbedReporter).Embeds(),
				embedName: w.(interface{ EmbeddingName() string }).EmbeddingName(),
				scope:     w.(interface{ CacheScope() string }).CacheScope(),
				closeErr:  w.(io.Closer).Close() != nil}
			if r, ok := tc.b.(*rich); ok {
				got.closedNow = r.closed
			}
			assert.Equal(t, tc.want, got)
		})
	}
	off := offline.New(offline.Config{})
	assert.Same(t, off, telemetry.Backend(off), "an offline backend calls no model: left as it is")
}

func TestBackendSpansNameTheProviderAndModel(t *testing.T) {
	tests := map[string]struct {
		b                         llm.Backend
		embed                     bool
		span, provider, model, op string
		tokens                    map[attribute.Key]attribute.Value
	}{
		"openai":                       {b: &stub{name: "openai:gpt-4o-mini"}, span: "chat gpt-4o-mini", provider: "openai", model: "gpt-4o-mini", op: "chat"},
		"ollama, a model with a colon": {b: &stub{name: "ollama:qwen2.5:7b"}, span: "chat qwen2.5:7b", provider: "ollama", model: "qwen2.5:7b", op: "chat"},
		"vllm, a server the conventions do not list":            {b: &stub{name: "vllm:llama"}, span: "chat llama", provider: "vllm", model: "llama", op: "chat"},
		"langchain's anthropic":                                 {b: &stub{name: "langchain:anthropic:claude-3-5-haiku"}, span: "chat claude-3-5-haiku", provider: "anthropic", model: "claude-3-5-haiku", op: "chat"},
		"langchain's mistral, named as the conventions name it": {b: &stub{name: "langchain:mistral:mistral-small"}, span: "chat mistral-small", provider: "mistral_ai", model: "mistral-small", op: "chat"},
		"embeddings with the embedding model": {b: &rich{stub: stub{name: "openai:gpt-4o-mini"}}, embed: true,
			span: "embeddings text-embedding-3-small", provider: "openai", model: "text-embedding-3-small", op: "embeddings"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			exp := telemetrytest.Record(t)
			w := telemetry.Backend(tc.b)
			want := map[attribute.Key]attribute.Value{
				"gen_ai.operation.name": attribute.StringValue(tc.op),
				"gen_ai.provider.name":  attribute.StringValue(tc.provider),
				"gen_ai.request.model":  attribute.StringValue(tc.model),
			}
			if tc.embed {
				_, _, err := w.Embed(t.Context(), []string{"a", "b"})
				require.NoError(t, err)
				want["gen_ai.usage.input_tokens"] = attribute.IntValue(14)
			} else {
				seed := 7
				_, err := w.Chat(t.Context(), llm.Request{Temperature: 0.2, MaxTokens: 300, Seed: &seed, Tag: "t"})
				require.NoError(t, err)
				want["gen_ai.request.temperature"] = attribute.Float64Value(0.2)
				want["gen_ai.request.max_tokens"] = attribute.IntValue(300)
				want["gen_ai.request.seed"] = attribute.IntValue(7)
				want["assay.llm.tag"] = attribute.StringValue("t")
				want["gen_ai.usage.input_tokens"] = attribute.IntValue(0)
				want["gen_ai.usage.output_tokens"] = attribute.IntValue(0)
			}
			s := telemetrytest.Only(t, exp.GetSpans(), tc.span)
			assert.Equal(t, want, telemetrytest.Attrs(s.Attributes))
		})
	}
}

func TestErrorType(t *testing.T) {
	tests := map[string]struct {
		err  error
		want string
	}{
		"a status, wrapped":         {err: fmt.Errorf("openai:m: chat: %w", &llm.StatusError{Code: 429}), want: "429"},
		"a timeout":                 {err: fmt.Errorf("chat: %w", context.DeadlineExceeded), want: "timeout"},
		"canceled":                  {err: context.Canceled, want: "canceled"},
		"a refusal":                 {err: &llm.RefusalError{Reason: "no"}, want: "refusal"},
		"an empty reply":            {err: fmt.Errorf("no choices: %w", llm.ErrEmpty), want: "empty_reply"},
		"a reply breaking a schema": {err: fmt.Errorf("%w: score", llm.ErrInvalidOutput), want: "invalid_output"},
		"the server down too long":  {err: llm.ErrUnreachable, want: "unreachable"},
		"the budget":                {err: llm.ErrBudget, want: "budget"},
		"anything else":             {err: errors.New("connection reset by peer"), want: "_OTHER"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, telemetry.ErrorType(tc.err))
		})
	}
}

func TestAFailedChatSpan(t *testing.T) {
	exp := telemetrytest.Record(t)
	w := telemetry.Backend(&stub{name: "openai:m", err: fmt.Errorf("openai:m: chat: %w", &llm.StatusError{Code: 503, Message: "overloaded"})})
	_, err := w.Chat(t.Context(), llm.Request{})
	require.Error(t, err)
	s := telemetrytest.Only(t, exp.GetSpans(), "chat m")
	assert.Equal(t, codes.Error, s.Status.Code)
	assert.Equal(t, "openai:m: chat: status 503: overloaded", s.Status.Description)
	assert.Equal(t, attribute.StringValue("503"), telemetrytest.Attrs(s.Attributes)["error.type"])
}
