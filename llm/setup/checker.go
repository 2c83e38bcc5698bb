package setup

import (
	"fmt"
	"io"
	"slices"

	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/backend"
)

// checkerBackends are the backends a fact checker (--checker) may name:
// the OpenAI-compatible servers, whose replies carry log-probabilities.
var checkerBackends = []string{"openai", "ollama", "vllm", "llamacpp", "lmstudio"}

// Environment variables that point the checker at its own server,
// whatever the judging model's: the API root (ending in /v1) in place of
// $OPENAI_BASE_URL, and the key in place of $OPENAI_API_KEY,
// $VLLM_API_KEY and $LLAMA_API_KEY. Ollama's root is $OLLAMA_HOST's.
const (
	CheckerBaseURLVar = "ASSAY_CHECKER_BASE_URL"
	CheckerAPIKeyVar  = "ASSAY_CHECKER_API_KEY"
)

// OpenChecker builds the client of a fact-checking model (--checker
// spec, backend:model as for --llm, an OpenAI-compatible backend only)
// with cfg's concurrency, timeouts, prices and notices, reading its URL
// and key from env with CheckerBaseURLVar and CheckerAPIKeyVar first. It
// keeps no response cache. It spends from cfg.Budget, the judging
// model's, when set (--max-cost counts both, and the checker's model then
// needs a price: --prices), else from a budget of its own of
// cfg.MaxCostUSD.
func OpenChecker(cfg Config, spec string, env func(string) string) (*llm.Client, io.Closer, error) {
	s, err := backend.Resolve(spec, checkerEnv(env))
	if err != nil {
		return nil, nil, fmt.Errorf("--checker: %w (the checker reads $%s and $%s before them)", err, CheckerBaseURLVar, CheckerAPIKeyVar)
	}
	if !slices.Contains(checkerBackends, s.Backend) || spec == "" {
		return nil, nil, fmt.Errorf("--checker %q: want an OpenAI-compatible server as BACKEND:MODEL with BACKEND one of %v (openai:bespoke-minicheck with $%s set)",
			spec, checkerBackends, CheckerBaseURLVar)
	}
	cfg.Spec, cfg.NoCache = spec, true
	c, closer, err := Open(cfg, checkerEnv(env))
	if err != nil {
		return nil, nil, fmt.Errorf("--checker: %w", err)
	}
	return c, closer, nil
}

// checkerEnv is env with the checker's own URL and key, where set, in
// place of those the backends read.
func checkerEnv(env func(string) string) func(string) string {
	return func(k string) string {
		switch k {
		case "OPENAI_BASE_URL":
			if v := env(CheckerBaseURLVar); v != "" {
				return v
			}
		case "OPENAI_API_KEY", "VLLM_API_KEY", "LLAMA_API_KEY":
			if v := env(CheckerAPIKeyVar); v != "" {
				return v
			}
		}
		return env(k)
	}
}
