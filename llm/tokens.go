package llm

import (
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Tokenizer counts tokens with an OpenAI BPE encoding (tables embedded in
// the binary; no network). Counts are exact for OpenAI models and an
// estimate for every other model. The zero value counts four bytes a token.
// It is safe for concurrent use. The encoding's tables are loaded on first
// use (about 40 ms), so a run whose server reports usage never pays for it.
type Tokenizer struct {
	codec func() tokenizer.Codec
}

var _ TokenCounter = Tokenizer{}

// fallbackEncoding is used for models tiktoken does not know: local and
// non-OpenAI models, whose real tokenizers are not embedded.
const fallbackEncoding = tokenizer.O200kBase

// TokenizerFor returns the tokenizer of model ("gpt-4o-mini", or with its
// backend prefix, "openai:gpt-4o-mini"). Unknown models, and models whose
// encoding is not embedded, get o200k_base. A fine-tune
// ("ft:gpt-4o-mini:org::id") gets its base model's encoding.
func TokenizerFor(model string) Tokenizer {
	return Tokenizer{codec: sync.OnceValue(func() tokenizer.Codec { return codecFor(model) })}
}

func codecFor(model string) tokenizer.Codec {
	candidates := []string{model, modelOf(model)}
	if rest, ok := strings.CutPrefix(model, "ft:"); ok {
		// tiktoken's own "ft:gpt-4" prefix would give gpt-4o fine-tunes
		// cl100k_base; the base model's name is more precise.
		base, _, _ := strings.Cut(rest, ":")
		candidates = []string{base, model}
	}
	for _, m := range candidates {
		if c, err := tokenizer.ForModel(tokenizer.Model(m)); err == nil {
			return c
		}
	}
	c, err := tokenizer.Get(fallbackEncoding)
	if err != nil {
		// The encoding is compiled in; this cannot happen short of a
		// broken build, and the byte rule still gives an estimate.
		return nil
	}
	return c
}

func (t Tokenizer) load() tokenizer.Codec {
	if t.codec == nil {
		return nil
	}
	return t.codec()
}

// Encoding names the BPE encoding ("o200k_base"), or "bytes/4" for the zero
// value.
func (t Tokenizer) Encoding() string {
	c := t.load()
	if c == nil {
		return "bytes/4"
	}
	return c.GetName()
}

// Count returns the number of tokens in text. It never fails: if the
// encoder errors, it falls back to four bytes a token.
func (t Tokenizer) Count(text string) int {
	if c := t.load(); c != nil {
		if n, err := c.Count(text); err == nil {
			return n
		}
	}
	return byteCounter{}.Count(text)
}
