package heuristics

import (
	"strings"

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

func toSet(fields string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(fields) {
		m[f] = true
	}
	return m
}

// stem returns the Snowball (Porter2) stem of a lower-cased word.
func stem(w string) string {
	return english.Stem(strings.ToLower(w), false)
}

// contentTerms returns the key terms of a phrase in order: words of at
// least three letters (or any word with a digit) that are not stop words.
func contentTerms(phrase string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(phrase) {
		lw := strings.ToLower(w)
		if stopWords[lw] || (len([]rune(lw)) < 3 && !strings.ContainsAny(lw, "0123456789")) {
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
