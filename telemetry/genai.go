package telemetry

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// ScopeName is the instrumentation scope of Assay's spans.
const ScopeName = "github.com/assaylabs/assay"

// keyTag names the judge step that made a model call ("faithfulness/verify",
// llm.Request.Tag).
const keyTag = attribute.Key("assay.llm.tag")

// tracer is Assay's tracer from the global provider as it is now, so that a
// provider installed after a hook was built is the one used. The tracer of
// the last provider seen is kept: asking a provider for it costs a lock.
func tracer() trace.Tracer {
	tp := otel.GetTracerProvider()
	if c := lastTracer.Load(); c != nil && c.tp == tp {
		return c.t
	}
	c := &providerTracer{tp: tp, t: tp.Tracer(ScopeName)}
	// Only a provider that == can compare is kept (an interface holding
	// a value of the same type that cannot be compared would panic).
	if reflect.TypeOf(tp).Comparable() {
		lastTracer.Store(c)
	}
	return c.t
}

// providerTracer is a provider and Assay's tracer from it.
type providerTracer struct {
	tp trace.TracerProvider
	t  trace.Tracer
}

var lastTracer atomic.Pointer[providerTracer]

// Backend returns b with a client span around each request it sends: a
// chat is `chat {model}` and an embedding request `embeddings {model}`,
// with the GenAI semantic conventions' attributes (operation, provider,
// request and response model, response id, input and output tokens, and
// error.type with an error status on failure). Each span is a child of the
// request's context, so a judge call nests under its sample and run.
//
// Every attempt the llm.Client makes is a request, so a retried call shows
// its failed attempts; a reply from the client's cache sends none and has
// no span. An offline backend, which calls no model, is returned as it is.
// The wrapper keeps what the client asks of b beyond Backend (Offline,
// Embeds, EmbeddingName, CacheScope, Close), so the client counts, prices
// and caches as it would without it.
func Backend(b llm.Backend) llm.Backend {
	if llm.IsOffline(b) {
		return b
	}
	if _, ok := b.(*traced); ok {
		return b
	}
	provider, model := providerModel(b.Name())
	t := &traced{Backend: b, provider: provider, model: model}
	if e, ok := b.(interface{ EmbeddingName() string }); ok {
		_, t.embedModel = providerModel(e.EmbeddingName())
	}
	return t
}

// traced is a Backend whose requests are spans.
type traced struct {
	llm.Backend
	provider, model, embedModel string
}

var _ llm.Backend = (*traced)(nil)

func (t *traced) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	ctx, span := t.start(ctx, semconv.GenAIOperationNameChat, t.model,
		semconv.GenAIRequestTemperature(req.Temperature), keyTag.String(req.Tag))
	if req.MaxTokens > 0 {
		span.SetAttributes(semconv.GenAIRequestMaxTokens(req.MaxTokens))
	}
	if req.Seed != nil {
		span.SetAttributes(semconv.GenAIRequestSeed(*req.Seed))
	}
	if req.Schema != nil {
		span.SetAttributes(semconv.GenAIOutputTypeJSON)
	}
	resp, err := t.Backend.Chat(ctx, req)
	if resp.Model != "" {
		span.SetAttributes(semconv.GenAIResponseModel(resp.Model))
	}
	if resp.ID != "" {
		span.SetAttributes(semconv.GenAIResponseID(resp.ID))
	}
	end(span, resp.Usage, true, err)
	return resp, err
}

func (t *traced) Embed(ctx context.Context, texts []string) ([][]float32, eval.Usage, error) {
	ctx, span := t.start(ctx, semconv.GenAIOperationNameEmbeddings, t.embeddingModel())
	vecs, u, err := t.Backend.Embed(ctx, texts)
	end(span, u, false, err)
	return vecs, u, err
}

// start opens the span of operation op on model: `{op} {model}`.
func (t *traced) start(ctx context.Context, op attribute.KeyValue, model string, more ...attribute.KeyValue) (context.Context, trace.Span) {
	name := op.Value.AsString()
	if model != "" {
		name += " " + model
	}
	attrs := append([]attribute.KeyValue{op, semconv.GenAIProviderNameKey.String(t.provider), semconv.GenAIRequestModel(model)}, more...)
	return tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

func (t *traced) embeddingModel() string {
	if t.embedModel != "" {
		return t.embedModel
	}
	return t.model
}

// end closes span with the usage the server reported (output tokens for
// a chat only) or the error.
func end(span trace.Span, u eval.Usage, out bool, err error) {
	defer span.End()
	switch {
	case !span.IsRecording():
	case err != nil:
		span.SetAttributes(semconv.ErrorTypeKey.String(ErrorType(err)))
		span.SetStatus(codes.Error, err.Error())
	case out:
		span.SetAttributes(semconv.GenAIUsageInputTokens(u.TokensIn), semconv.GenAIUsageOutputTokens(u.TokensOut))
	default:
		span.SetAttributes(semconv.GenAIUsageInputTokens(u.TokensIn))
	}
}

// ErrorType is the error.type of a failed model call, low in cardinality:
// the HTTP status the server answered ("429", "500"), "timeout",
// "canceled", "refusal" (the model declined), "empty_reply",
// "not_chat" (a reply that is no chat completion), "invalid_output"
// (a reply that breaks its schema), "reply_too_large", "unreachable" (the
// server has been down too long to send it), "budget" (the cost budget
// refused it), else "_OTHER" (a connection reset, a refused connection).
func ErrorType(err error) string {
	var se *llm.StatusError
	var refusal *llm.RefusalError
	switch {
	case errors.As(err, &se) && se.Code > 0:
		return strconv.Itoa(se.Code)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &refusal):
		return "refusal"
	case errors.Is(err, llm.ErrEmpty):
		return "empty_reply"
	case errors.Is(err, llm.ErrNotChat):
		return "not_chat"
	case errors.Is(err, llm.ErrInvalidOutput):
		return "invalid_output"
	case errors.Is(err, llm.ErrReplyTooLarge):
		return "reply_too_large"
	case errors.Is(err, llm.ErrUnreachable):
		return "unreachable"
	case errors.Is(err, llm.ErrBudget):
		return "budget"
	}
	return semconv.ErrorTypeOther.Value.AsString()
}

// providerModel splits a backend's name ("openai:gpt-4o-mini",
// "ollama:qwen2.5:7b", "langchain:anthropic:claude-3-5-haiku") into the
// GenAI provider ("openai", "ollama", "anthropic"; a local server's own
// name, "vllm", where the conventions list none) and the model.
func providerModel(name string) (provider, model string) {
	provider, model, _ = strings.Cut(name, ":")
	if provider == "langchain" {
		provider, model, _ = strings.Cut(model, ":")
	}
	switch provider {
	case "mistral":
		provider = semconv.GenAIProviderNameMistralAI.Value.AsString()
	case "googleai":
		provider = semconv.GenAIProviderNameGCPGemini.Value.AsString()
	}
	return provider, model
}

// Offline reports whether the wrapped backend has no chat model.
func (t *traced) Offline() bool { return llm.IsOffline(t.Backend) }

// Embeds reports whether the wrapped backend has an embedding model, as
// the llm.Client asks (true when it cannot say).
func (t *traced) Embeds() bool {
	e, ok := t.Backend.(llm.EmbedReporter)
	return !ok || e.Embeds()
}

// EmbeddingName is the wrapped backend's, else its Name, as the
// llm.Client prices embeddings.
func (t *traced) EmbeddingName() string {
	if e, ok := t.Backend.(interface{ EmbeddingName() string }); ok {
		return e.EmbeddingName()
	}
	return t.Name()
}

// CacheScope is the wrapped backend's, else its Name, as the llm.Client
// keys its cache.
func (t *traced) CacheScope() string {
	if s, ok := t.Backend.(interface{ CacheScope() string }); ok {
		return s.CacheScope()
	}
	return t.Name()
}

// Close closes the wrapped backend when it is an io.Closer.
func (t *traced) Close() error {
	if c, ok := t.Backend.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
