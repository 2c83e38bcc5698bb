package web

import (
	"iter"
	"strings"
	"unicode"

	"github.com/assaylabs/assay/internal/textseg"
)

// SQLite's unicode61 tokenizer splits text at whatever is not a letter,
// digit or mark. That suits scripts with spaces between words; a Chinese,
// Japanese or Thai sentence, though, is one long token that no query word
// matches. So such words are split here, in Go, into their grams
// (textseg.Grams: characters and pairs of neighbours). The index keeps these
// terms in columns of their own, and queries go through the same function,
// so both sides split alike.

// notWordRune reports whether r separates words, as in the unicode61
// tokenizer: it is not a letter, digit or mark.
func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Mn, r)
}

// searchTerms yields the search terms of text in order, repeats included: its
// words, lower-cased, as the unicode61 tokenizer splits them, except that a
// word holding characters of an unspaced script gives its grams instead
// (textseg.Grams: "热泵性" gives 热, 热泵, 泵, 泵性, 性, and "AI模型" gives ai,
// 模, 模型, 型). The terms of split words are grams: SQLite does not see them
// unless it is given them.
func searchTerms(text string) iter.Seq2[string, bool] {
	return func(yield func(term string, gram bool) bool) {
		for _, w := range strings.FieldsFunc(strings.ToLower(text), notWordRune) {
			if !textseg.HasUnspaced(w) {
				if !yield(w, false) {
					return
				}
				continue
			}
			for g := range textseg.Grams(w) {
				if !yield(g, true) {
					return
				}
			}
		}
	}
}

// grams returns the grams of text (see searchTerms), separated by spaces,
// for the index to hold beside the text; "" when there are none.
func grams(text string) string {
	if !textseg.HasUnspaced(text) {
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
