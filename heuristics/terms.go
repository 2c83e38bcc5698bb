package heuristics

import (
	"strings"
	"unicode"

	"github.com/assaylabs/assay/internal/textseg"

	"github.com/kljensen/snowball/english"
)

// stopWords are left out of a query's key terms: function words, question
// words and the generic words of research requests ("key", "overview").
var stopWords = toSet(`a an the and or but nor of to in on at by for with from into onto about as than then
is are was were be been being am do does did doing have has had having can could should would will shall may might must
what which who whom whose when where why how whether if that this these those there here it its they them their
i me my we us our you your he she his her not no yes so such very more most less least much many some any all each
both either neither other another same own just also only even still yet
key main major important overview explain explained describe described describes tell give list summary summarize
compare comparison versus vs difference differences between against
best better good great top use used using work works way ways thing things`)

// functionChars are Chinese characters that are nearly always function
// words (particles, pronouns, "how", "and", "in"), and hiragana, which in
// Japanese write particles and endings. A gram of an unspaced script holding
// one is, like a stop word, no key term: "效率如何" has the key terms 效, 效率
// and 率.
const functionChars = "的了着吗呢吧啊么呀哪怎什些在是和与及或如何之其这那们于嗎麼這與們於"

// isStop reports whether the lower-cased word w is a stop word, or a gram
// holding a function character.
func isStop(w string) bool {
	if stopWords[w] {
		return true
	}
	return isGram(w) && strings.ContainsFunc(w, func(r rune) bool {
		return strings.ContainsRune(functionChars, r) || unicode.Is(unicode.Hiragana, r)
	})
}

func toSet(fields string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(fields) {
		m[f] = true
	}
	return m
}

// stem returns the Snowball (Porter2) stem of a lower-cased word; a gram
// of an unspaced script (isGram) is its own stem.
func stem(w string) string {
	if isGram(w) {
		return w
	}
	return english.Stem(strings.ToLower(w), false)
}

// contentTerms returns the key terms of a phrase in order: words of at
// least three letters (or any word with a digit, or any gram of an
// unspaced script) that are not stop words (isStop).
func contentTerms(phrase string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(phrase) {
		lw := strings.ToLower(w)
		if isStop(lw) || (len([]rune(lw)) < 3 && !strings.ContainsAny(lw, "0123456789") && !isGram(lw)) {
			continue
		}
		if !seen[lw] {
			seen[lw] = true
			out = append(out, lw)
		}
	}
	return out
}

// stemSet returns the set of stems of every word of the texts.
func stemSet(texts ...string) map[string]bool {
	m := map[string]bool{}
	for _, t := range texts {
		for _, w := range words(t) {
			lw := strings.ToLower(w)
			if m[lw] {
				continue // already stemmed
			}
			m[lw] = true
			m[stem(lw)] = true
		}
	}
	return m
}

// wordCount is the length of s in words: len(words(s)) or, for text with
// characters of an unspaced script, whose words are grams,
// textseg.WordCount.
func wordCount(s string) int {
	if textseg.HasUnspaced(s) {
		return textseg.WordCount(s)
	}
	return len(words(s))
}
