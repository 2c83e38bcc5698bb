package heuristics

import (
	"strings"

	"github.com/assaylabs/assay/heuristics/internal/lex"
)

// lexicon is the one lexical unit of the package's scorers: its tokenizer
// (Words), stop words (IsStop), key terms (Terms) and memoised stems (Stem)
// are those of heuristics/internal/lex. Context quality's query terms use
// seed 002's own stop list (lex.Seed002) instead. It is built on first
// use, not when a program that links the package starts.
func lexicon() *lex.Lexicon { return lex.Default() }

// toSet returns the set of the whitespace-separated fields: the package's
// small word lists other than stop words (interjections, negation cues).
func toSet(fields string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(fields) {
		m[f] = true
	}
	return m
}
