package web

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSearchTerms(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text  string
		terms []string // every term, in order
		grams string   // what the index holds beside the text
	}{
		"spaced words are kept whole and lower-cased": {
			text:  "Heat-pump COPs, 2.5 at −15 °C; naïve тепловой 한국어",
			terms: []string{"heat", "pump", "cops", "2", "5", "at", "15", "c", "naïve", "тепловой", "한국어"},
		},
		"Chinese gives characters and pairs": {
			text:  "热泵性能",
			terms: []string{"热", "热泵", "泵", "泵性", "性", "性能", "能"},
			grams: "热 热泵 泵 泵性 性 性能 能",
		},
		"punctuation ends a run": {
			text:  "热泵，性能。",
			terms: []string{"热", "热泵", "泵", "性", "性能", "能"},
			grams: "热 热泵 泵 性 性能 能",
		},
		"a katakana word is one segment": {
			text:  "ヒートポンプは寒冷地",
			terms: []string{"ヒートポンプ", "ヒートポンプは", "は", "は寒", "寒", "寒冷", "冷", "冷地", "地"},
			grams: "ヒートポンプ ヒートポンプは は は寒 寒 寒冷 冷 冷地 地",
		},
		"Latin letters and digits inside a run are words of their own": {
			text:  "AI模型2024年 model",
			terms: []string{"ai", "模", "模型", "型", "2024", "年", "model"},
			grams: "ai 模 模型 型 2024 年",
		},
		"Thai letters keep their marks": {
			text:  "น้ำ",
			terms: []string{"น้", "น้ำ", "ำ"},
			grams: "น้ น้ำ ำ",
		},
		"no words": {text: " ,.!? ✓ "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for term := range searchTerms(tc.text) {
				got = append(got, term)
			}
			require.Equal(t, tc.terms, got)
			require.Equal(t, tc.grams, grams(tc.text))
		})
	}

	t.Run("a loop may break at any term", func(t *testing.T) {
		t.Parallel()
		text := "heat AI模型 泵 pump"
		var all []string
		for term := range searchTerms(text) {
			all = append(all, term)
		}
		for n := range len(all) {
			var got []string
			for term := range searchTerms(text) { // yielding after a break would panic
				if got = append(got, term); len(got) == n+1 {
					break
				}
			}
			require.Equal(t, all[:n+1], got)
		}
	})
}
