// Package langchain adapts a langchaingo model (github.com/tmc/langchaingo
// v0.1.14, llms.Model) to llm.Backend, so that providers Assay has no
// client of its own for can judge. It is the only package that imports
// langchaingo.
//
// # Structured output
//
// langchaingo fixes a JSON schema per client, not per call, and most of
// its providers ignore one anyway. So a Request with a Schema is sent in
// JSON mode (llms.WithJSONMode, honoured by Ollama and OpenAI, ignored by
// Anthropic) with the schema written into the system message: the portable
// way to get schema-shaped JSON from every provider. The reply is not
// validated here; llm.ChatJSON does that and asks once for a repair.
//
// # Errors
//
// langchaingo has no typed HTTP error for most providers: Anthropic's
// client turns a 429 into a plain string error, and Ollama's typed
// StatusError lives in an internal package. Backends built by Open
// therefore send their HTTP requests through Transport, which records the
// status code and Retry-After of a failed response in the call's context;
// Chat and Embed return that as *llm.StatusError wrapping the provider's
// error, so llm.Client retries 429 and 5xx without reading error strings.
// Transport also keeps the start of a success reply's body: some proxies
// and servers answer 200 with an error body, which langchaingo reports as
// an empty or undecodable response, and Chat and Embed return the
// server's message instead, classified by its code or type as
// llm.ReplyError says.
//
// For a model built elsewhere (New), only errors that are typed are mapped:
// an *llms.Error with a rate-limit, unavailable, authentication,
// invalid-request, not-found or token-limit code becomes the matching
// status (note that langchaingo may itself have derived that code from the
// error text). Everything else is returned unchanged, which llm.Client
// treats as permanent.
package langchain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// Backend is an llm.Backend over a langchaingo model. It is safe for
// concurrent use if the model (and embedder) are; langchaingo's HTTP
// providers are.
type Backend struct {
	name     string
	server   string
	model    llms.Model
	embedder embeddings.Embedder
}

var _ llm.Backend = (*Backend)(nil)

// Option configures a Backend.
type Option func(*Backend)

// WithEmbedder gives the Backend an embedding model; without one, Embed
// returns llm.ErrNoEmbeddings.
func WithEmbedder(e embeddings.Embedder) Option {
	return func(b *Backend) { b.embedder = e }
}

// WithServer names the server the model is reached at, when it is not
// the provider's default: the cache then keeps its replies apart from
// those of a model of the same name elsewhere (see CacheScope).
func WithServer(url string) Option {
	return func(b *Backend) { b.server = url }
}

// New returns a Backend named name ("langchain:anthropic:claude-3-5-haiku-latest")
// that sends chats to m. To have HTTP statuses mapped to *llm.StatusError,
// build m with an HTTP client whose transport is Transport(...).
func New(name string, m llms.Model, opts ...Option) *Backend {
	b := &Backend{name: name, model: m}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Name is the name given to New.
func (b *Backend) Name() string { return b.name }

// CacheScope tells the cache which server answers: the name, and the
// server given WithServer when there is one. The same model name on two
// servers (two Ollama hosts) must not share replies; on the provider's
// default server the scope is the name, as caches filled before had it.
func (b *Backend) CacheScope() string {
	if b.server == "" {
		return b.name
	}
	return b.name + "@" + b.server
}

// Chat sends req to the model. The reply is the first choice with text;
// usage comes from its GenerationInfo when the provider reports it.
func (b *Backend) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	msgs, err := messages(req)
	if err != nil {
		return llm.Response{}, fmt.Errorf("%s: %w", b.name, err)
	}
	ctx, rec := withRecorder(ctx)
	resp, err := b.model.GenerateContent(ctx, msgs, callOptions(req)...)
	if err != nil {
		return llm.Response{}, classify(b.name, rec, err)
	}
	if resp == nil || len(resp.Choices) == 0 {
		return llm.Response{}, fmt.Errorf("%s: %w", b.name, llm.ErrEmpty)
	}
	c := pick(resp.Choices)
	return llm.Response{Content: c.Content, Usage: usage(c.GenerationInfo), Truncated: truncated(c.StopReason)}, nil
}

// truncated reports whether a provider's stop reason says the reply hit
// the output token limit: "length" (OpenAI-compatible, Ollama, Mistral),
// "max_tokens" (Anthropic, Bedrock), "MAX_TOKENS" (Google).
func truncated(stop string) bool {
	switch strings.ToLower(stop) {
	case "length", "max_tokens":
		return true
	}
	return false
}

// Embed returns one vector per text from the embedder given to New, or
// llm.ErrNoEmbeddings. langchaingo reports no token usage for embeddings,
// Embeds implements llm.EmbedReporter: whether an embedder was given.
func (b *Backend) Embeds() bool { return b.embedder != nil }

// so Usage.TokensIn is zero and llm.Client estimates it.
func (b *Backend) Embed(ctx context.Context, texts []string) ([][]float32, eval.Usage, error) {
	if b.embedder == nil {
		return nil, eval.Usage{}, fmt.Errorf("%s: %w", b.name, llm.ErrNoEmbeddings)
	}
	ctx, rec := withRecorder(ctx)
	vecs, err := b.embedder.EmbedDocuments(ctx, texts)
	if err != nil {
		return nil, eval.Usage{}, classify(b.name, rec, err)
	}
	if len(vecs) != len(texts) {
		return nil, eval.Usage{}, fmt.Errorf("%s: %d vectors for %d texts: %w", b.name, len(vecs), len(texts), llm.ErrEmpty)
	}
	return vecs, eval.Usage{Calls: 1}, nil
}

// pick returns the first choice with text (Anthropic puts thinking blocks,
// with no text, before the answer), or the first choice.
func pick(choices []*llms.ContentChoice) *llms.ContentChoice {
	for _, c := range choices {
		if c != nil && c.Content != "" {
			return c
		}
	}
	if choices[0] == nil {
		return &llms.ContentChoice{}
	}
	return choices[0]
}

var errRole = errors.New("unsupported message role")
