// Package backend turns the --llm spec ("backend:model") into an
// llm.Backend, reading keys and URLs from the environment.
//
// Specs and what they read:
//
//	""                        $ASSAY_LLM, else openai:gpt-4o-mini when $OPENAI_API_KEY is set, else offline
//	offline                   llm/offline: no chat, hashed bag-of-words embeddings, no network
//	openai:MODEL              OPENAI_API_KEY (required for api.openai.com), OPENAI_BASE_URL
//	ollama:MODEL              $OLLAMA_HOST (http://127.0.0.1:11434) + /v1, JSON mode (json_object)
//	vllm:MODEL                OPENAI_BASE_URL or http://127.0.0.1:8000/v1, VLLM_API_KEY
//	llamacpp:MODEL            OPENAI_BASE_URL or http://127.0.0.1:8080/v1, LLAMA_API_KEY
//	lmstudio:MODEL            OPENAI_BASE_URL or http://127.0.0.1:1234/v1
//	langchain:PROVIDER:MODEL  llm/langchain (anthropic, ollama)
//
// For every OpenAI-compatible backend, ASSAY_OPENAI_OUTPUT (json_schema,
// json_object or prompt) overrides how schemas are sent, and
// ASSAY_EMBEDDING_MODEL names the embedding model; only api.openai.com has
// a default one, text-embedding-3-small.
package backend

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/langchain"
	"github.com/assaylabs/assay/llm/offline"
	"github.com/assaylabs/assay/llm/openai"
)

// backends are the spec prefixes Open knows.
var backends = []string{"offline", "openai", "ollama", "vllm", "llamacpp", "lmstudio", "langchain"}

// Defaults used by Resolve.
const (
	DefaultOpenAIModel    = "gpt-4o-mini"
	DefaultEmbeddingModel = "text-embedding-3-small"
	openAIHost            = "api.openai.com"
)

// local describes an OpenAI-compatible server other than OpenAI.
type local struct {
	url, keyVar string
	output      openai.OutputMode
}

var locals = map[string]local{
	// Ollama's /v1 has JSON mode everywhere; structured outputs only in
	// recent versions.
	"ollama":   {url: "", output: openai.JSONObject},
	"vllm":     {url: "http://127.0.0.1:8000/v1", keyVar: "VLLM_API_KEY", output: openai.JSONSchema},
	"llamacpp": {url: "http://127.0.0.1:8080/v1", keyVar: "LLAMA_API_KEY", output: openai.JSONSchema},
	// LM Studio rejects json_object; it wants json_schema.
	"lmstudio": {url: "http://127.0.0.1:1234/v1", output: openai.JSONSchema},
}

// Spec is a resolved --llm spec: which backend, and how it will be
// configured. The API key is kept out of it, so it is safe to print.
type Spec struct {
	// Backend is one of backends.
	Backend string
	// Model is the model; for langchain, "PROVIDER:MODEL". Empty for offline.
	Model string
	// BaseURL, Output and EmbeddingModel configure OpenAI-compatible
	// backends; empty otherwise.
	BaseURL        string
	Output         openai.OutputMode
	EmbeddingModel string

	apiKey string
}

// Name is the llm.Backend name Open gives it: "offline" or "backend:model".
func (s Spec) Name() string {
	if s.Backend == "offline" {
		return "offline"
	}
	return s.Backend + ":" + s.Model
}

// Resolve reads spec and env into a Spec without building anything.
func Resolve(spec string, env func(string) string) (Spec, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		spec = strings.TrimSpace(env("ASSAY_LLM"))
	}
	if spec == "" {
		if env("OPENAI_API_KEY") != "" {
			spec = "openai:" + DefaultOpenAIModel
		} else {
			spec = "offline"
		}
	}
	if spec == "offline" {
		return Spec{Backend: "offline"}, nil
	}
	name, model, _ := strings.Cut(spec, ":")
	known := false
	for _, b := range backends {
		known = known || b == name
	}
	if !known {
		return Spec{}, fmt.Errorf("unknown backend %q in %q: want one of %s", name, spec, strings.Join(backends, ", "))
	}
	if model == "" || name == "offline" {
		return Spec{}, fmt.Errorf("spec %q: want offline or BACKEND:MODEL with BACKEND one of %s", spec, strings.Join(backends[1:], ", "))
	}
	s := Spec{Backend: name, Model: model}
	switch name {
	case "langchain":
		return s, nil
	case "openai":
		s.BaseURL = strings.TrimRight(env("OPENAI_BASE_URL"), "/")
		s.apiKey = env("OPENAI_API_KEY")
		s.Output = openai.JSONSchema
		if isOpenAI(s.BaseURL) {
			if s.apiKey == "" {
				return Spec{}, fmt.Errorf("%s: OPENAI_API_KEY is not set (or set OPENAI_BASE_URL for a local server)", spec)
			}
			s.EmbeddingModel = DefaultEmbeddingModel
		}
	case "ollama":
		s.BaseURL = llm.OllamaURL(env("OLLAMA_HOST")) + "/v1"
		s.Output = locals[name].output
	default:
		l := locals[name]
		s.BaseURL, s.Output = l.url, l.output
		if u := strings.TrimRight(env("OPENAI_BASE_URL"), "/"); u != "" {
			s.BaseURL = u
		}
		if l.keyVar != "" {
			s.apiKey = env(l.keyVar)
		}
	}
	if o := env("ASSAY_OPENAI_OUTPUT"); o != "" {
		switch m := openai.OutputMode(o); m {
		case openai.JSONSchema, openai.JSONObject, openai.Prompt:
			s.Output = m
		default:
			return Spec{}, fmt.Errorf("ASSAY_OPENAI_OUTPUT=%q: want %s, %s or %s", o, openai.JSONSchema, openai.JSONObject, openai.Prompt)
		}
	}
	if m := env("ASSAY_EMBEDDING_MODEL"); m != "" {
		s.EmbeddingModel = m
	}
	return s, nil
}

// Open resolves spec (see Resolve) and builds its backend. env is usually
// os.Getenv.
func Open(spec string, env func(string) string) (llm.Backend, error) {
	s, err := Resolve(spec, env)
	if err != nil {
		return nil, err
	}
	switch s.Backend {
	case "offline":
		return offline.New(offline.Config{}), nil
	case "langchain":
		return langchain.OpenEnv(s.Model, env)
	}
	b, err := openai.New(openai.Config{
		BaseURL:        s.BaseURL,
		APIKey:         s.apiKey,
		Model:          s.Model,
		EmbeddingModel: s.EmbeddingModel,
		Output:         s.Output,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	if s.Backend == "openai" {
		return b, nil
	}
	return &compatible{Backend: b, spec: s}, nil
}

// compatible is the openai backend named after the server it talks to, so
// that cache keys, prices and reports say "ollama:qwen2.5:7b".
type compatible struct {
	*openai.Backend
	spec Spec
}

func (c *compatible) Name() string { return c.spec.Name() }

// EmbeddingName prices embeddings (local models are free unless priced).
func (c *compatible) EmbeddingName() string { return c.spec.Backend + ":" + c.spec.EmbeddingModel }

// BaseURL is the server's API root.
func (c *compatible) BaseURL() string { return c.spec.BaseURL }

// isOpenAI reports whether base (empty meaning the default) is OpenAI's API.
func isOpenAI(base string) bool {
	if base == "" {
		return true
	}
	u, err := url.Parse(base)
	return err == nil && u.Hostname() == openAIHost
}

// ModelName is the model of a backend name ("backend:model", as Spec.Name
// gives), as price tables and tokenizers know it: "gpt-4o-mini" for
// "openai:gpt-4o-mini", "claude-3-5-haiku" for
// "langchain:anthropic:claude-3-5-haiku". A name without a backend is
// returned as it is.
func ModelName(name string) string {
	_, m, ok := strings.Cut(name, ":")
	if !ok {
		return name
	}
	if p, rest, ok := strings.Cut(m, ":"); ok && (p == "anthropic" || p == "ollama" || p == "mistral" || p == "googleai") {
		return rest
	}
	return m
}
