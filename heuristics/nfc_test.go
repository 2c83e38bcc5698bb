package heuristics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/heuristics"
)

// TestLexicalMatchersReadNFC: every offline lexical matcher reads text in
// Unicode NFC, so a letter typed as one character ("é", U+00E9) and as a
// letter and a combining accent ("e" U+0301) is the same letter, on
// either side.
func TestLexicalMatchersReadNFC(t *testing.T) {
	t.Parallel()
	const (
		preClaim = "The caf\u00e9 M\u00e9rou in Malm\u00f6 serves cr\u00eapes every morning."
		decClaim = "The cafe\u0301 Me\u0301rou in Malmo\u0308 serves cre\u0302pes every morning."
		preQuery = "Which caf\u00e9 in Malm\u00f6 serves cr\u00eapes?"
		decQuery = "Which cafe\u0301 in Malmo\u0308 serves cre\u0302pes?"
		preDist  = "The Cal\u00e9 trail is 12 kilom\u00e8tres long."
		decDist  = "The Cale\u0301 trail is 12 kilome\u0300tres long."
	)
	tests := map[string]struct {
		answer, context string
	}{
		"precomposed answer, decomposed context": {preClaim, decClaim},
		"decomposed answer, precomposed context": {decClaim, preClaim},
		"a unit with an accent, decomposed":      {preDist, decDist},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, claims := heuristics.FaithfulnessScore(tc.answer, []string{tc.context})
			assert.InDelta(t, 1.0, v, 0, "%+v", claims)
			// Token overlap: every answer word is a context word.
			assert.InDelta(t, 1.0, heuristics.TokenOverlap(tc.answer, tc.context), 0)
		})
	}
	// Relevance: the same passage, typed either way, gets the same grade
	// for the same query, typed either way.
	passage := "The caf\u00e9 M\u00e9rou in Malm\u00f6 serves cr\u00eapes and coffee to visitors every morning."
	decPassage := "The cafe\u0301 Me\u0301rou in Malmo\u0308 serves cre\u0302pes and coffee to visitors every morning."
	want := heuristics.SourceRelevance(preQuery, passage)
	assert.Greater(t, want, 0.9, "the words are all there")
	assert.InDelta(t, want, heuristics.SourceRelevance(decQuery, passage), 1e-12)
	assert.InDelta(t, want, heuristics.SourceRelevance(preQuery, decPassage), 1e-12)
}
