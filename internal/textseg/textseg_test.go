package textseg

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGrams(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		word  string
		grams []string
	}{
		"Chinese gives characters and pairs": {
			word:  "热泵性能",
			grams: []string{"热", "热泵", "泵", "泵性", "性", "性能", "能"},
		},
		"a katakana word is one segment": {
			word:  "ヒートポンプは寒冷地",
			grams: []string{"ヒートポンプ", "ヒートポンプは", "は", "は寒", "寒", "寒冷", "冷", "冷地", "地"},
		},
		"other segments stand alone and end a run, case kept": {
			word:  "AI模型2024年",
			grams: []string{"AI", "模", "模型", "型", "2024", "年"},
		},
		"punctuation is a segment and ends a run": {
			word:  "约为3.5%左右",
			grams: []string{"约", "约为", "为", "3.5", "%", "左", "左右", "右"},
		},
		"Thai letters keep their marks": {
			word:  "น้ำ",
			grams: []string{"น้", "น้ำ", "ำ"},
		},
		"a spaced word is one segment": {
			word:  "heat",
			grams: []string{"heat"},
		},
		"empty": {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.grams, slices.Collect(Grams(tc.word)))
		})
	}

	t.Run("a loop may break at any gram", func(t *testing.T) {
		t.Parallel()
		const word = "AI模型泵pump"
		all := slices.Collect(Grams(word))
		for n := range len(all) {
			var got []string
			for g := range Grams(word) { // yielding after a break would panic
				if got = append(got, g); len(got) == n+1 {
					break
				}
			}
			require.Equal(t, all[:n+1], got)
		}
	})
}

func TestWordCount(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		want int
	}{
		"spaced words are fields":                {"Heat pumps — even at -15 °C.", 7},
		"two Chinese characters make a word":     {"热泵，性能。", 2},
		"an odd character rounds up":             {"热泵在寒冷气候中。", 4},
		"Latin words and numbers inside count 1": {"AI模型约为3.5。", 4},
		"a katakana word is one segment":         {"ヒートポンプは寒冷地", 3},
		"mixed fields":                           {"COP 约为3.5 at 8 °C", 6},
		"empty":                                  {" ", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, WordCount(tc.text))
		})
	}
}

func TestHasUnspaced(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"heat pumps":          false,
		"“curly” — 5 °C, ø €": false,
		"한국어":                 false,
		"COP 约为3.5":           true,
		"see ヒートポンプ":          true,
		"ok น้ำ":              true,
		"bad \xe0\xff 热":      true,
		"bad \xe0\xff":        false,
		"":                    false,
	}
	for s, want := range tests {
		t.Run(s, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, HasUnspaced(s))
			require.Equal(t, strings.ContainsFunc(s, Unspaced), HasUnspaced(s))
		})
	}
}

func TestUnspaced(t *testing.T) {
	t.Parallel()
	tests := map[rune]bool{
		'热': true, 'は': true, 'ヒ': true, 'น': true, 'ລ': true, 'ក': true, 'က': true,
		'a': false, 'é': false, 'т': false, '한': false, '3': false, '。': false, ' ': false,
	}
	for r, want := range tests {
		t.Run(string(r), func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, Unspaced(r))
		})
	}
}

func TestClipWords(t *testing.T) {
	t.Parallel()
	han := strings.Repeat("热泵在寒冷气候中的效率", 100) // 1100 characters, 550 words
	tests := map[string]struct {
		in   string
		n    int
		want string
	}{
		"short text is kept whole":          {"a b  c", 3, "a b  c"},
		"spaced text keeps its first words": {"one two\nthree four", 3, "one two three"},
		"unspaced text is cut inside":       {"热泵，性能很好。", 2, "热泵，性能"},
		"mixed":                             {"COP 热泵性能 good", 2, "COP 热泵"},
		"long Chinese":                      {han, 10, "热泵在寒冷气候中的效率热泵在寒冷气候中的"},
		"zero":                              {"a b", 0, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := ClipWords(tc.in, tc.n)
			assert.Equal(t, tc.want, got)
			assert.LessOrEqual(t, WordCount(got), tc.n)
		})
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"an acute accent typed apart":        {"cafe\u0301", "caf\u00e9"},
		"two marks, in NFC order":            {"No\u0323\u0302i", "N\u1ed9i"},
		"already NFC":                        {"caf\u00e9", "caf\u00e9"},
		"ASCII":                              {"plain text 42", "plain text 42"},
		"Thai is unchanged":                  {"ไม่ใช่", "ไม่ใช่"},
		"sara ae typed as two sara e":        {"\u0e40\u0e40นวโน้ม", "แนวโน้ม"},
		"sara am typed apart":                {"ท\u0e4d\u0e32ให้", "ทำให้"},
		"sara am apart, a tone mark between": {"น\u0e4d\u0e49\u0e32มัน", "น้ำมัน"},
		"sara am apart, the tone mark first": {"น\u0e49\u0e4d\u0e32มัน", "น้ำมัน"},
		"a tone mark before its upper vowel": {"ซ\u0e48\u0e36ง", "ซึ่ง"},
		"a tone mark before its lower vowel": {"ป\u0e49\u0e39", "ปู้"},
		"Thai in its order is kept":          {"ที่แล้วน้ำซึ่งปู้", "ที่แล้วน้ำซึ่งปู้"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Normalize(tc.in))
		})
	}
}

func TestASCIIDigits(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"๒๕๖๘":            "2568",
		"[๓]":             "[3]",
		"พ.ศ. ๒๕๖๘ and 7": "พ.ศ. 2568 and 7",
		"no digits":       "no digits",
		"":                "",
	} {
		if got := ASCIIDigits(in); got != want {
			t.Errorf("ASCIIDigits(%q) = %q, want %q", in, got, want)
		}
	}
}
