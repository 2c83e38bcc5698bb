package web

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"
)

// SQLite's unicode61 tokenizer splits text at whatever is not a letter,
// digit or mark. That suits scripts with spaces between words; a Chinese,
// Japanese or Thai sentence, though, is one long token that no query word
// matches. So such words are split here, in Go, into their UAX #29 word
// segments (one ideograph or kana, a katakana word, a Thai letter with its
// marks), and each run of segments gives every segment and every pair of
// neighbours, unigrams and bigrams, as Lucene's CJKBigramFilter (with
// unigrams) and Elasticsearch's cjk analyzer do: a query word of two or more
// characters matches the pairs it shares with the documents. The index keeps
// these terms in columns of their own, and queries go through the same
// function, so both sides split alike.

// unspaced reports whether r is of a script written without spaces between
// words: Chinese, Japanese, Thai, Lao, Khmer, Myanmar. (Korean is spaced.)
func unspaced(r rune) bool {
	// The range test spares Latin, Cyrillic, Arabic, ... the table look-ups.
	return r >= '\u0e00' && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// notWordRune reports whether r separates words, as in the unicode61
// tokenizer: it is not a letter, digit or mark.
func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Mn, r)
}

// searchTerms yields the search terms of text in order, repeats included: its
// words, lower-cased, as the unicode61 tokenizer splits them, except that a
// word holding characters of an unspaced script is split into its UAX #29
// segments, each run of such segments giving each segment and each pair of
// neighbours ("热泵性" gives 热, 热泵, 泵, 泵性, 性), and each other segment
// itself ("ai" of "AI模型"). The terms of split words are grams: SQLite does
// not see them unless it is given them.
func searchTerms(text string) iter.Seq2[string, bool] {
	return func(yield func(term string, gram bool) bool) {
		for _, w := range strings.FieldsFunc(strings.ToLower(text), notWordRune) {
			if !strings.ContainsFunc(w, unspaced) {
				if !yield(w, false) {
					return
				}
				continue
			}
			prev := "" // the previous segment, when of an unspaced script
			for seg := words.FromString(w); seg.Next(); {
				s := seg.Value()
				if r, _ := utf8.DecodeRuneInString(s); !unspaced(r) {
					prev = ""
					if !yield(s, true) {
						return
					}
					continue
				}
				if prev != "" && !yield(prev+s, true) {
					return
				}
				if !yield(s, true) {
					return
				}
				prev = s
			}
		}
	}
}

// grams returns the grams of text (see searchTerms), separated by spaces, for the
// index to hold beside the text; "" when there are none.
func grams(text string) string {
	if !strings.ContainsFunc(text, unspaced) {
		return ""
	}
	var b strings.Builder
	for t, gram := range searchTerms(text) {
		if !gram {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}
