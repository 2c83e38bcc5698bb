package heuristics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/heuristics"
)

func TestLexicalSimilarity(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		a, b     string
		min, max float64
	}{
		"same text":                     {a: "Canberra is the capital of Australia.", b: "Canberra is the capital of Australia.", min: 1, max: 1},
		"same words, other inflections": {a: "The bridges were painted red.", b: "A red bridge is painted.", min: 1, max: 1},
		// content stems: {water, boil, 100, degre, sea, level} and {water, boil, 100, degre}: 4/sqrt(6*4)
		"one text says more": {a: "Water boils at 100 degrees at sea level.", b: "Water boils at 100 degrees.", min: 0.816, max: 0.817},
		"nothing in common":  {a: "Mount Everest is the tallest mountain.", b: "Photosynthesis needs sunlight.", min: 0, max: 0},
		// No content word in one text: every word of both counts,
		// {it: 2, is: 2, what: 1} and {it: 1, is: 1}: 4/sqrt(9*2).
		"only stop words":              {a: "It is what it is.", b: "It is.", min: 0.9428, max: 0.9429},
		"a stop word, the same":        {a: "Yes.", b: "yes", min: 1, max: 1},
		"a stop word, another":         {a: "Yes", b: "No", min: 0, max: 0},
		"a stop word and a sentence":   {a: "Yes", b: "Yes, Canberra is the capital.", min: 0.4472, max: 0.4473}, // 1/sqrt(5)
		"one Chinese character":        {a: "北", b: "北", min: 1, max: 1},
		"one Chinese character, other": {a: "北", b: "南", min: 0, max: 0},
		"one Thai stop word":           {a: "ใช่", b: "ใช่", min: 1, max: 1},
		"no word at all":               {a: "...", b: "...", min: 0, max: 0},
		"empty":                        {a: "", b: "Paris", min: 0, max: 0},
		"a number grouped or not":      {a: "About 1,000 people.", b: "1000 people", min: 1, max: 1},
		// One text typed with precomposed letters, the other with combining accents.
		"accents typed two ways":    {a: "Caf\u00e9 r\u00e9sum\u00e9 in Malm\u00f6", b: "Cafe\u0301 re\u0301sume\u0301 in Malmo\u0308", min: 1, max: 1},
		"Vietnamese typed two ways": {a: "H\u00e0 N\u1ed9i l\u00e0 th\u1ee7 \u0111\u00f4", b: "Ha\u0300 No\u0323\u0302i la\u0300 thu\u0309 \u0111o\u0302", min: 1, max: 1},
		"Thai, same sentence":       {a: "กรุงเทพเป็นเมืองหลวงของประเทศไทย", b: "กรุงเทพเป็นเมืองหลวงของประเทศไทย", min: 1, max: 1},
		"Thai, different content":   {a: "กรุงเทพเป็นเมืองหลวงของประเทศไทย", b: "แมวชอบนอนกลางวัน", min: 0, max: 0.05},
		// Thai is cut into dictionary words, not pairs of characters:
		// {กรุงเทพมหานคร, เมือง, หลวง} (เป็น a stop word) and {กรุงเทพมหานคร}, 1/sqrt(3);
		// pairs of characters would give 11/sqrt(22*11), 0.707.
		"Thai, by dictionary words": {a: "กรุงเทพมหานครเป็นเมืองหลวง", b: "กรุงเทพมหานคร", min: 0.57735, max: 0.57736},
		"Thai, partial overlap":     {a: "กรุงเทพเป็นเมืองหลวง", b: "กรุงเทพเป็นเมืองใหญ่", min: 0.5, max: 0.9},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := heuristics.LexicalSimilarity(tc.a, tc.b)
			assert.GreaterOrEqual(t, got, tc.min)
			assert.LessOrEqual(t, got, tc.max)
			assert.InDelta(t, got, heuristics.LexicalSimilarity(tc.b, tc.a), 1e-12, "symmetric")
		})
	}
}
