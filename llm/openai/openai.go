package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// OutputMode is how a request's schema reaches the server. It is a setting
// of the deployment: servers differ in what they support, and the backend
// never guesses.
type OutputMode string

// Output modes.
const (
	// JSONSchema sends response_format json_schema with strict true
	// (structured outputs: OpenAI, vLLM, recent Ollama and llama.cpp).
	JSONSchema OutputMode = "json_schema"
	// JSONObject sends response_format json_object (JSON mode) and appends
	// the schema to the system message as text.
	JSONObject OutputMode = "json_object"
	// Prompt sends no response_format and puts the schema in the system
	// message, for servers that support neither.
	Prompt OutputMode = "prompt"
)

// DefaultTimeout bounds each attempt when Config.Timeout is zero.
const DefaultTimeout = 120 * time.Second

// Config builds a Backend. Zero fields take the documented defaults.
type Config struct {
	// BaseURL is the API root, ending in /v1 (default OpenAI's). vLLM,
	// Ollama (/v1), llama.cpp server and LM Studio all work.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// Model names the chat model; it is required.
	Model string
	// EmbeddingModel names the embedding model; empty makes Embed return
	// llm.ErrNoEmbeddings.
	EmbeddingModel string
	// Output is how schemas are sent (default JSONSchema).
	Output OutputMode
	// HTTPClient sends the requests (default: a client of its own with a
	// connection pool sized for concurrent judges). The backend wraps it to
	// read Retry-After; it does not modify it.
	HTTPClient *http.Client
	// Timeout bounds one attempt, reading the reply included (default
	// DefaultTimeout). The caller's context bounds all of them.
	Timeout time.Duration
	// Seed is sent when a request has none; nil sends no seed.
	Seed *int
	// BatchMaxCalls and BatchMaxBytes are the most calls, and bytes of
	// input file, of one batch (default MaxBatchCalls, MaxBatchBytes:
	// OpenAI's limits).
	BatchMaxCalls int
	BatchMaxBytes int
}

// Backend is an llm.Backend for OpenAI-compatible servers. It is safe for
// concurrent use.
type Backend struct {
	cfg    Config
	client *openai.Client
	http   *http.Client
}

var _ llm.Backend = (*Backend)(nil)

// New returns a Backend for cfg.
func New(cfg Config) (*Backend, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai: Config.Model is required")
	}
	switch cfg.Output {
	case "":
		cfg.Output = JSONSchema
	case JSONSchema, JSONObject, Prompt:
	default:
		return nil, fmt.Errorf("openai: unknown output mode %q (want %q, %q or %q)", cfg.Output, JSONSchema, JSONObject, Prompt)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.BatchMaxCalls <= 0 {
		cfg.BatchMaxCalls = MaxBatchCalls
	}
	if cfg.BatchMaxBytes <= 0 {
		cfg.BatchMaxBytes = MaxBatchBytes
	}
	hc := cfg.HTTPClient
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// The default keeps 2 idle connections per host: judges running 32
		// at a time would open and close connections all day.
		t.MaxIdleConnsPerHost = 64
		hc = &http.Client{Transport: t}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = cfg.BaseURL
	}
	oc.HTTPClient = recorder{hc}
	return &Backend{cfg: cfg, client: openai.NewClientWithConfig(oc), http: hc}, nil
}

// Close closes the connections the backend keeps open between calls. The
// backend can still be used: a later call opens a new one.
func (b *Backend) Close() error {
	b.http.CloseIdleConnections()
	return nil
}

// Name is "openai:" and the model.
func (b *Backend) Name() string { return "openai:" + b.cfg.Model }

// CacheScope tells the cache which server answers: the same model name on
// two servers (OpenAI and a local vLLM) must not share replies.
func (b *Backend) CacheScope() string {
	base := b.cfg.BaseURL
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	return b.Name() + "@" + base + "#" + string(b.cfg.Output)
}

// EmbeddingName is "openai:" and the embedding model, which prices
// embeddings in llm.Client.
func (b *Backend) EmbeddingName() string { return "openai:" + b.cfg.EmbeddingModel }

// Chat sends one chat completion request.
func (b *Backend) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	ctx, rec := record(ctx, llm.MaxReplyBody)
	sent := b.chatRequest(req)
	resp, err := b.client.CreateChatCompletion(ctx, sent)
	if err != nil {
		return llm.Response{}, fmt.Errorf("%s: chat: %w", b.Name(), classify(err, rec))
	}
	if len(resp.Choices) == 0 {
		if err := rec.bodyError(); err != nil {
			return llm.Response{}, fmt.Errorf("%s: chat: %w", b.Name(), err)
		}
	}
	r, err := chatResponse(resp)
	r.Seed = sent.Seed // the request's, or the backend's Config.Seed
	if errors.Is(err, llm.ErrEmpty) {
		// Say what the reply is when it is no chat completion at all, or
		// its message has no content field, rather than call it empty.
		if nc := rec.notChat(); nc != nil {
			err = nc
		}
	}
	if err != nil {
		return r, fmt.Errorf("%s: chat: %w", b.Name(), err)
	}
	r.RateLimits = rec.rateLimits(time.Now())
	return r, nil
}

// Embeds implements llm.EmbedReporter: whether an embedding model is set.
func (b *Backend) Embeds() bool { return b.cfg.EmbeddingModel != "" }

// Embed returns one vector per text from the embedding model.
func (b *Backend) Embed(ctx context.Context, texts []string) ([][]float32, eval.Usage, error) {
	if b.cfg.EmbeddingModel == "" {
		return nil, eval.Usage{}, llm.ErrNoEmbeddings
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	// Embeddings are as long as their inputs ask: their replies are not
	// capped.
	ctx, rec := record(ctx, 0)
	resp, err := b.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
		Input: texts,
		Model: openai.EmbeddingModel(b.cfg.EmbeddingModel),
	})
	if err != nil {
		return nil, eval.Usage{}, fmt.Errorf("%s: embed: %w", b.EmbeddingName(), classify(err, rec))
	}
	if len(resp.Data) == 0 {
		if err := rec.bodyError(); err != nil {
			return nil, eval.Usage{}, fmt.Errorf("%s: embed: %w", b.EmbeddingName(), err)
		}
	}
	vecs, u, err := embeddings(resp, len(texts))
	if err != nil {
		return nil, u, fmt.Errorf("%s: embed: %w", b.EmbeddingName(), err)
	}
	return vecs, u, nil
}

// reply is what the recorder saw of one request's HTTP response. It is
// written inside Do and while the SDK reads the body, and read after the
// SDK call returns, all on the same goroutine.
type reply struct {
	seen   bool
	status int
	header http.Header
	// body keeps the start of the body, and reads at most max bytes of
	// it (0: no cap).
	body *llm.HeadReader
	max  int64
}

type replyKey struct{}

// record returns ctx carrying a fresh reply for the recorder to fill,
// whose body is cut after limit bytes (0: none).
func record(ctx context.Context, limit int64) (context.Context, *reply) {
	r := &reply{max: limit}
	return context.WithValue(ctx, replyKey{}, r), r
}

// recorder is the HTTPDoer given to go-openai: its errors carry no
// response headers, so the status and Retry-After are noted here, in the
// reply carried by the request's context (go-openai builds requests with
// NewRequestWithContext).
type recorder struct{ next *http.Client }

func (d recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.next.Do(req)
	if resp != nil {
		if r, ok := req.Context().Value(replyKey{}).(*reply); ok {
			r.seen = true
			r.status = resp.StatusCode
			r.header = resp.Header
			r.body = &llm.HeadReader{ReadCloser: resp.Body, Max: r.max}
			resp.Body = r.body
		}
	}
	return resp, err
}

// streamed reports whether the reply is a stream of server-sent events
// (Content-Type text/event-stream, or a body that starts with a "data:"
// or "event:" line).
func (r *reply) streamed() bool {
	if mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type")); mt == "text/event-stream" {
		return true
	}
	if r.body == nil {
		return false
	}
	head := bytes.TrimLeft(r.body.Head, " \t\r\n")
	return bytes.HasPrefix(head, []byte("data:")) || bytes.HasPrefix(head, []byte("event:"))
}

// bodyError is the error that a success reply without choices or
// embeddings carries in its body (see llm.ReplyError), or nil.
func (r *reply) bodyError() error {
	if r.body == nil {
		return nil
	}
	return llm.ReplyError(r.status, r.body.Head, r.retryAfterHint(time.Now()))
}

// notChat is the error of a success reply that decoded to no content
// because it is no chat completion (llm.ErrNotChat): its body has no
// "choices" field, or its first choice no message, or a message with no
// "content" field (null or absent: a tool call). It is nil for a chat
// completion that is really empty (no choices, content ""), and when the
// body's start is not a whole JSON object.
func (r *reply) notChat() error {
	if r.body == nil {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(r.body.Head, &top) != nil {
		return nil
	}
	quote := llm.ErrorMessage(r.body.Head)
	choices, ok := top["choices"]
	if !ok {
		return fmt.Errorf("%w: a %d reply with no \"choices\" field: %s", llm.ErrNotChat, r.status, quote)
	}
	var list []map[string]json.RawMessage
	if json.Unmarshal(choices, &list) != nil || len(list) == 0 {
		return nil
	}
	var msg map[string]json.RawMessage
	if raw, ok := list[0]["message"]; !ok || json.Unmarshal(raw, &msg) != nil || msg == nil {
		return fmt.Errorf("%w: a %d reply whose first choice has no \"message\": %s", llm.ErrNotChat, r.status, quote)
	}
	if raw, ok := msg["content"]; !ok || string(raw) == "null" {
		var finish string
		_ = json.Unmarshal(list[0]["finish_reason"], &finish)
		return fmt.Errorf("%w: a %d reply whose message has no \"content\" (finish_reason %q): %s", llm.ErrNotChat, r.status, finish, quote)
	}
	return nil
}

// retryAfterHint is the server's hint: OpenAI's retry-after-ms when
// present (finer), else Retry-After, else the reset time of each
// x-ratelimit limit (requests, tokens) that has nothing remaining.
func (r *reply) retryAfterHint(now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(r.header.Get("Retry-After-Ms"), 64); err == nil && llm.DurationOf(ms, time.Millisecond) > 0 {
		return llm.DurationOf(ms, time.Millisecond)
	}
	if d := llm.ParseRetryAfter(r.header.Get("Retry-After"), now); d > 0 {
		return d
	}
	var d time.Duration
	for _, limit := range []string{"requests", "tokens"} {
		if r.header.Get("X-Ratelimit-Remaining-"+limit) == "0" {
			d = max(d, resetAfter(r.header.Get("X-Ratelimit-Reset-"+limit), now))
		}
	}
	return d
}

// rateLimits is what the reply's x-ratelimit headers say of the
// server's request and token limits (go-openai keeps them only on
// replies it decodes, and not for every server), or nil when it sent
// none of them.
func (r *reply) rateLimits(now time.Time) *llm.RateLimits {
	if r.header == nil {
		return nil
	}
	rl := llm.RateLimits{LimitRequests: -1, LimitTokens: -1, RemainingRequests: -1, RemainingTokens: -1}
	said := false
	for _, l := range []struct {
		name            string
		size, remaining *int
		reset           *time.Duration
	}{{"requests", &rl.LimitRequests, &rl.RemainingRequests, &rl.ResetRequests}, {"tokens", &rl.LimitTokens, &rl.RemainingTokens, &rl.ResetTokens}} {
		n, err := strconv.Atoi(strings.TrimSpace(r.header.Get("X-Ratelimit-Remaining-" + l.name)))
		if err != nil || n < 0 {
			continue
		}
		said = true
		*l.remaining = n
		*l.reset = resetAfter(r.header.Get("X-Ratelimit-Reset-"+l.name), now)
		if size, err := strconv.Atoi(strings.TrimSpace(r.header.Get("X-Ratelimit-Limit-" + l.name))); err == nil && size > 0 {
			*l.size = size
		}
	}
	if !said {
		return nil
	}
	return &rl
}

// resetAfter reads an x-ratelimit-reset value: a Go-style duration as
// OpenAI sends it ("1s", "6m0s", "20ms"), or seconds.
func resetAfter(v string, now time.Time) time.Duration {
	if d, err := time.ParseDuration(v); err == nil {
		return max(d, 0)
	}
	return llm.ParseRetryAfter(v, now)
}

// classify maps go-openai's errors to *llm.StatusError, by type, with the
// Retry-After the recorder saw. Errors without a response (timeouts,
// resets, refused connections) pass through unchanged for llm.Temporary.
func classify(err error, r *reply) error {
	var reqErr *openai.RequestError
	var apiErr *openai.APIError
	switch {
	case errors.As(err, &reqErr):
		// A non-JSON error body (an HTML 502 from a proxy), or one without
		// an "error" object: {"error": "text"} (Ollama, LM Studio) or a
		// top-level "message" (vLLM).
		return &llm.StatusError{Code: reqErr.HTTPStatusCode, RetryAfter: r.retryAfterHint(time.Now()), Message: llm.ErrorMessage(reqErr.Body), Err: err}
	case errors.As(err, &apiErr):
		return &llm.StatusError{Code: apiErr.HTTPStatusCode, RetryAfter: r.retryAfterHint(time.Now()), Message: apiErr.Message, Err: err}
	case r.seen && r.status >= 400:
		// The error body could not be read: the status still decides.
		return &llm.StatusError{Code: r.status, RetryAfter: r.retryAfterHint(time.Now()), Err: err}
	case r.seen && r.streamed():
		// A server or proxy that streams whatever it is asked: a stream
		// of chunks is no chat completion, and asking again streams again.
		return fmt.Errorf("%w: a %d reply streamed as server-sent events (%s), though the request asked for no stream: %q",
			llm.ErrNotChat, r.status, cmp.Or(r.header.Get("Content-Type"), "no Content-Type"), llm.ErrorMessage(r.body.Head))
	case r.seen:
		// A success status whose body did not decode. A body cut off in
		// transit keeps io.ErrUnexpectedEOF (retried); one that is not JSON
		// at all (a web page at the wrong base URL) is permanent.
		return fmt.Errorf("decode %d response: %w", r.status, err)
	}
	return err
}
