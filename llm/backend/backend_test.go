package backend_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/backend"
	"github.com/assaylabs/assay/llm/offline"
	"github.com/assaylabs/assay/llm/openai"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec string
		env  map[string]string
		want backend.Spec
		key  string
	}{
		"nothing set is offline": {
			want: backend.Spec{Backend: "offline"},
		},
		"an OpenAI key alone picks gpt-4o-mini": {
			env:  map[string]string{"OPENAI_API_KEY": "sk"},
			want: backend.Spec{Backend: "openai", Model: "gpt-4o-mini", Output: openai.JSONSchema, EmbeddingModel: "text-embedding-3-small"},
			key:  "sk",
		},
		"ASSAY_LLM wins over the key": {
			env:  map[string]string{"ASSAY_LLM": "offline", "OPENAI_API_KEY": "sk"},
			want: backend.Spec{Backend: "offline"},
		},
		"the flag wins over ASSAY_LLM": {
			spec: "ollama:qwen2.5:7b",
			env:  map[string]string{"ASSAY_LLM": "offline"},
			want: backend.Spec{Backend: "ollama", Model: "qwen2.5:7b", BaseURL: "http://127.0.0.1:11434/v1", Output: openai.JSONObject},
		},
		"openai at a custom URL has no default embedding model": {
			spec: "openai:my-model",
			env:  map[string]string{"OPENAI_BASE_URL": "http://gateway:4000/v1/"},
			want: backend.Spec{Backend: "openai", Model: "my-model", BaseURL: "http://gateway:4000/v1", Output: openai.JSONSchema},
		},
		"openai with output mode and embedding model from env": {
			spec: "openai:gpt-4.1",
			env: map[string]string{"OPENAI_API_KEY": "sk", "ASSAY_OPENAI_OUTPUT": "prompt",
				"ASSAY_EMBEDDING_MODEL": "text-embedding-3-large", "OPENAI_BASE_URL": "https://api.openai.com/v1"},
			want: backend.Spec{Backend: "openai", Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1",
				Output: openai.Prompt, EmbeddingModel: "text-embedding-3-large"},
			key: "sk",
		},
		"ollama at OLLAMA_HOST, never sent the OpenAI key": {
			spec: "ollama:llama3.1",
			env:  map[string]string{"OLLAMA_HOST": "gpu-box:11500", "OPENAI_API_KEY": "sk", "ASSAY_EMBEDDING_MODEL": "nomic-embed-text"},
			want: backend.Spec{Backend: "ollama", Model: "llama3.1", BaseURL: "http://gpu-box:11500/v1", Output: openai.JSONObject, EmbeddingModel: "nomic-embed-text"},
		},
		"ollama may be switched to structured outputs": {
			spec: "ollama:llama3.1",
			env:  map[string]string{"ASSAY_OPENAI_OUTPUT": "json_schema"},
			want: backend.Spec{Backend: "ollama", Model: "llama3.1", BaseURL: "http://127.0.0.1:11434/v1", Output: openai.JSONSchema},
		},
		"vllm on its default port with its own key": {
			spec: "vllm:Qwen/Qwen3-8B",
			env:  map[string]string{"VLLM_API_KEY": "token", "OPENAI_API_KEY": "sk"},
			want: backend.Spec{Backend: "vllm", Model: "Qwen/Qwen3-8B", BaseURL: "http://127.0.0.1:8000/v1", Output: openai.JSONSchema},
			key:  "token",
		},
		"vllm at OPENAI_BASE_URL": {
			spec: "vllm:m",
			env:  map[string]string{"OPENAI_BASE_URL": "http://10.0.0.5:9000/v1"},
			want: backend.Spec{Backend: "vllm", Model: "m", BaseURL: "http://10.0.0.5:9000/v1", Output: openai.JSONSchema},
		},
		"llama.cpp server": {
			spec: "llamacpp:gemma-3",
			env:  map[string]string{"LLAMA_API_KEY": "k"},
			want: backend.Spec{Backend: "llamacpp", Model: "gemma-3", BaseURL: "http://127.0.0.1:8080/v1", Output: openai.JSONSchema},
			key:  "k",
		},
		"LM Studio": {
			spec: "lmstudio:qwen3-4b",
			want: backend.Spec{Backend: "lmstudio", Model: "qwen3-4b", BaseURL: "http://127.0.0.1:1234/v1", Output: openai.JSONSchema},
		},
		"langchain keeps PROVIDER:MODEL": {
			spec: "langchain:anthropic:claude-3-5-haiku-latest",
			want: backend.Spec{Backend: "langchain", Model: "anthropic:claude-3-5-haiku-latest"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := backend.Resolve(tc.spec, envOf(tc.env))
			require.NoError(t, err)
			require.Equal(t, tc.key, got.APIKey())
			require.Equal(t, tc.want.Name(), got.Name())
			require.Equal(t, fields(tc.want), fields(got))
		})
	}
}

// fields are a Spec's exported fields (the key is asserted separately).
func fields(s backend.Spec) [5]string {
	return [5]string{s.Backend, s.Model, s.BaseURL, string(s.Output), s.EmbeddingModel}
}

func TestResolveErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec string
		env  map[string]string
		want string
	}{
		"an unknown backend lists the valid ones": {
			spec: "bedrock:claude",
			want: `unknown backend "bedrock" in "bedrock:claude": want one of offline, openai, ollama, vllm, llamacpp, lmstudio, langchain`,
		},
		"an unknown backend from ASSAY_LLM": {
			env: map[string]string{"ASSAY_LLM": "gpt-4o"}, want: `unknown backend "gpt-4o"`,
		},
		"a backend without a model":  {spec: "vllm", want: `spec "vllm": want offline or BACKEND:MODEL`},
		"an empty model":             {spec: "openai:", want: `spec "openai:": want offline`},
		"offline takes no model":     {spec: "offline:x", want: `spec "offline:x"`},
		"openai needs its key":       {spec: "openai:gpt-4o", want: "OPENAI_API_KEY is not set"},
		"a bad output mode is named": {spec: "vllm:m", env: map[string]string{"ASSAY_OPENAI_OUTPUT": "xml"}, want: `ASSAY_OPENAI_OUTPUT="xml"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := backend.Resolve(tc.spec, envOf(tc.env))
			require.ErrorContains(t, err, tc.want)
			_, err = backend.Open(tc.spec, envOf(tc.env))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec string
		env  map[string]string
		name string
		// baseURL is checked on local servers, which report it.
		baseURL string
	}{
		"offline":   {spec: "", name: "offline"},
		"openai":    {spec: "openai:gpt-4o-mini", env: map[string]string{"OPENAI_API_KEY": "sk"}, name: "openai:gpt-4o-mini"},
		"ollama":    {spec: "ollama:qwen2.5:7b", name: "ollama:qwen2.5:7b", baseURL: "http://127.0.0.1:11434/v1"},
		"vllm":      {spec: "vllm:m", name: "vllm:m", baseURL: "http://127.0.0.1:8000/v1"},
		"llamacpp":  {spec: "llamacpp:m", name: "llamacpp:m", baseURL: "http://127.0.0.1:8080/v1"},
		"lmstudio":  {spec: "lmstudio:m", name: "lmstudio:m", baseURL: "http://127.0.0.1:1234/v1"},
		"langchain": {spec: "langchain:ollama:llama3.1", name: "langchain:ollama:llama3.1"},
		"langchain anthropic": {
			spec: "langchain:anthropic:claude-3-5-haiku-latest", env: map[string]string{"ANTHROPIC_API_KEY": "k"},
			name: "langchain:anthropic:claude-3-5-haiku-latest",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := backend.Open(tc.spec, envOf(tc.env))
			require.NoError(t, err)
			require.Equal(t, tc.name, b.Name())
			if tc.baseURL != "" {
				u, ok := b.(interface{ BaseURL() string })
				require.True(t, ok)
				require.Equal(t, tc.baseURL, u.BaseURL())
			}
		})
	}
	b, err := backend.Open("", envOf(nil))
	require.NoError(t, err)
	require.IsType(t, &offline.Backend{}, b)
}

func TestOpenLangchainNeedsItsKey(t *testing.T) {
	t.Parallel()
	_, err := backend.Open("langchain:anthropic:claude-3-5-haiku-latest", envOf(nil))
	require.ErrorContains(t, err, "ANTHROPIC_API_KEY is not set")
}

// A local server is reached at its URL with its own key, and the reply is
// priced and named after the local backend.
func TestOpenLocalServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/v1/chat/completions", r.URL.Path)
		require.Equal(t, "Bearer vllm-token", r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"1","object":"chat.completion","model":"m","choices":[{"index":0,
			"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`)
	}))
	t.Cleanup(srv.Close)
	b, err := backend.Open("vllm:m", envOf(map[string]string{
		"OPENAI_BASE_URL": srv.URL + "/v1", "VLLM_API_KEY": "vllm-token", "OPENAI_API_KEY": "sk-must-not-leak",
	}))
	require.NoError(t, err)
	c := llm.New(llm.Config{Backend: b})
	resp, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}})
	require.NoError(t, err)
	require.Equal(t, "ok", resp.Content)
	require.Equal(t, "vllm:m", c.Name())
	require.Zero(t, resp.Usage.CostUSD)
}

func TestModelName(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"openai:gpt-4o-mini":                   "gpt-4o-mini",
		"ollama:qwen2.5:7b":                    "qwen2.5:7b",
		"vllm:meta/llama-3:8b":                 "meta/llama-3:8b",
		"langchain:anthropic:claude-3-5-haiku": "claude-3-5-haiku",
		"langchain:ollama:llama3":              "llama3",
		"offline":                              "offline",
		"gpt-4o":                               "gpt-4o",
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, want, backend.ModelName(name))
		})
	}
}
