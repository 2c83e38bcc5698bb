package langchain_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/langchain"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestOpenEnvErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec, want string
		env        map[string]string
	}{
		"no model":                     {spec: "anthropic", want: "want PROVIDER:MODEL with PROVIDER one of anthropic, ollama"},
		"empty model":                  {spec: "ollama:", want: "want PROVIDER:MODEL"},
		"empty spec":                   {spec: "", want: "want PROVIDER:MODEL"},
		"unknown provider lists known": {spec: "mistral:mistral-small", want: `unknown provider "mistral" in "mistral:mistral-small": want one of anthropic, ollama`},
		"anthropic needs its key":      {spec: "anthropic:claude-3-5-haiku-latest", want: "ANTHROPIC_API_KEY is not set"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := langchain.OpenEnv(tc.spec, envOf(tc.env))
			require.ErrorContains(t, err, tc.want)
			require.Nil(t, b)
		})
	}
}

func TestOpenEnvNames(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec string
		env  map[string]string
	}{
		"langchain:anthropic:claude-3-5-haiku-latest": {spec: "anthropic:claude-3-5-haiku-latest", env: map[string]string{"ANTHROPIC_API_KEY": "k"}},
		"langchain:ollama:qwen2.5:7b":                 {spec: "ollama:qwen2.5:7b"},
	}
	for want, tc := range tests {
		t.Run(want, func(t *testing.T) {
			t.Parallel()
			b, err := langchain.OpenEnv(tc.spec, envOf(tc.env))
			require.NoError(t, err)
			require.Equal(t, want, b.Name())
		})
	}
}

// A 429 with Retry-After from Anthropic, which langchaingo reports as a
// plain string, reaches llm.Client as a StatusError and is retried.
func TestAnthropicRateLimitIsRetried(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/v1/messages", r.URL.Path)
		require.Equal(t, "test-key", r.Header.Get("x-api-key"))
		b, _ := io.ReadAll(r.Body)
		body.Store(b)
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0.01")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
			"content":[{"type":"text","text":"{\"verdict\":\"pass\"}"}],"stop_reason":"end_turn",
			"usage":{"input_tokens":21,"output_tokens":4}}`)
	}))
	t.Cleanup(srv.Close)

	b, err := langchain.OpenEnv("anthropic:claude-test", envOf(map[string]string{
		"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL,
	}))
	require.NoError(t, err)
	c := llm.New(llm.Config{Backend: b, Retry: llm.RetryPolicy{Initial: time.Millisecond}})
	resp, err := c.Chat(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.System, Content: "judge"}, {Role: llm.User, Content: "q"}},
		Schema:   &llm.Schema{Name: "verdict", JSON: json.RawMessage(`{"type":"object"}`)},
	})
	require.NoError(t, err)
	require.Equal(t, int32(2), calls.Load(), "429 then 200")
	require.Equal(t, `{"verdict":"pass"}`, resp.Content)
	require.Equal(t, 1, resp.Usage.Retries)
	require.Equal(t, 21, resp.Usage.TokensIn)
	require.Equal(t, 4, resp.Usage.TokensOut)

	var sent struct {
		Model       string   `json:"model"`
		System      string   `json:"system"`
		Temperature *float64 `json:"temperature"`
	}
	require.NoError(t, json.Unmarshal(body.Load().([]byte), &sent))
	require.Equal(t, "claude-test", sent.Model)
	require.Contains(t, sent.System, "judge\n\nReply with one JSON object only")
	require.NotNil(t, sent.Temperature)
	require.Zero(t, *sent.Temperature)
}

func TestAnthropicStatusError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)
	}))
	t.Cleanup(srv.Close)
	b, err := langchain.OpenEnv("anthropic:claude-test", envOf(map[string]string{
		"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL + "/v1/",
	}))
	require.NoError(t, err)
	_, err = b.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}})
	var se *llm.StatusError
	require.ErrorAs(t, err, &se)
	require.Equal(t, http.StatusTooManyRequests, se.Code)
	require.Equal(t, 7*time.Second, se.RetryAfter)
	require.ErrorContains(t, err, "slow down")
}

func TestOllama(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model   string `json:"model"`
			Format  string `json:"format"`
			Options struct {
				Seed int `json:"seed"`
			} `json:"options"`
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		if req.Model == "loading" {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":"model is loading"}`)
			return
		}
		require.Equal(t, "json", req.Format)
		require.Equal(t, 3, req.Options.Seed)
		_, _ = io.WriteString(w, `{"model":"`+req.Model+`","message":{"role":"assistant","content":"{}"},"done":true,"prompt_eval_count":12,"eval_count":3}`+"\n")
	})
	mux.HandleFunc("POST /api/embed", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		require.Equal(t, "nomic-embed-text", req.Model)
		_, _ = io.WriteString(w, `{"embeddings":[[0.5,0.25]]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	env := envOf(map[string]string{"OLLAMA_HOST": srv.URL, "ASSAY_EMBEDDING_MODEL": "nomic-embed-text"})
	ctx := context.Background()
	seed := 3
	req := llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "q"}},
		Schema:   &llm.Schema{Name: "v", JSON: json.RawMessage(`{}`)},
		Seed:     &seed,
	}

	t.Run("chat in JSON mode with usage", func(t *testing.T) {
		t.Parallel()
		b, err := langchain.OpenEnv("ollama:qwen2.5:7b", env)
		require.NoError(t, err)
		resp, err := b.Chat(ctx, req)
		require.NoError(t, err)
		require.Equal(t, "{}", resp.Content)
		require.Equal(t, eval.Usage{TokensIn: 12, TokensOut: 3}, resp.Usage)
	})
	t.Run("a 503 with an error text is a StatusError", func(t *testing.T) {
		t.Parallel()
		b, err := langchain.OpenEnv("ollama:loading", env)
		require.NoError(t, err)
		_, err = b.Chat(ctx, req)
		var se *llm.StatusError
		require.ErrorAs(t, err, &se)
		require.Equal(t, http.StatusServiceUnavailable, se.Code)
		require.True(t, llm.Temporary(err))
	})
	t.Run("embeddings from ASSAY_EMBEDDING_MODEL", func(t *testing.T) {
		t.Parallel()
		b, err := langchain.OpenEnv("ollama:qwen2.5:7b", env)
		require.NoError(t, err)
		vecs, _, err := b.Embed(ctx, []string{"text"})
		require.NoError(t, err)
		require.Equal(t, [][]float32{{0.5, 0.25}}, vecs)
	})
	t.Run("no embedding model, no embeddings", func(t *testing.T) {
		t.Parallel()
		b, err := langchain.OpenEnv("ollama:qwen2.5:7b", envOf(map[string]string{"OLLAMA_HOST": srv.URL}))
		require.NoError(t, err)
		_, _, err = b.Embed(ctx, []string{"text"})
		require.ErrorIs(t, err, llm.ErrNoEmbeddings)
	})
}

func TestAnthropicStatusClassification(t *testing.T) {
	t.Parallel()
	in20s := time.Now().Add(20 * time.Second).UTC().Format(http.TimeFormat)
	tests := map[string]struct {
		status     int
		header     http.Header
		body       string
		temporary  bool
		retryAfter time.Duration // at least
	}{
		"429 with an HTTP-date Retry-After": {
			status: 429, header: http.Header{"Retry-After": {in20s}},
			body:      `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`,
			temporary: true, retryAfter: 10 * time.Second,
		},
		"529 overloaded": {
			status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, temporary: true,
		},
		"502 HTML page from a proxy": {
			status: 502, header: http.Header{"Content-Type": {"text/html"}},
			body: "<html><body><h1>502 Bad Gateway</h1></body></html>", temporary: true,
		},
		"500 plain text": {status: 500, header: http.Header{"Content-Type": {"text/plain"}}, body: "Internal Server Error", temporary: true},
		"400 invalid request": {
			status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}`,
		},
		"401 authentication": {
			status: 401, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.header {
					w.Header()[k] = v
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			t.Cleanup(srv.Close)
			b, err := langchain.OpenEnv("anthropic:claude-test", envOf(map[string]string{
				"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL,
			}))
			require.NoError(t, err)
			_, err = b.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}})
			var se *llm.StatusError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tc.status, se.Code)
			require.Equal(t, tc.temporary, llm.Temporary(err))
			require.GreaterOrEqual(t, se.RetryAfter, tc.retryAfter)
		})
	}
}

// TestErrorInA200Reply: some proxies and servers (LiteLLM, OpenRouter,
// vLLM and Ollama setups) answer 200 with an error body instead of a
// reply, which langchaingo reports as an empty response or a decoding
// error. The server's message is the error, and its code or type decides
// as an HTTP status would: rate limits, server errors and overload are
// retried, anything else fails at once. Anthropic's and Ollama's wire
// formats, chat and embeddings.
func TestErrorInA200Reply(t *testing.T) {
	t.Parallel()
	apis := map[string]struct {
		spec, path, ok string
		embed          bool
	}{
		"anthropic chat": {
			spec: "anthropic:claude-test", path: "/v1/messages",
			ok: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
				"content":[{"type":"text","text":"{\"verdict\":\"pass\"}"}],"stop_reason":"end_turn",
				"usage":{"input_tokens":21,"output_tokens":4}}`,
		},
		"ollama chat": {
			spec: "ollama:judge-1", path: "/api/chat",
			ok: `{"model":"judge-1","message":{"role":"assistant","content":"{\"verdict\":\"pass\"}"},"done":true,"prompt_eval_count":12,"eval_count":3}` + "\n",
		},
		"ollama embed": {spec: "ollama:judge-1", path: "/api/embed", ok: `{"embeddings":[[0.5,0.25]]}`, embed: true},
	}
	for name, tc := range llmtest.ErrorReplies() {
		for apiName, api := range apis {
			t.Run(name+"/"+apiName, func(t *testing.T) {
				t.Parallel()
				var calls atomic.Int32
				mux := http.NewServeMux()
				mux.HandleFunc("POST "+api.path, func(w http.ResponseWriter, _ *http.Request) {
					if calls.Add(1) > 1 && tc.Then {
						_, _ = io.WriteString(w, api.ok)
						return
					}
					_, _ = io.WriteString(w, tc.Body)
				})
				srv := httptest.NewServer(mux)
				t.Cleanup(srv.Close)
				b, err := langchain.OpenEnv(api.spec, envOf(map[string]string{
					"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL,
					"OLLAMA_HOST": srv.URL, "ASSAY_EMBEDDING_MODEL": "embed-1",
				}))
				require.NoError(t, err)
				c := llm.New(llm.Config{Backend: b, Retry: llm.RetryPolicy{
					Initial: 5 * time.Millisecond, Max: 20 * time.Millisecond, MaxRetries: 3,
				}})

				start := time.Now()
				var u eval.Usage
				if api.embed {
					_, u, err = c.Embed(t.Context(), []string{"x"})
				} else {
					var v struct{ Verdict string }
					u, err = llm.ChatJSON(t.Context(), c, llm.Request{
						Messages: []llm.Message{{Role: llm.User, Content: "q"}},
						Schema:   &llm.Schema{Name: "verdict", JSON: json.RawMessage(`{"type":"object"}`)},
					}, &v)
					if tc.Then {
						assert.Equal(t, "pass", v.Verdict)
					}
				}
				tc.Check(t, int(calls.Load()), u, err, time.Since(start))
			})
		}
	}
}

// TestOpenEnvCacheScopeNamesTheServer: the same model name on two servers
// (two Ollama hosts, Anthropic and a proxy) is two models to the cache,
// as for the openai backend; the default server keeps the scope that
// caches filled before had, the backend's name.
func TestOpenEnvCacheScopeNamesTheServer(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec string
		env  map[string]string
		want string
	}{
		"ollama on its default host":       {spec: "ollama:qwen2.5:7b", want: "langchain:ollama:qwen2.5:7b"},
		"ollama's default host named":      {spec: "ollama:qwen2.5:7b", env: map[string]string{"OLLAMA_HOST": "127.0.0.1:11434"}, want: "langchain:ollama:qwen2.5:7b"},
		"ollama on another host":           {spec: "ollama:qwen2.5:7b", env: map[string]string{"OLLAMA_HOST": "gpu2:11434"}, want: "langchain:ollama:qwen2.5:7b@http://gpu2:11434"},
		"ollama on another port":           {spec: "ollama:qwen2.5:7b", env: map[string]string{"OLLAMA_HOST": "127.0.0.1:11500"}, want: "langchain:ollama:qwen2.5:7b@http://127.0.0.1:11500"},
		"anthropic's own API":              {spec: "anthropic:claude-3-5-haiku-latest", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, want: "langchain:anthropic:claude-3-5-haiku-latest"},
		"anthropic's own API named":        {spec: "anthropic:claude-3-5-haiku-latest", env: map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "https://api.anthropic.com"}, want: "langchain:anthropic:claude-3-5-haiku-latest"},
		"anthropic through another server": {spec: "anthropic:claude-3-5-haiku-latest", env: map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "https://proxy.example/"}, want: "langchain:anthropic:claude-3-5-haiku-latest@https://proxy.example/v1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := langchain.OpenEnv(tc.spec, envOf(tc.env))
			require.NoError(t, err)
			assert.Equal(t, tc.want, b.CacheScope())
		})
	}
}

// TestTwoOllamaHostsDoNotShareReplies: a cache shared by runs against two
// Ollama hosts serving a model of the same name answers each run with its
// own host's reply, never the other's.
func TestTwoOllamaHostsDoNotShareReplies(t *testing.T) {
	t.Parallel()
	host := func(reply string) string {
		mux := http.NewServeMux()
		mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"`+reply+`"},"done":true,"prompt_eval_count":5,"eval_count":1}`+"\n")
		})
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	cache, err := llm.OpenCache(filepath.Join(t.TempDir(), "llm-cache.db"), 0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cache.Close()) })
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}}
	tests := []struct{ host, want string }{
		{host: host("from gpu1"), want: "from gpu1"},
		{host: host("from gpu2"), want: "from gpu2"},
	}
	for _, tc := range tests {
		b, err := langchain.OpenEnv("ollama:qwen2.5:7b", envOf(map[string]string{"OLLAMA_HOST": tc.host}))
		require.NoError(t, err)
		c := llm.New(llm.Config{Backend: b, Cache: cache})
		resp, err := c.Chat(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, tc.want, resp.Content, tc.host)
		assert.False(t, resp.Cached, tc.host)
	}
}
