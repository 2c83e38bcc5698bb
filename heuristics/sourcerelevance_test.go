package heuristics

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSourceRelevance checks each rule of SourceRelevance on its own, with
// the value it gives. Rarity weights for the Arno question: "arno" and
// the measure weigh 1, "city" 0.891, "pass" 0.610; 3.501 in all.
func TestSourceRelevance(t *testing.T) {
	t.Parallel()
	const arno = "How long is the Arno and which city does it pass?"
	tests := map[string]struct {
		query, passage string
		want           float64
		grade          int
	}{
		// Coverage: the Arno (1) and the length (1) of 3.501.
		"a length answers how long": {arno,
			"The Arno is a river 200 kilometres long that flows through Florence before reaching the sea.", 0.5713, 3},
		// A duration answers "how long" too.
		"a duration answers how long": {arno,
			"Walking the Arno from its source takes 12 days, past the city of Florence.", 0.8258, 4},
		"every term and the measure": {arno,
			"The Arno is 241 km long. It passes the city of Florence.", 1, 5},
		// Names are not enough: the Arno alone, 1 of 3.501, stays 0.2856;
		// "Arno" and "city" in one run are held just under grade 3.
		"the name alone": {arno, "Arno Pizzeria serves pizza every evening.", 0.2856, 2},
		"the name and a neighbouring term": {arno,
			"Arno City Pizzeria serves pizza every evening.", 0.49, 2},
		// The best window of three sentences counts: terms spread over a
		// long page, sentences apart, are not found together.
		"terms far apart": {arno,
			"The Arno rises in the Apennines. Trout live in it. Its water is cold. Herons nest on its banks. Mills stood along it. " +
				"Florence is a city of museums. Many tourists pass through it in summer.", 0.4287, 2},
		"terms within three sentences": {arno,
			"The Arno rises in the Apennines. It runs 241 km. It passes the city of Florence.", 1, 5},
		// A measure of the wrong kind does not answer.
		"a weight does not answer how long": {arno,
			"The Arno carries 2 tonnes of silt a day as it passes Florence.", 0.4597, 2},
		"a price answers how much": {"How much does a ticket to the Louvre cost?",
			"A ticket to the Louvre costs $25.", 1, 5},
		"a height answers how tall": {"How tall is the Eiffel Tower?", "The Eiffel Tower is 330 m high.", 1, 5},
		"a duration does not answer how tall": {"How tall is the Eiffel Tower?",
			"Building the Eiffel Tower took 2 years.", 0.49, 2},
		"no shared word and no answer": {"when was the eiffel tower built", "Bananas are yellow.", 0, 1},
		"empty passage":                {arno, "", 0, 1},
		"empty query":                  {"", "Anything at all.", 0, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := SourceRelevance(tc.query, tc.passage)
			why := Explain(tc.query, tc.passage).String()
			assert.InDelta(t, tc.want, got, 1e-4, why)
			assert.Equal(t, tc.grade, GradeOfRelevance(got), why)
		})
	}
}

func TestExplainRelevance(t *testing.T) {
	t.Parallel()
	const arno = "How long is the Arno and which city does it pass?"
	// "Arno City" is one phrase of the query, worth 0.54 of it, held to
	// 0.49 by the names-are-not-enough rule, which the reason says.
	got := Explain(arno, "Arno City Pizzeria serves pizza every evening.")
	assert.Equal(t, []string{"arno", "city"}, got.Found)
	assert.Equal(t, []string{"pass"}, got.Missing)
	assert.Equal(t, "missing", got.Measure)
	assert.True(t, got.NameOnly)
	assert.Equal(t, "found arno, city; missing pass; measure missing; only one phrase of the query, so below grade 3", got.String())
	// The Arno alone scores 0.29, below grade 3 without the rule.
	got = Explain(arno, "Arno Pizzeria serves pizza every evening.")
	assert.False(t, got.NameOnly)
	assert.Equal(t, "found arno; missing city, pass; measure missing", got.String())
}

func TestMeasureAsked(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		query, text string
		asked, held bool
	}{
		"how long, a length":          {"How long is the Arno?", "It is 241 km long.", true, true},
		"how long, a duration":        {"How long does it take to boil an egg?", "Nine to 12 minutes.", true, true},
		"how long, a count":           {"How long is the Arno?", "It has 3 bridges.", true, false},
		"how tall, feet":              {"how tall is the statue", "It stands 151 feet tall.", true, true},
		"how heavy, kilograms":        {"How heavy is an elephant?", "About 6,000 kg.", true, true},
		"how heavy, a length":         {"How heavy is an elephant?", "About 3 m tall.", true, false},
		"how far, miles":              {"How far is the Moon?", "238,900 miles away.", true, true},
		"how much, euros":             {"How much does it cost?", "It costs 22 euros.", true, true},
		"how much, a currency symbol": {"How much is a ticket?", "Tickets are £12.", true, true},
		"how many, a number":          {"How many moons has Mars?", "Mars has two moons.", true, true},
		"no measure asked":            {"What did Monet paint?", "Painted in 1873.", false, false},
		"who, a person named":         {"Who painted the Mona Lisa?", "It was painted by Leonardo da Vinci.", true, true},
		"who, nobody named":           {"Who painted the Mona Lisa?", "Painted in 1503.", true, false},
		"Chinese length":              {"长江有多长？", "全长6300公里。", true, true},
		"Japanese height":             {"富士山の高さは？", "標高3776メートル。", true, true},
		"Thai length":                 {"แม่น้ำโขงยาวเท่าไร", "ยาว 4,900 กิโลเมตร", true, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			kinds, _ := measureAsked(tc.query)
			assert.Equal(t, tc.asked, kinds != 0)
			query := map[string]bool{}
			for _, w := range lexicon().LowerWords(tc.query) {
				query[w] = true
			}
			assert.Equal(t, tc.held, holdsMeasure(tc.text, kinds, query))
		})
	}
}

func ExampleExplain() {
	q := "How long is the Arno and which city does it pass?"
	r := Explain(q, "The Arno is a river 200 kilometres long that flows through Florence before reaching the sea.")
	fmt.Printf("grade %d: %s\n", GradeOfRelevance(r.Value), r)
	r = Explain(q, "Arno City Pizzeria serves pizza every evening.")
	fmt.Printf("grade %d: %s\n", GradeOfRelevance(r.Value), r)
	// Output:
	// grade 3: found arno; missing city, pass; measure found
	// grade 2: found arno, city; missing pass; measure missing; only one phrase of the query, so below grade 3
}
