package heuristics

// TokenOverlap is the plain lexical baseline every offline method must
// beat: the fraction of the answer's word tokens, lower-cased but neither
// stemmed nor filtered for stop words, that occur anywhere in the context.
// Tokens are counted with repetition ("the the cat" has three). An answer
// with no word tokens scores 0: there is nothing to show it is grounded.
// The result is always in [0, 1].
func TokenOverlap(answer, context string) float64 {
	return tokenShare(lexicon().LowerWords(answer), toBoolSet(lexicon().LowerWords(context)))
}

// TokenCount is the number of word tokens TokenOverlap reads in text; of
// a text with none, TokenOverlap's 0 is a share of nothing.
func TokenCount(text string) int { return len(lexicon().LowerWords(text)) }

// tokenShare is the share of toks, counted with repetition, found in set;
// 0 when there are no toks.
func tokenShare(toks []string, set map[string]bool) float64 {
	if len(toks) == 0 {
		return 0
	}
	hit := 0
	for _, w := range toks {
		if set[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(toks))
}
