package llm

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Price is the cost of a model in US dollars per million tokens.
type Price struct {
	In  float64 `yaml:"in" json:"in"`
	Out float64 `yaml:"out" json:"out"`
}

// Prices maps a model name (without the backend prefix) to its price.
// Unknown models cost zero: local servers are free, and a guess would be
// worse than a visible zero.
type Prices map[string]Price

// DefaultPrices are list prices per million tokens, as published by the
// providers; users override them with a YAML file (LoadPrices).
func DefaultPrices() Prices {
	return Prices{
		"gpt-4o":                   {In: 2.50, Out: 10.00},
		"gpt-4o-mini":              {In: 0.15, Out: 0.60},
		"gpt-4.1":                  {In: 2.00, Out: 8.00},
		"gpt-4.1-mini":             {In: 0.40, Out: 1.60},
		"gpt-4.1-nano":             {In: 0.10, Out: 0.40},
		"text-embedding-3-small":   {In: 0.02},
		"text-embedding-3-large":   {In: 0.13},
		"claude-3-5-haiku-latest":  {In: 0.80, Out: 4.00},
		"claude-3-5-sonnet-latest": {In: 3.00, Out: 15.00},
	}
}

// Cost is the price of a call to name ("backend:model" or "model"); an
// unknown model costs zero (see Known).
func (p Prices) Cost(name string, in, out int) float64 {
	pr, _ := p.lookup(name)
	return (float64(in)*pr.In + float64(out)*pr.Out) / 1e6
}

// Known reports whether name ("backend:model" or "model") has a price, so
// that its zero cost is a price and not a gap in the table.
func (p Prices) Known(name string) bool {
	_, ok := p.lookup(name)
	return ok
}

func (p Prices) lookup(name string) (Price, bool) {
	if pr, ok := p[name]; ok {
		return pr, true
	}
	pr, ok := p[modelOf(name)]
	return pr, ok
}

// modelOf strips the backend prefix: "openai:gpt-4o" -> "gpt-4o",
// "ollama:qwen2.5:7b" -> "qwen2.5:7b", "langchain:anthropic:claude" ->
// "claude".
func modelOf(name string) string {
	backend, model, ok := strings.Cut(name, ":")
	if !ok {
		return name
	}
	if backend == "langchain" {
		_, model, _ = strings.Cut(model, ":")
	}
	return model
}

// LoadPrices reads a YAML map of model to {in, out} and lays it over the
// defaults.
func LoadPrices(path string) (Prices, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var over Prices
	if err := yaml.Unmarshal(data, &over); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := DefaultPrices()
	for k, v := range over {
		if v.In < 0 || v.Out < 0 {
			return nil, fmt.Errorf("%s: %s: prices must not be negative", path, k)
		}
		p[k] = v
	}
	return p, nil
}
