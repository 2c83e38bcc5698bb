package llm

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/assaylabs/assay/eval"
)

// Role is the author of a chat message.
type Role string

// Chat roles.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one chat turn.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
}

// Schema is a JSON schema the reply must follow, with the name the API
// wants for it.
type Schema struct {
	Name string          `json:"name"`
	JSON json.RawMessage `json:"schema"`
}

// Request is one chat call.
type Request struct {
	Messages []Message `json:"messages"`
	// Schema, when set, asks for a JSON reply of that shape (structured
	// output or JSON mode with the schema in the prompt, per the backend's
	// setting).
	Schema *Schema `json:"schema,omitempty"`
	// Temperature defaults to 0: judges must be reproducible.
	Temperature float64 `json:"temperature"`
	// MaxTokens caps the reply; zero means the backend's default.
	MaxTokens int  `json:"max_tokens,omitempty"`
	Seed      *int `json:"seed,omitempty"`
	// TopLogprobs, when above 0, asks for the log-probability of each
	// reply token and of the TopLogprobs most likely tokens at its place
	// (OpenAI's logprobs and top_logprobs), in Response.Logprobs; a
	// backend or model that cannot give them sends none. It is not part
	// of the cache key by itself: set Key to tell such requests apart.
	TopLogprobs int `json:"top_logprobs,omitempty"`
	// Key identifies the request's content for the cache and singleflight
	// when the messages carry per-call randomness (prompt delimiters with a
	// nonce). Empty means the messages themselves are the key.
	Key string `json:"key,omitempty"`
	// Tag names the caller ("faithfulness/verify") in events and usage.
	Tag string `json:"-"`
	// Check, when set, vets a reply before it is cached: a reply that fails
	// it is returned but never stored, so a bad reply is not replayed. A
	// reply that passes is stored with what Check returns (Response.Checked:
	// the JSON object it read), so that a reply read back from the cache
	// is decoded without being vetted again.
	Check func(content string) (checked string, err error) `json:"-"`
	// Stale, when set, is why the reply the cache holds for this request
	// does not read as the request asks now (stored by another version,
	// or under a schema or check that changed since): a Client does not
	// look in its cache for it, sends it, stores the new reply over the
	// stale one and counts a cache error (Event "cache_error") saying so.
	// ChatJSON sets it.
	Stale error `json:"-"`
	// Prompt, when set with Key and no Messages, makes the messages on
	// demand: a Client whose cache holds the reply for Key never calls
	// it, so a rerun served from the cache renders no prompt. ChatJSON
	// calls it first for any other Chatter.
	Prompt func() ([]Message, error) `json:"-"`
}

// Built is r with its messages made by r.Prompt, when it has one and no
// messages yet; r as it is otherwise.
func (r Request) Built() (Request, error) {
	if r.Prompt == nil || len(r.Messages) > 0 {
		return r, nil
	}
	msgs, err := r.Prompt()
	if err != nil {
		return r, err
	}
	r.Messages, r.Prompt = msgs, nil
	return r, nil
}

// Response is a chat reply.
type Response struct {
	Content string     `json:"content"`
	Usage   eval.Usage `json:"usage"`
	// Cached is true when the reply came from the cache (Usage then counts
	// no calls, no tokens and no cost: its tokens are CachedTokensIn and
	// CachedTokensOut).
	Cached bool `json:"-"`
	// Checked is the JSON object of Content that passed the request's
	// Check when the reply was stored in the cache ("" when none did):
	// ChatJSON decodes it as it is, without the schema validation and the
	// search for the object in Content that it did then.
	Checked string `json:"checked,omitempty"`
	// Truncated is true when the reply stopped at the output token limit
	// (OpenAI's finish_reason "length", Anthropic's stop_reason
	// "max_tokens") rather than where the model ended it.
	Truncated bool `json:"truncated,omitempty"`
	// RateLimits is what the reply's x-ratelimit headers said of the
	// server's limits, nil when it sent none; the Client's adaptive
	// limit reads it (AdaptivePolicy).
	RateLimits *RateLimits `json:"-"`
	// Logprobs are the reply's tokens with their log-probabilities, when
	// the request asked (Request.TopLogprobs) and the server sent them;
	// nil otherwise.
	Logprobs []TokenLogprob `json:"logprobs,omitempty"`
	// Model and ID are the model that answered and the reply's id, as the
	// server names them, when it does (for traces; not cached).
	Model string `json:"-"`
	ID    string `json:"-"`
	// Fingerprint is the server's name for the model build that answered
	// (OpenAI's system_fingerprint), "" when it sends none. It is cached
	// with the reply, so that a reply served again names the build that
	// gave it; Client.Chat copies it into Usage.Fingerprints.
	Fingerprint string `json:"system_fingerprint,omitempty"`
	// Seed is the seed the backend sent, when it sets one of its own
	// (a backend's default seed for requests without one); nil means
	// Request.Seed. Client.Chat copies it into Usage.Seeds.
	Seed *int `json:"seed,omitempty"`
}

// Backend sends single requests to one model. Implementations map their
// errors to *StatusError (HTTP status and Retry-After) or return transport
// errors unchanged, so that the Client can classify them. They must be safe
// for concurrent use.
type Backend interface {
	// Name is "backend:model", e.g. "openai:gpt-4o-mini".
	Name() string
	Chat(ctx context.Context, req Request) (Response, error)
	// Embed returns one vector per text, or ErrNoEmbeddings.
	Embed(ctx context.Context, texts []string) ([][]float32, eval.Usage, error)
}

// Errors callers branch on.
var (
	// ErrNoEmbeddings is returned by backends without an embedding model.
	ErrNoEmbeddings = errors.New("llm: backend has no embedding model")
	// ErrNoChat is returned by backends that cannot generate text (offline).
	ErrNoChat = errors.New("llm: backend has no chat model")
	// ErrBudget is returned, without calling the model, when a call would
	// take the run past Config.MaxCostUSD.
	ErrBudget = errors.New("llm: cost budget exhausted")
	// ErrEmpty is returned when the server answered with no choices or an
	// empty message.
	ErrEmpty = errors.New("llm: empty reply")
	// ErrNotChat is returned when a success reply is not a chat
	// completion: a body with no choices field (a proxy's or another
	// API's answer), or a choice whose message has no content field (a
	// tool call). Its text names what is missing and quotes the body's
	// start.
	ErrNotChat = errors.New("llm: the reply is not a chat completion")
	// ErrInvalidOutput is returned by ChatJSON when the reply is not valid
	// JSON of the requested shape, even after one repair request.
	ErrInvalidOutput = errors.New("llm: invalid output")
)
