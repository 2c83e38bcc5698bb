package llm

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// mapCache is a Cache in memory.
type mapCache struct {
	mu sync.Mutex
	m  map[string]Response
}

func (c *mapCache) Get(_ context.Context, key string) (Response, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	return r, ok, nil
}

func (c *mapCache) Put(_ context.Context, key string, r Response) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]Response{}
	}
	c.m[key] = r
	return nil
}

// heardBackend answers replies in turn (the last one again when they run
// out) and keeps the messages of every request it was sent.
type heardBackend struct {
	mu      sync.Mutex
	replies []string
	heard   [][]Message
}

func (b *heardBackend) Name() string { return "heard:model" }

func (b *heardBackend) Chat(_ context.Context, req Request) (Response, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.heard = append(b.heard, req.Messages)
	reply := b.replies[min(len(b.heard), len(b.replies))-1]
	return Response{Content: reply, Usage: eval.Usage{Calls: 1, TokensIn: 10, TokensOut: 2}}, nil
}

func (b *heardBackend) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, ErrNoEmbeddings
}

// notClient is a Chatter that is not a Client: it passes requests on.
type notClient struct{ c Chatter }

func (n notClient) Chat(ctx context.Context, req Request) (Response, error) {
	if len(req.Messages) == 0 {
		return Response{}, errors.New("no messages")
	}
	return n.c.Chat(ctx, req)
}

// TestPromptIsBuiltOnlyWhenSent: a request whose messages are made on
// demand (Request.Prompt) is rendered for a call the client sends, and
// not at all for a reply its cache holds; any other Chatter is handed
// the messages made; a repair of a reply that could not be read quotes
// the prompt, made for it.
func TestPromptIsBuiltOnlyWhenSent(t *testing.T) {
	prompt := []Message{{Role: System, Content: "judge"}, {Role: User, Content: "the claim"}}
	schema := &Schema{Name: "verdict", JSON: []byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}
	tests := map[string]struct {
		replies   []string
		cached    bool // the reply is in the cache before the call
		wrap      bool // the call goes through a Chatter that is not a Client
		wantBuilt int
		wantSent  int
	}{
		"a call sent renders its prompt once":            {replies: []string{`{"ok":true}`}, wantBuilt: 1, wantSent: 1},
		"a reply from the cache renders nothing":         {replies: []string{`{"ok":true}`}, cached: true, wantBuilt: 0, wantSent: 0},
		"another Chatter is handed the messages made":    {replies: []string{`{"ok":true}`}, wrap: true, wantBuilt: 1, wantSent: 1},
		"a repair after an unreadable reply quotes it":   {replies: []string{`not json`, `{"ok":true}`}, wantBuilt: 1, wantSent: 2},
		"a cached reply that cannot be read is repaired": {replies: []string{`{"ok":true}`}, cached: true, wantBuilt: 1, wantSent: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := &heardBackend{replies: tc.replies}
			cache := &mapCache{}
			c := New(Config{Backend: b, Cache: cache})
			var built atomic.Int64
			req := Request{Key: "k1", Schema: schema, Prompt: func() ([]Message, error) {
				built.Add(1)
				return prompt, nil
			}}
			if tc.cached {
				content := `{"ok":false}`
				if name == "a cached reply that cannot be read is repaired" {
					content = `{"verdict":`
				}
				require.NoError(t, cache.Put(t.Context(), c.key(req), Response{Content: content}))
			}
			var chatter Chatter = c
			if tc.wrap {
				chatter = notClient{c}
			}
			var out struct {
				OK bool `json:"ok"`
			}
			_, err := ChatJSON(t.Context(), chatter, req, &out)
			require.NoError(t, err)
			assert.Equal(t, int64(tc.wantBuilt), built.Load(), "prompts rendered")
			require.Len(t, b.heard, tc.wantSent, "requests sent")
			for _, msgs := range b.heard {
				require.GreaterOrEqual(t, len(msgs), 2)
				assert.Equal(t, prompt[0], msgs[0], "every request sent carries the prompt")
				assert.Equal(t, prompt[1].Content, msgs[1].Content[:len(prompt[1].Content)])
			}
			assert.Equal(t, !tc.cached || tc.wantSent > 0, out.OK, "the reply read")
		})
	}
}

// TestPromptErrorIsTheCallsError: a prompt that cannot be made fails the
// call, and nothing is sent.
func TestPromptErrorIsTheCallsError(t *testing.T) {
	b := &heardBackend{replies: []string{`{"ok":true}`}}
	c := New(Config{Backend: b, Cache: &mapCache{}})
	bad := errors.New("template: no field Claims")
	for _, key := range []string{"k", ""} {
		_, err := c.Chat(t.Context(), Request{Key: key, Prompt: func() ([]Message, error) { return nil, bad }})
		require.ErrorIs(t, err, bad, "key %q", key)
	}
	assert.Empty(t, b.heard)
}

// TestStaleCachedReplyIsAskedAgain: a reply the cache holds that does not
// read as its request asks now (stored by another version with no
// content, off a schema that changed since, or with a checked object
// that no longer passes) is not repaired as if the model had sent it: the
// model is asked the request again, its reply replaces the stale one in
// the cache, and a cache error says so. A rerun is then served from the
// cache with no call.
func TestStaleCachedReplyIsAskedAgain(t *testing.T) {
	prompt := []Message{{Role: System, Content: "judge"}, {Role: User, Content: "the claim"}}
	schema := &Schema{Name: "verdict", JSON: []byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}
	tests := map[string]struct {
		stale     Response
		wantCause string
	}{
		"no content (another version's reply)": {stale: Response{}, wantCause: "no JSON object in reply"},
		"off the schema as it is now":          {stale: Response{Content: `{"ok":"yes"}`}, wantCause: "not of the schema"},
		"a checked object off the schema":      {stale: Response{Content: `{"ok":1}`, Checked: `{"ok":1}`}, wantCause: "not of the schema"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := &heardBackend{replies: []string{`{"ok":true}`}}
			cache := &mapCache{}
			var cacheErrs []error
			var mu sync.Mutex
			c := New(Config{Backend: b, Cache: cache, OnEvent: func(e Event) {
				if e.Kind == "cache_error" {
					mu.Lock()
					cacheErrs = append(cacheErrs, e.Err)
					mu.Unlock()
				}
			}})
			req := Request{Key: "k1", Schema: schema, Prompt: func() ([]Message, error) { return prompt, nil }}
			require.NoError(t, cache.Put(t.Context(), c.key(req), tc.stale))

			var out struct {
				OK bool `json:"ok"`
			}
			resp, err := ChatJSONReply(t.Context(), c, req, &out)
			require.NoError(t, err)
			assert.True(t, out.OK)
			assert.False(t, resp.Cached, "the reply is the model's, not the cache's")
			require.Equal(t, [][]Message{prompt}, b.heard, "the request itself is sent again, not a repair quoting the stale reply")
			assert.Equal(t, 1, resp.Usage.Calls)
			mu.Lock()
			require.Len(t, cacheErrs, 1)
			assert.Contains(t, cacheErrs[0].Error(), tc.wantCause)
			mu.Unlock()
			assert.Equal(t, 1, c.Usage().CacheErrors)

			stored, ok, err := cache.Get(t.Context(), c.key(req))
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, `{"ok":true}`, stored.Content, "the fresh reply replaces the stale one")

			out.OK = false
			resp, err = ChatJSONReply(t.Context(), c, req, &out)
			require.NoError(t, err)
			assert.True(t, out.OK)
			assert.True(t, resp.Cached)
			assert.Len(t, b.heard, 1, "the rerun is served from the cache")
		})
	}
}

// TestAStaleReplyIsNotCountedAsServed: a stored reply that does not read
// now is thrown away and the model asked again: the judgement's usage and
// the client's count the call paid for and a cache error, never a cache
// hit or tokens served from the cache, which would count one judgement's
// reply twice. A reply the cache serves and that reads is a hit.
func TestAStaleReplyIsNotCountedAsServed(t *testing.T) {
	t.Parallel()
	schema := &Schema{Name: "verdict", JSON: []byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}
	stored := eval.Usage{Calls: 1, TokensIn: 300, TokensOut: 40}
	tests := map[string]struct {
		stored     string
		wantReply  eval.Usage // the judgement's
		wantClient eval.Usage // the client's, after it
	}{
		"a stale reply": {
			stored:     "not JSON",
			wantReply:  eval.Usage{Calls: 1, TokensIn: 10, TokensOut: 2},
			wantClient: eval.Usage{Calls: 1, TokensIn: 10, TokensOut: 2, CacheErrors: 1},
		},
		"a reply that reads": {
			stored:     `{"ok":true}`,
			wantReply:  eval.Usage{CacheHits: 1, CachedTokensIn: 300, CachedTokensOut: 40},
			wantClient: eval.Usage{CacheHits: 1, CachedTokensIn: 300, CachedTokensOut: 40},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := &heardBackend{replies: []string{`{"ok":true}`}}
			cache := &mapCache{}
			c := New(Config{Backend: b, Cache: cache, Prices: Prices{}})
			req := Request{Key: "k1", Schema: schema, Prompt: func() ([]Message, error) { return []Message{{Role: User, Content: "q"}}, nil }}
			require.NoError(t, cache.Put(t.Context(), c.key(req), Response{Content: tc.stored, Usage: stored}))
			var out struct {
				OK bool `json:"ok"`
			}
			resp, err := ChatJSONReply(t.Context(), c, req, &out)
			require.NoError(t, err)
			assert.True(t, out.OK)
			got := resp.Usage
			got.Latency, got.CostUnknown = 0, false
			assert.Equal(t, tc.wantReply, got)
			total := c.Usage()
			total.Latency, total.CostUnknown = 0, false
			assert.Equal(t, tc.wantClient, total)
		})
	}
}
