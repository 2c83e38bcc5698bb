package llmtest

import (
	"fmt"
	"math"
	"strings"

	"github.com/assaylabs/assay/llm"
)

// Tokenize splits content into the tokens of a scripted reply's
// log-probabilities: the text before the first occurrence of at, at
// itself, and the rest, each token certain (log-probability 0) but at,
// whose alternatives are top (token to probability, in the order given
// by tokens) and whose own log-probability is that top gives it. It
// panics when content lacks at: a test's own mistake.
func Tokenize(content, at string, tokens []string, top map[string]float64) []llm.TokenLogprob {
	i := strings.Index(content, at)
	if i < 0 {
		panic(fmt.Sprintf("llmtest: %q is not in %q", at, content))
	}
	t := llm.TokenLogprob{Token: at, Logprob: math.Log(top[at])}
	for _, tok := range tokens {
		t.Top = append(t.Top, llm.TopLogprob{Token: tok, Logprob: math.Log(top[tok])})
	}
	var out []llm.TokenLogprob
	if i > 0 {
		out = append(out, llm.TokenLogprob{Token: content[:i]})
	}
	out = append(out, t)
	if rest := content[i+len(at):]; rest != "" {
		out = append(out, llm.TokenLogprob{Token: rest})
	}
	return out
}

// wireLogprobs is a reply's logprobs object as OpenAI sends it, each
// token's alternatives cut to top.
func wireLogprobs(ts []llm.TokenLogprob, top int) *logprobsWire {
	out := &logprobsWire{Content: make([]tokenWire, len(ts))}
	for i, t := range ts {
		w := tokenWire{Token: t.Token, Logprob: t.Logprob, Bytes: []int{}, Top: []topWire{}}
		for _, b := range []byte(t.Token) {
			w.Bytes = append(w.Bytes, int(b))
		}
		for j, a := range t.Top {
			if j == top {
				break
			}
			w.Top = append(w.Top, topWire{Token: a.Token, Logprob: a.Logprob})
		}
		out.Content[i] = w
	}
	return out
}

// The logprobs object of a choice, as OpenAI documents it.
type (
	logprobsWire struct {
		Content []tokenWire `json:"content"`
	}
	tokenWire struct {
		Token   string    `json:"token"`
		Logprob float64   `json:"logprob"`
		Bytes   []int     `json:"bytes"`
		Top     []topWire `json:"top_logprobs"`
	}
	topWire struct {
		Token   string  `json:"token"`
		Logprob float64 `json:"logprob"`
	}
)
