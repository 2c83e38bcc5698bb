// Package dryrun is a model backend that calls no model: it records each
// request, counts its tokens as the client does, and answers with a valid
// reply of the request's schema. Running the real judges and research code
// against it gives the calls and tokens a run would make, so a dry run's
// estimate follows every change of a prompt, a clip size or a call.
//
// The replies are not its own: the code that makes a request knows what a
// cooperative model would answer (one verdict per statement asked about, a
// grade, a report citing its sources), so each metric's registry entry
// gives its stand-in (metric.Entry.DryRun, gathered by
// metric.Registry.DryRun) and the research workflow gives its own
// (agent.StandIn). New takes them as Repliers; a request none of them
// knows is answered with the least instance its schema allows.
package dryrun

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/datablock"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/offline"
)

// messageTokens is what the client adds to each message's count for its
// framing (see llm.Client's estimate of a prompt).
const messageTokens = 4

// EmbedTag is the Tag of the Calls that embed.
const EmbedTag = "embeddings"

// Call is one request the Backend answered.
type Call struct {
	// Tag is the request's Tag (its prompt template), or EmbedTag.
	Tag string `json:"tag"`
	// TokensIn counts the prompt as the client does: each message's
	// content with its random nonces replaced by datablock.PreviewNonce,
	// plus 4 tokens of framing a message; for an embedding, its texts.
	TokensIn int `json:"tokens_in"`
	// TokensOut is the reply's estimated length (see Reply).
	TokensOut int `json:"tokens_out"`
	// Embed marks an embedding call (its tokens are all input).
	Embed bool `json:"embed,omitempty"`
}

// Replier answers a request with the reply a cooperative model would
// give, valid for the request's schema, and the reply's length in tokens
// as count counts them; ok is false for a request it does not know.
type Replier func(req llm.Request, count func(string) int) (content string, tokensOut int, ok bool)

// Backend is the recording llm.Backend. It is safe for concurrent use.
type Backend struct {
	name    string
	counter llm.TokenCounter
	embed   *offline.Backend // nil: no embedding model, as the real one
	replies []Replier

	mu    sync.Mutex
	calls []Call
}

var (
	_ llm.Backend       = (*Backend)(nil)
	_ llm.EmbedReporter = (*Backend)(nil)
)

// New returns a Backend standing in for c's model: its name, its token
// counter and whether it embeds (llm.Client.Embeds). It answers a request
// with the reply of the first of replies that knows it.
func New(c *llm.Client, replies ...Replier) *Backend {
	b := &Backend{name: c.Name(), counter: c.Counter(), replies: replies}
	if c.Embeds() {
		b.embed = offline.New(offline.Config{Counter: c.Counter()})
	}
	return b
}

// Embeds implements llm.EmbedReporter.
func (b *Backend) Embeds() bool { return b.embed != nil }

// Name is the name of the model it stands in for.
func (b *Backend) Name() string { return b.name }

// Chat records req and answers it with the reply of the first Replier
// that knows it; a request none knows is answered with the least instance
// its schema allows, or "{}" without a schema. A least instance is valid,
// but says as little as the schema lets it: a judge that needs more of a
// reply (a verdict for each statement asked about) refuses it, which is
// why every judge of Assay's gives its own stand-in.
func (b *Backend) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	texts := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		texts[i] = m.Content
	}
	in := 0
	for _, t := range datablock.WithPreviewNonce(texts...) {
		in += b.counter.Count(t) + messageTokens
	}
	content, out, ok := "", 0, false
	for _, reply := range b.replies {
		if content, out, ok = reply(req, b.counter.Count); ok {
			break
		}
	}
	if !ok && req.Schema != nil {
		content = least(req.Schema.JSON)
	}
	if !ok {
		if content == "" {
			content = "{}"
		}
		out = b.counter.Count(content)
	}
	if req.MaxTokens > 0 {
		out = min(out, req.MaxTokens)
	}
	b.record(Call{Tag: req.Tag, TokensIn: in, TokensOut: out})
	return llm.Response{Content: content, Usage: eval.Usage{TokensIn: in, TokensOut: out}}, nil
}

// Embed records the texts and returns the offline backend's vectors, or
// llm.ErrNoEmbeddings, recording nothing, when the model it stands in for
// has no embedding model.
func (b *Backend) Embed(ctx context.Context, texts []string) ([][]float32, eval.Usage, error) {
	if b.embed == nil {
		return nil, eval.Usage{}, llm.ErrNoEmbeddings
	}
	vecs, u, err := b.embed.Embed(ctx, texts)
	if err != nil {
		return nil, eval.Usage{}, err
	}
	b.record(Call{Tag: EmbedTag, TokensIn: u.TokensIn, Embed: true})
	return vecs, u, nil
}

func (b *Backend) record(c Call) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, c)
}

// Calls returns the calls answered so far, in order.
func (b *Backend) Calls() []Call {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.calls)
}

// Client returns a client for b with c's token counter and prices, and no
// budget or limit: the client a dry run judges with. Its cache holds the
// run's replies in memory, so a request made twice in a run counts once,
// as with a real run's response cache.
func Client(b *Backend, c *llm.Client) *llm.Client {
	return llm.New(llm.Config{Backend: b, Counter: c.Counter(), Prices: c.Prices(), Concurrency: 1, Cache: &memCache{m: map[string]llm.Response{}}})
}

// memCache is an llm.Cache in memory.
type memCache struct {
	mu sync.Mutex
	m  map[string]llm.Response
}

func (c *memCache) Get(_ context.Context, key string) (llm.Response, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	return r, ok, nil
}

func (c *memCache) Put(_ context.Context, key string, r llm.Response) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = r
	return nil
}

// least is the least JSON instance schema allows: every required property
// at its least, the first of an enum, the minimum of a number, the
// fewest items of an array.
func least(schema json.RawMessage) string {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return "{}"
	}
	b, err := json.Marshal(leastOf(s))
	if err != nil {
		return "{}"
	}
	return string(b)
}

func leastOf(s map[string]any) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if c, ok := s["const"]; ok {
		return c
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok {
		for _, t := range ts {
			if t, _ := t.(string); t != "null" {
				typ = t
				break
			}
		}
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			name, _ := r.(string)
			if p, ok := props[name].(map[string]any); ok {
				out[name] = leastOf(p)
			}
		}
		return out
	case "array":
		n, _ := s["minItems"].(float64)
		items, _ := s["items"].(map[string]any)
		out := make([]any, 0, int(n))
		for range int(n) {
			out = append(out, leastOf(items))
		}
		return out
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 0
	case "boolean":
		return false
	case "string":
		return ""
	}
	return nil
}
