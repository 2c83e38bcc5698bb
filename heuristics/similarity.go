package heuristics

import (
	"math"
	"unicode"

	"github.com/assaylabs/assay/heuristics/internal/lex"
)

// LexicalSimilarity is the offline stand-in for the semantic similarity of
// two texts (an answer and its reference): the cosine, in [0, 1], of their
// bags of content words, each word counted by its Snowball stem, stop
// words left out, Thai cut into its dictionary words, and another script
// written without spaces (Chinese, Japanese) counted by its grams of two
// characters (single characters, shared by most texts of a script, say
// nothing of content). It reads words, not meaning: a paraphrase in other words
// scores low, and a negation ("is not") barely moves it. Two texts with no
// content word in common score 0. When one text has no content word ("Yes.",
// "No", "北"), the bags hold every word of both, stop words and single
// characters too, so that a short answer the same as its reference scores
// 1, as the cosine of one text with itself is, and "Yes" against "No" 0; a
// text with no word at all scores 0.
// Both texts are read in Unicode NFC, so a letter typed as one character
// or as a letter and a combining accent is one word.
func LexicalSimilarity(a, b string) float64 {
	va, vb := stemCounts(a, false), stemCounts(b, false)
	if len(va) == 0 || len(vb) == 0 {
		va, vb = stemCounts(a, true), stemCounts(b, true)
	}
	if len(va) == 0 || len(vb) == 0 {
		return 0
	}
	var dot, na, nb float64
	for s, x := range va {
		na += x * x
		dot += x * vb[s]
	}
	for _, y := range vb {
		nb += y * y
	}
	return min(max(dot/math.Sqrt(na*nb), 0), 1)
}

// stemCounts counts the stems of text's content words (not stop words,
// not a single character of an unspaced script), or with all of its
// every word.
func stemCounts(text string, all bool) map[string]float64 {
	out := map[string]float64{}
	for _, w := range lexicon().LowerWords(text) {
		if !all && (lexicon().IsStop(w) || (lex.IsGram(w) && letters(w) < 2)) {
			continue
		}
		out[lexicon().Stem(w)]++
	}
	return out
}

// letters counts the runes of w that are not combining marks: the
// characters of a gram, a Thai vowel or tone mark counted with its
// consonant.
func letters(w string) int {
	n := 0
	for _, r := range w {
		if !unicode.IsMark(r) {
			n++
		}
	}
	return n
}
