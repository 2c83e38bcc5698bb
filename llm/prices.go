package llm

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
)

// Price is the cost of a model in US dollars per million tokens.
type Price struct {
	In  float64 `yaml:"in" json:"in"`
	Out float64 `yaml:"out" json:"out"`
	// Batch is the share of the price a call answered through a batch
	// endpoint pays (0.5: half); 0 is DefaultBatchShare.
	Batch float64 `yaml:"batch,omitempty" json:"batch,omitempty"`
}

// DefaultBatchShare is the share of a model's price its batch calls pay
// when the price table says nothing: OpenAI's batch API charges half.
const DefaultBatchShare = 0.5

// Prices maps a model name (without the backend prefix) to its price. A
// model missing from the table has no price (Known is false): its calls
// count $0 in Cost, and the Client marks their cost unknown
// (Usage.CostUnknown) rather than pass that $0 off as a price. A local
// server is free only when the table says so ({in: 0, out: 0}).
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

// Cost is the price of a call to name ("backend:model" or "model"); a
// model with no price counts zero, which is not a price (see Known).
func (p Prices) Cost(name string, in, out int) float64 {
	pr, _ := p.lookup(name)
	return (float64(in)*pr.In + float64(out)*pr.Out) / 1e6
}

// BatchCost is the price of a call to name answered through a batch: its
// Cost times the model's batch share (Price.Batch, DefaultBatchShare when
// not set).
func (p Prices) BatchCost(name string, in, out int) float64 {
	pr, _ := p.lookup(name)
	share := pr.Batch
	if share == 0 {
		share = DefaultBatchShare
	}
	return p.Cost(name, in, out) * share
}

// Known reports whether name ("backend:model" or "model") has a price, so
// that its zero cost is a price and not a gap in the table.
func (p Prices) Known(name string) bool {
	_, ok := p.lookup(name)
	return ok
}

// Describe is name's price as a run records it: "in $0.15, out $0.6 per
// million tokens, batch share 0.5", or "no price" when the table has none.
func (p Prices) Describe(name string) string {
	pr, ok := p.lookup(name)
	if !ok {
		return "no price"
	}
	return fmt.Sprintf("in $%g, out $%g per million tokens, batch share %g", pr.In, pr.Out, cmp.Or(pr.Batch, DefaultBatchShare))
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

// MaxPrice is the highest price a price file may give, in US dollars per
// million tokens (a dollar a token): far above any model's, and low
// enough that no run's cost overflows to infinity.
const MaxPrice = 1e6

// MaxPricesSize is the largest price file LoadPrices reads, so that a
// wrong path (/dev/zero) is refused rather than read without end.
const MaxPricesSize = 10 << 20

// LoadPrices reads a YAML map of model to {in, out}, in US dollars per
// million tokens, and lays it over the defaults. The file is read strictly
// (ParsePrices): a typo must not price every call at $0.
func LoadPrices(path string) (Prices, error) {
	data, err := eval.ReadFile(path, "a price file", MaxPricesSize)
	if err != nil {
		return nil, err
	}
	over, err := ParsePrices(path, data)
	if err != nil {
		return nil, err
	}
	p := DefaultPrices()
	maps.Copy(p, over)
	return p, nil
}

// ParsePrices reads data, the YAML of a price file called name: a map of
// model name to {in: PRICE, out: PRICE}, and optionally batch: SHARE, the
// share of the price its batch calls pay (above 0, at most 1; 0.5 when not
// given). Every entry gives both prices, as numbers of at least zero, and
// nothing else; a model named twice, an
// unknown key (input for in), a missing price, or a price that is not a
// number, or is negative or over MaxPrice, is an *eval.InputError naming name, the line
// and the key. An empty file is an empty table.
func ParsePrices(name string, data []byte) (Prices, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &eval.InputError{File: name, Msg: "not YAML: " + err.Error(), Err: err}
	}
	p := Prices{}
	if len(doc.Content) == 0 {
		return p, nil
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, &eval.InputError{File: name, Line: root.Line, Col: root.Column, Msg: "want a map of model to {in: PRICE, out: PRICE}, in US dollars per million tokens"}
	}
	lines := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		model := k.Value
		if k.Kind != yaml.ScalarNode || model == "" {
			return nil, &eval.InputError{File: name, Line: k.Line, Col: k.Column, Msg: "want a model name as the key"}
		}
		if first, ok := lines[model]; ok {
			return nil, &eval.InputError{File: name, Line: k.Line, Col: k.Column, Field: model, Msg: fmt.Sprintf("given twice (first on line %d)", first)}
		}
		lines[model] = k.Line
		pr, err := parsePrice(name, k, v)
		if err != nil {
			return nil, err
		}
		p[model] = pr
	}
	return p, nil
}

// parsePrice reads the {in, out} of the model whose key is k.
func parsePrice(name string, k, v *yaml.Node) (Price, error) {
	model := k.Value
	if v.Kind != yaml.MappingNode {
		return Price{}, &eval.InputError{File: name, Line: v.Line, Col: v.Column, Field: model,
			Msg: "want {in: PRICE, out: PRICE}, in US dollars per million tokens"}
	}
	var pr Price
	seen := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		pk, pv := v.Content[i], deref(v.Content[i+1])
		field := model + "." + pk.Value
		var dst *float64
		switch pk.Value {
		case "in":
			dst = &pr.In
		case "out":
			dst = &pr.Out
		case "batch":
			dst = &pr.Batch
		default:
			return Price{}, &eval.InputError{File: name, Line: pk.Line, Col: pk.Column, Field: field,
				Msg: fmt.Sprintf("unknown key %q: a price has in and out (US dollars per million tokens), and may have batch (the share of it batch calls pay)", pk.Value)}
		}
		if first, ok := seen[pk.Value]; ok {
			return Price{}, &eval.InputError{File: name, Line: pk.Line, Col: pk.Column, Field: field, Msg: fmt.Sprintf("given twice (first on line %d)", first)}
		}
		seen[pk.Value] = pk.Line
		f, err := priceValue(pv)
		if err != nil {
			return Price{}, &eval.InputError{File: name, Line: pv.Line, Col: pv.Column, Field: field, Msg: err.Error()}
		}
		if pk.Value == "batch" && (f <= 0 || f > 1) {
			return Price{}, &eval.InputError{File: name, Line: pv.Line, Col: pv.Column, Field: field,
				Msg: fmt.Sprintf("want the share of the price a batch call pays, above 0 and at most 1 (0.5 is half), got %s", pv.Value)}
		}
		*dst = f
	}
	for _, key := range []string{"in", "out"} {
		if _, ok := seen[key]; !ok {
			return Price{}, &eval.InputError{File: name, Line: k.Line, Col: k.Column, Field: model + "." + key,
				Msg: "missing: give both in and out, in US dollars per million tokens (0 for none, as out for an embedding model)"}
		}
	}
	return pr, nil
}

// priceValue is the number in n: an int or a float, finite, at least zero.
func priceValue(n *yaml.Node) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		what := n.Value
		if n.Kind != yaml.ScalarNode {
			what = "a " + kindName(n.Kind)
		}
		return 0, fmt.Errorf("want a price in US dollars per million tokens, a number, got %q", what)
	}
	var f float64
	if err := n.Decode(&f); err != nil {
		return 0, fmt.Errorf("want a price in US dollars per million tokens: %w", err)
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0, fmt.Errorf("want a finite price, got %s", n.Value)
	case f < 0:
		return 0, fmt.Errorf("must not be negative, got %s", n.Value)
	case f > MaxPrice:
		return 0, fmt.Errorf("want at most %d US dollars per million tokens (a dollar a token), got %s", int(MaxPrice), n.Value)
	}
	return f, nil
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "map"
	case yaml.SequenceNode:
		return "list"
	default:
		return "value"
	}
}
