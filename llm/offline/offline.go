// Package offline is Assay's deterministic, network-free default backend.
//
// It has no chat model: Chat returns llm.ErrNoChat, and judges that need
// generated text report themselves unavailable, while offline scoring uses
// the lexical methods in package heuristics instead. It does have an
// embedding model, a hashed bag of words, so that embedding-based scorers
// (relevance, redundancy, retrieval similarity) still run, with lexical
// rather than semantic similarity, when no model server is configured.
//
// The same input always gives the same vector, on every machine and in
// every run, so offline scores are reproducible and need no cache.
package offline

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// DefaultDims is the embedding size when Config.Dims is zero.
const DefaultDims = 512

// Config builds a Backend. The zero value is ready to use.
type Config struct {
	// Dims is the vector length [DefaultDims].
	Dims int
	// Counter counts the input tokens reported in Usage
	// [llm.TokenizerFor(""), i.e. o200k_base].
	Counter llm.TokenCounter
}

// Backend is the offline llm.Backend. It holds no mutable state and is safe
// for concurrent use.
type Backend struct {
	dims    int
	counter llm.TokenCounter
}

var (
	_ llm.Backend  = (*Backend)(nil)
	_ llm.Offliner = (*Backend)(nil)
)

// New returns an offline Backend.
func New(cfg Config) *Backend {
	if cfg.Dims <= 0 {
		cfg.Dims = DefaultDims
	}
	if cfg.Counter == nil {
		cfg.Counter = llm.TokenizerFor("")
	}
	return &Backend{dims: cfg.Dims, counter: cfg.Counter}
}

// Name is "offline".
func (b *Backend) Name() string { return "offline" }

// Offline implements llm.Offliner: this backend has no chat model.
func (b *Backend) Offline() bool { return true }

// Chat always fails with llm.ErrNoChat: the offline backend cannot generate
// text. Callers check with errors.Is(err, llm.ErrNoChat) and fall back to a
// lexical method.
func (b *Backend) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, fmt.Errorf("offline: %w", llm.ErrNoChat)
}

// Embed returns one L2-normalised vector per text, by feature hashing:
//
//   - the text is lower-cased and split into words at every rune that is
//     not a letter or a digit, and common English function words ("the",
//     "of", "is"; see stopWords) are dropped;
//   - each word adds 1 to one coordinate, and each of the character
//     3-grams of "^word$" adds 1/n (n = the word's 3-gram count), so that
//     word identity and word shape ("judge", "judges") weigh the same;
//   - a feature's coordinate is its 64-bit FNV-1a hash modulo Dims, and the
//     hash's top bit gives its sign, so that collisions cancel out on
//     average instead of adding up.
//
// A text with no words gives the zero vector. Usage.TokensIn is the token
// count of all texts under the Config's Counter; Usage.Calls is 1.
func (b *Backend) Embed(ctx context.Context, texts []string) ([][]float32, eval.Usage, error) {
	vecs := make([][]float32, len(texts))
	tokens := 0
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, eval.Usage{}, err
		}
		vecs[i] = b.embed(t)
		tokens += b.counter.Count(t)
	}
	return vecs, eval.Usage{Calls: 1, TokensIn: tokens}, nil
}

func (b *Backend) embed(text string) []float32 {
	acc := make([]float64, b.dims)
	for _, w := range words(text) {
		b.add(acc, "w:"+w, 1)
		grams := trigrams(w)
		for _, g := range grams {
			b.add(acc, "g:"+g, 1/math.Sqrt(float64(len(grams))))
		}
	}
	var norm float64
	for _, v := range acc {
		norm += v * v
	}
	out := make([]float32, b.dims)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, v := range acc {
		out[i] = float32(v / norm)
	}
	return out
}

// add hashes feature into acc with weight w. The "w:" and "g:" prefixes
// keep a one-letter word and a 3-gram with the same letters apart.
func (b *Backend) add(acc []float64, feature string, w float64) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(feature))
	sum := h.Sum64()
	if sum>>63 == 1 {
		w = -w
	}
	acc[sum%uint64(b.dims)] += w
}

// stopWords are English function words: they occur in almost every text,
// so hashing them would make unrelated texts look alike.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but nor of to in on at by for with from into as than
	is are was were be been being am do does did have has had it its this that these those there here
	i me my we us our you your he him his she her they them their not no so such very
	can could should would will shall may might must`) {
		m[w] = true
	}
	return m
}()

// words lower-cases text, splits it at every rune that is not a letter or a
// digit, and drops stop words.
func words(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, w := range fields {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// trigrams returns the character 3-grams of "^word$" (runes, not bytes).
func trigrams(word string) []string {
	r := []rune("^" + word + "$")
	grams := make([]string, 0, len(r)-2)
	for i := 0; i+3 <= len(r); i++ {
		grams = append(grams, string(r[i:i+3]))
	}
	return grams
}
