package heuristics

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSourceRelevance(t *testing.T) {
	t.Parallel()
	const (
		county = "what county is ackley iowa in"
		answer = "Ackley is a city in Franklin and Hardin Counties in the U.S. state of Iowa."
		egg    = "how long does it take to boil an egg"
	)
	tests := map[string]struct {
		query, passage string
		want           float64
		grade          int
	}{
		// Every content word (county, ackley, iowa) is found and the query
		// asks for no particular kind of answer; 4 of the query's 6 words
		// are found as they are ("what", "is" and "in" among them, "county"
		// only as "counties"), so 1 - 0.1*(1 - 4/6), less 0.005 for each
		// of the 2 words of the heading.
		"heading then a direct answer": {county, "Ackley, Iowa. " + answer, 0.9567, 5},
		// The same answer behind the furniture of an answers site: 0.3
		// less. After a question of its own (an FAQ), or starting in lower
		// case, it is not marked down for that, only for the length of
		// its first sentence (3 words, then 15).
		"forum furniture":       {county, "Answer by Sam. Confidence votes 12. " + answer, 0.6517, 3},
		"a question of its own": {county, "Where is Ackley? " + answer, 0.9517, 5},
		"starts mid-sentence":   {county, "ackley is a city in Franklin and Hardin Counties in the U.S. state of Iowa.", 0.8917, 4},
		// A question mark inside a URL asks nothing.
		"a URL with a query string": {county, "Ackley, Iowa. " + answer + " See https://example.org/?q=ackley.", 0.9567, 5},
		// The longer the first sentence, the more is taken off: 0.005 a
		// word, 6 words here, 11 and 23 below, and no more than for 40
		// words (0.2) for the 57-word sentence.
		"short first sentence": {county,
			"Ackley is a city in Iowa. It lies in Franklin and Hardin Counties.", 0.9367, 5},
		"longer first sentence": {county,
			"Ackley is a small farming city in the north of Iowa. It lies in Franklin and Hardin Counties.", 0.9117, 5},
		"long first sentence": {county,
			"Ackley is a small city that lies in the north of the state and is shared between Franklin and Hardin Counties in Iowa.", 0.8517, 4},
		"very long first sentence": {county,
			"Ackley is a small city that lies in the north of the state and is shared between Franklin and Hardin Counties in Iowa, " +
				"with a main street of old brick shops, a water tower, a grain elevator by the railway, two parks, a library, " +
				"a school and a few churches, and farms of corn and soybeans all around it.", 0.7667, 3},
		// "county" is found, "ackley" and "iowa" are not.
		"another place": {county, "Hockley County is in northwestern Texas, south of the Panhandle.", 0.3667, 2},
		"all parts present": {"when was the eiffel tower built",
			"The Eiffel Tower was built from 1887 to 1889.", 0.9383, 5},
		"no shared word and no answer": {"when was the eiffel tower built", "Bananas are yellow.", 0, 1},
		// The rare word "epineurium" found counts for more than the common
		// "server", as in PassageRelevance.
		"rare query word found":   {"server epineurium", "The epineurium wraps the bundle.", 0.5764, 2},
		"common query word found": {"server epineurium", "A server sends the data.", 0.4736, 2},
		// A first sentence of an unspaced script is counted in words as
		// textseg counts them.
		"Chinese passage on the question": {"热泵在寒冷气候中的效率如何？",
			"热泵在寒冷气候中的效率。典型的寒冷气候热泵在8摄氏度时性能系数约为3.5，在零下15摄氏度时约为2。", 0.954, 5},
		"Chinese passage with the page's furniture": {"热泵在寒冷气候中的效率如何？",
			"热泵在寒冷气候中的效率。Skip to content", 0.654, 3},
		"Chinese passage on another subject": {"热泵在寒冷气候中的效率如何？",
			"绿茶的冲泡方法。冲泡绿茶时，水温最好控制在八十度左右，以免破坏茶叶的香气。", 0.1453, 1},
		// The direct answer loses 0.095 for its 19-word first sentence.
		// The passage on egg prices holds both content words and 8 of the
		// query's 9 words, and no duration: it would score 0.8789, and is
		// held to grade 3 for lacking the kind of answer asked for. A
		// lexical score still calls it partially relevant; the rubric
		// says 2.
		"direct answer in a long sentence": {egg,
			"To boil an egg, bring the water to a boil and cook the egg for 9 to 12 minutes.", 0.8494, 4},
		"shares the words, not the answer": {egg,
			"Egg prices. Shops say it does not take long to boil an egg, so boiled eggs sell well.", 0.79, 3},
		"empty passage": {county, "", 0, 1},
		"empty query":   {"", "Anything at all.", 0, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := SourceRelevance(tc.query, tc.passage)
			assert.InDelta(t, tc.want, got, 1e-4)
			assert.Equal(t, tc.grade, GradeOfRelevance(got))
		})
	}
}

func TestPageChrome(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Heat pumps move heat from outside air into the house. ", 4)
	tests := map[string]struct {
		passage string
		want    bool
	}{
		"plain answer":        {"Fine is a town in St. Lawrence County, New York.", false},
		"answers-site byline": {"Answered by The Community. FBS stands for Football Bowl Subdivision.", true},
		"vote count":          {"Confidence votes 314. E pluribus unum is Latin.", true},
		"sponsored links":     {"Sponsored Topics. The city of Lawton is the county seat.", true},
		"navigation link":     {"A sprain is an injury to a ligament. Skip to content", true},
		"a word of a phrase":  {"The answer by the committee came in May.", true},
		"an FAQ's question":   {"How long does it take? Boil the egg for nine minutes.", false},
		// In a long passage only the edges, where a page's header and
		// footer are, count.
		"a footer at the end of a long passage":      {long + " All rights reserved.", true},
		"a header at the start of a long passage":    {"Skip to content. " + long, true},
		"a link phrase in the middle of a long body": {long + " Click here for the plans. " + long, false},
		"empty": {"", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, hasPageChrome(tc.passage))
		})
	}
}
