package langchain

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"

	"github.com/assaylabs/assay/llm"
)

// providers are the langchaingo providers Open knows.
//
// Left out on purpose: mistral (its SDK, gage-technologies/mistral-go
// v1.1.0, takes no context, sleeps between its own retries, cannot be given
// an HTTP client and reports errors only as strings; Mistral's API is
// OpenAI-compatible, so use the openai backend with OPENAI_BASE_URL), and
// googleai (it links 270 packages from 39 modules, gRPC and protobuf among
// them, and takes 90 s to build cold, against 11 packages and 4 modules for
// anthropic or ollama).
var providers = []string{"anthropic", "ollama"}

// anthropicURL is Anthropic's API, as langchaingo's client defaults to.
const anthropicURL = "https://api.anthropic.com/v1"

// RequestTimeout bounds each HTTP request of a Backend built by Open; the
// caller's context bounds the whole call.
const RequestTimeout = 2 * time.Minute

// Open builds a Backend from "PROVIDER:MODEL", reading settings from the
// process environment; see OpenEnv.
func Open(spec string) (*Backend, error) { return OpenEnv(spec, os.Getenv) }

// OpenEnv builds a Backend from "PROVIDER:MODEL", reading settings through
// env:
//
//   - "anthropic:MODEL": ANTHROPIC_API_KEY (required), ANTHROPIC_BASE_URL
//     (optional; "https://api.anthropic.com" as for Anthropic's SDKs, "/v1"
//     is added). No embeddings.
//   - "ollama:MODEL": OLLAMA_HOST, read as Ollama reads it (default
//     http://127.0.0.1:11434);
//     embeddings with ASSAY_EMBEDDING_MODEL when set (e.g.
//     "nomic-embed-text"), else none.
//
// The Backend is named "langchain:PROVIDER:MODEL" and its HTTP client uses
// Transport, so failed calls carry their HTTP status. A server other than
// the provider's default is part of its CacheScope.
func OpenEnv(spec string, env func(string) string) (*Backend, error) {
	provider, model, ok := strings.Cut(spec, ":")
	if !ok || provider == "" || model == "" {
		return nil, fmt.Errorf("langchain: spec %q: want PROVIDER:MODEL with PROVIDER one of %s", spec, strings.Join(providers, ", "))
	}
	name := "langchain:" + spec
	hc := &http.Client{Transport: Transport(nil), Timeout: RequestTimeout}
	switch provider {
	case "anthropic":
		key := env("ANTHROPIC_API_KEY")
		if key == "" {
			return nil, fmt.Errorf("%s: %w", name, errors.New("ANTHROPIC_API_KEY is not set"))
		}
		opts := []anthropic.Option{anthropic.WithToken(key), anthropic.WithModel(model), anthropic.WithHTTPClient(hc)}
		var server []Option
		if u := strings.TrimRight(env("ANTHROPIC_BASE_URL"), "/"); u != "" {
			if !strings.HasSuffix(u, "/v1") {
				u += "/v1" // langchaingo wants the versioned base
			}
			opts = append(opts, anthropic.WithBaseURL(u))
			if u != anthropicURL {
				server = append(server, WithServer(u))
			}
		}
		m, err := anthropic.New(opts...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return New(name, m, server...), nil
	case "ollama":
		host := llm.OllamaURL(env("OLLAMA_HOST"))
		m, err := ollama.New(ollama.WithModel(model), ollama.WithServerURL(host), ollama.WithHTTPClient(hc))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var opts []Option
		if host != llm.OllamaURL("") {
			opts = append(opts, WithServer(host))
		}
		if em := env("ASSAY_EMBEDDING_MODEL"); em != "" {
			e, err := ollama.New(ollama.WithModel(em), ollama.WithServerURL(host), ollama.WithHTTPClient(hc))
			if err != nil {
				return nil, fmt.Errorf("%s: embedding model %s: %w", name, em, err)
			}
			emb, err := embeddings.NewEmbedder(e)
			if err != nil {
				return nil, fmt.Errorf("%s: embedding model %s: %w", name, em, err)
			}
			opts = append(opts, WithEmbedder(emb))
		}
		return New(name, m, opts...), nil
	default:
		return nil, fmt.Errorf("langchain: unknown provider %q in %q: want one of %s", provider, spec, strings.Join(providers, ", "))
	}
}
