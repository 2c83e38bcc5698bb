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
