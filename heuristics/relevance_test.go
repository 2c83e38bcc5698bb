package heuristics

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPassageRelevanceGrade grades PassageRelevance, which ranks sentences
// and answers, on the seed-004 rubric.
func TestPassageRelevanceGrade(t *testing.T) {
	t.Parallel()
	const query = "how long does it take to boil an egg"
	tests := map[string]struct {
		query, passage string
		grade          int
	}{
		"direct answer with specifics": {query,
			"To boil an egg, bring the water to a boil and cook the egg for 9 to 12 minutes.", 5},
		"shares keywords but off the question": {query,
			"Egg prices rose this winter. Shops say boiled sweets sell well.", 2},
		"off topic": {query,
			"The stock market fell sharply on Tuesday after the central bank raised rates.", 1},
		"definition query with a definition": {"what is a lithophile",
			"A lithophile is an element that combines readily with oxygen and stays near the surface.", 5},
		// Chinese and Japanese words are matched by their characters and
		// pairs of characters. A question asking for no measure earns the
		// measure part in full, so a passage on another subject is graded
		// 2, not 1.
		"Chinese passage on the question": {"热泵在寒冷气候中的效率如何？",
			"热泵在寒冷气候中的效率。典型的寒冷气候热泵在8摄氏度时性能系数约为3.5，在零下15摄氏度时约为2。", 5},
		"Chinese passage on another subject": {"热泵在寒冷气候中的效率如何？",
			"绿茶的冲泡方法。冲泡绿茶时，水温最好控制在八十度左右，以免破坏茶叶的香气。", 2},
		"Japanese passage on the question": {"寒冷地でのヒートポンプの効率は？",
			"寒冷地向けのヒートポンプは、外気温が零下15度でも暖房を続けることができる。効率は2前後を保つ。", 5},
		"empty passage": {query, "", 1},
		"empty query":   {"", "Anything at all.", 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.grade, GradeOfRelevance(PassageRelevance(tc.query, tc.passage)))
		})
	}
}

func TestPassageRelevance(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		query, passage string
		want           float64
	}{
		"all signals present": {"when was the eiffel tower built",
			"The Eiffel Tower was built from 1887 to 1889.", 1},
		// "When" asks for no measure, so the measure part is in full.
		"no shared word": {"when was the eiffel tower built",
			"Bananas are yellow.", 0.3},
		"a measure question without its measure": {"how tall is the eiffel tower",
			"The Eiffel Tower was built from 1887 to 1889.", 0.7},
		// Every part is full except phrases: "running shoes" is never an
		// adjacent pair, so 1 - 0.15.
		"stems match but the phrase does not": {"running shoes",
			"Shoes for runners and for running.", 0.85},
		// Coverage weighs each query word by its rarity: the rare word
		// "epineurium" found counts for more than the common "server".
		"rare query word found": {"server epineurium",
			"The epineurium wraps the bundle.", 0.6007},
		"common query word found": {"server epineurium",
			"A server sends the data.", 0.5493},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := PassageRelevance(tc.query, tc.passage)
			assert.InDelta(t, tc.want, got, 1e-4)
		})
	}
}
