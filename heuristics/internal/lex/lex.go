// Package lex is the lexical machinery of the heuristics: one tokenizer,
// stop words from one embedded list, and memoised Snowball stems. Passage
// relevance, claim support, completeness, clarity and token overlap all
// read words through a Lexicon, so they split, filter and stem text the
// same way.
//
// # Words
//
// Words splits text at every character that is not a letter, a digit, an
// apostrophe, a dot, a hyphen or "%", and trims dots, hyphens and
// apostrophes from each end, so "4.2", "U.S.", "co-op" and "5%" are one
// word each (a UAX #29 word splitter would cut "co-op" and "5%" in two;
// the scorers' figures depend on keeping them whole). A run of a script
// written without spaces (Chinese, Japanese, Thai) gives instead its grams
// (internal/textseg.Grams): its UAX #29 segments, a character with its
// marks, and each pair of neighbours, unstemmed. Case is kept; LowerWords
// lower-cases. Text is read in Unicode NFC (textseg.Normalize), so a
// letter typed with a combining accent is the word it looks like.
//
// # Stop words and stems
//
// A Lexicon's stop list is data, embedded: stopwords.txt for Default, and
// seed 002's shorter list, stopwords-seed002.txt, for Seed002, which
// context quality uses so that its figures are the seed's. Default also
// counts a gram holding a function character (的, 如何, Japanese hiragana)
// as a stop word. Stems are Snowball (Porter2) English stems, memoised for
// the whole process: the offline faithfulness judge stems the same context
// words again for every claim.
//
// # Word lists of claim support
//
// Four more embedded lists serve the offline faithfulness check: words of
// no content (nocontent.txt: light verbs, linking words, words about the
// source), antonym pairs (antonyms.txt), units of measure (units.txt) and
// words naming one measure (measures.txt). See NoContent, Antonyms, Unit
// and Measure.
package lex

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/heuristics/internal/thai"
	"github.com/assaylabs/assay/internal/textseg"
)

//go:embed stopwords.txt
var defaultStopText string

//go:embed stopwords-seed002.txt
var seed002StopText string

// Lexicon splits, filters and stems words. Build one with Default or
// Seed002; a Lexicon is read-only and safe for concurrent use.
type Lexicon struct {
	stop map[string]bool
	// functionGrams makes a gram holding a function character a stop word.
	functionGrams bool
}

// Default returns the heuristics' lexicon: the stop list of stopwords.txt,
// and grams holding a function character as stop words too.
func Default() *Lexicon { return defaultLexicon() }

// defaultLexicon is Default, built on its first call.
var defaultLexicon = sync.OnceValue(func() *Lexicon {
	return &Lexicon{stop: wordSet(defaultStopText), functionGrams: true}
})

// Seed002 returns seed 002's lexicon, for context quality's query terms:
// the stop list of stopwords-seed002.txt only, with no rule for grams.
func Seed002() *Lexicon { return seed002() }

// seed002 is Seed002, built on its first call.
var seed002 = sync.OnceValue(func() *Lexicon {
	return &Lexicon{stop: wordSet(seed002StopText)}
})

// wordSet reads a word list: whitespace-separated words, lines starting
// with # left out.
func wordSet(text string) map[string]bool {
	m := map[string]bool{}
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, f := range strings.Fields(line) {
			m[f] = true
		}
	}
	return m
}

// functionChars are Chinese characters that are nearly always function
// words (particles, pronouns, "how", "and", "in"), and hiragana, which in
// Japanese write particles and endings. A gram of an unspaced script holding
// one is, like a stop word, no key term: "效率如何" has the key terms 效, 效率
// and 率.
const functionChars = "的了着吗呢吧啊么呀哪怎什些在是和与及或如何之其这那们于嗎麼這與們於"

// IsStop reports whether the lower-cased word w is a stop word of the
// lexicon's list, or (Default) a gram holding a function character.
func (l *Lexicon) IsStop(w string) bool {
	if l.stop[w] {
		return true
	}
	return l.functionGrams && IsGram(w) && strings.ContainsFunc(w, func(r rune) bool {
		return strings.ContainsRune(functionChars, r) || unicode.Is(unicode.Hiragana, r)
	})
}

// IsGram reports whether the word w is a gram of an unspaced script (see
// Words). Grams are short, one or two characters, yet content words unless
// they hold a function character, and each is its own stem.
func IsGram(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return textseg.Unspaced(r)
}

// Words returns the words of s in order, case kept: runs of letters and
// digits (with inner apostrophes, dots, hyphens and "%", so "4.2", "U.S."
// and "co-op" are one word; a number's grouping commas and spaces taken
// out, and the space before its "%", so "1,000" is the word "1000" and
// "50 %" the word "50%": see joinDigitGroups), and for a run of a script
// written without spaces its grams (textseg.Grams): each character and each pair of
// neighbours, so that its words are found inside other runs of text.
func (l *Lexicon) Words(s string) []string {
	s = joinDigitGroups(textseg.Normalize(s))
	// strings.FieldsFunc sizes the slice exactly, in two allocations; the
	// fields are then trimmed in place, or replaced by their grams.
	f := strings.FieldsFunc(s, notWordRune)
	if textseg.HasUnspaced(s) {
		return withGrams(f)
	}
	out := f[:0]
	for _, w := range f {
		if strings.ContainsFunc(w, isLetterOrDigit) {
			out = append(out, strings.Trim(w, ".-'’"))
		}
	}
	return out
}

// withGrams is the words of fields, as Words returns them, when some hold
// characters of an unspaced script.
func withGrams(fields []string) []string {
	out := make([]string, 0, 2*len(fields))
	for _, w := range fields {
		if !textseg.HasUnspaced(w) {
			if strings.ContainsFunc(w, isLetterOrDigit) {
				out = append(out, strings.Trim(w, ".-'’"))
			}
			continue
		}
		unspacedWords(w, func(g string) bool {
			out = append(out, g)
			return true
		})
	}
	return out
}

// unspacedWords calls fn with each word of a field holding characters of
// an unspaced script, until fn returns false: Thai runs cut into
// dictionary words (package thai), other runs into their grams
// (textseg.Grams), each word trimmed of dots, hyphens and apostrophes and
// holding a letter or digit. It reports whether fn never returned false.
func unspacedWords(field string, fn func(string) bool) bool {
	emit := func(g string) bool {
		if !strings.ContainsFunc(g, isLetterOrDigit) { // not "%" or "-"
			return true
		}
		return fn(strings.Trim(g, ".-'’"))
	}
	if !thai.HasThai(field) {
		for g := range textseg.Grams(field) {
			if !emit(g) {
				return false
			}
		}
		return true
	}
	for _, piece := range thai.Segment(field) {
		if r, _ := utf8.DecodeRuneInString(piece); thai.IsThai(r) {
			if !emit(piece) {
				return false
			}
			continue
		}
		if !textseg.HasUnspaced(piece) {
			if !emit(piece) {
				return false
			}
			continue
		}
		for g := range textseg.Grams(piece) {
			if !emit(g) {
				return false
			}
		}
	}
	return true
}

// HasWords reports whether s has at least n words (Words), reading no
// further than the nth.
func (l *Lexicon) HasWords(s string, n int) bool {
	if n <= 0 {
		return true
	}
	eachWord(s, func(string) bool {
		n--
		return n > 0
	})
	return n == 0
}

// eachWord calls fn with each word of s, as Words returns them, until fn
// returns false, without building the slice: for callers that count words
// or fold them into a set. FuzzWords checks that the two agree.
func eachWord(s string, fn func(string) bool) {
	s = joinDigitGroups(textseg.Normalize(s))
	unspaced := textseg.HasUnspaced(s)
	emit := func(w string) bool {
		if unspaced && textseg.HasUnspaced(w) {
			return unspacedWords(w, fn)
		}
		return !strings.ContainsFunc(w, isLetterOrDigit) || fn(strings.Trim(w, ".-'’"))
	}
	start := -1
	for i, r := range s {
		switch {
		case !notWordRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			if !emit(s[start:i]) {
				return
			}
			start = -1
		}
	}
	if start >= 0 {
		emit(s[start:])
	}
}

// notWordRune reports whether r separates words: it is not a letter, a
// mark (Thai vowel and tone signs, combining accents), a digit, an
// apostrophe, a dot, a hyphen or "%".
func notWordRune(r rune) bool {
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc) ||
		r == '\'' || r == '’' || r == '.' || r == '-' || r == '%')
}

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// LowerWords returns the words of s (Words), lower-cased, in order.
func (l *Lexicon) LowerWords(s string) []string {
	ws := l.Words(s)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return ws
}

// WordCount is the length of s in words: len(Words(s)) or, for text with
// characters of an unspaced script, whose words are grams,
// textseg.WordCount (two characters to a word), Thai runs counting their
// dictionary words (package thai).
func (l *Lexicon) WordCount(s string) int {
	if !textseg.HasUnspaced(s) {
		return len(l.Words(s))
	}
	if !thai.HasThai(s) {
		return textseg.WordCount(s)
	}
	n := 0
	for f := range strings.FieldsSeq(s) {
		if !thai.HasThai(f) {
			n += textseg.WordCount(f)
			continue
		}
		for _, piece := range thai.Segment(f) {
			if r, _ := utf8.DecodeRuneInString(piece); thai.IsThai(r) {
				if strings.ContainsFunc(piece, isLetterOrDigit) {
					n++
				}
				continue
			}
			if strings.ContainsFunc(piece, isLetterOrDigit) { // not "(", "," or "-"
				n += textseg.WordCount(piece)
			}
		}
	}
	return n
}

// Stem returns the Snowball (Porter2) English stem of w, lower-cased; a
// gram of an unspaced script (IsGram) is its own stem. Stems are memoised.
func (l *Lexicon) Stem(w string) string { return stem(w) }

// Terms returns the key terms of a phrase, lower-cased, once each, in
// order: words of at least three letters (or any word with a digit, or any
// gram of an unspaced script) that are not stop words (IsStop).
func (l *Lexicon) Terms(phrase string) []string {
	var out []string
	seen := map[string]bool{}
	eachWord(phrase, func(w string) bool {
		lw := strings.ToLower(w)
		if l.IsStop(lw) || (utf8.RuneCountInString(lw) < 3 && !strings.ContainsAny(lw, "0123456789") && !IsGram(lw)) {
			return true
		}
		if !seen[lw] {
			seen[lw] = true
			out = append(out, lw)
		}
		return true
	})
	return out
}

// StemSet returns the set of every word of the texts, lower-cased, and of
// its stem.
func (l *Lexicon) StemSet(texts ...string) map[string]bool {
	m := map[string]bool{}
	for _, t := range texts {
		eachWord(t, func(w string) bool {
			if lw := strings.ToLower(w); !m[lw] { // else already stemmed
				m[lw] = true
				m[stem(lw)] = true
			}
			return true
		})
	}
	return m
}

// EndsWith reports whether the last character of s is one of marks.
func EndsWith(s, marks string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(marks, r)
}

// FirstWord returns the first run of letters and digits of s, after
// leading spaces, opening quotes, brackets and emphasis marks.
func FirstWord(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("\"'“‘(*_[", r) })
	end := strings.IndexFunc(s, func(r rune) bool { return !isLetterOrDigit(r) })
	if end < 0 {
		return s
	}
	return s[:end]
}
