// Package textseg splits the words of scripts written without spaces
// between them (Chinese, Japanese, Thai) into grams, for web's local index
// and heuristics' lexical matching alike, so that both split text the same
// way.
//
// A Chinese, Japanese or Thai sentence has no spaces, so a tokenizer that
// splits at spaces and punctuation makes it one long word that no query
// word matches. [Grams] splits such a word into its UAX #29 word segments
// (one ideograph or kana, a katakana word, a Thai letter with its marks),
// and each run of segments gives every segment and every pair of
// neighbours, unigrams and bigrams, as Lucene's CJKBigramFilter (with
// unigrams) and Elasticsearch's cjk analyzer do: a word of two or more
// characters matches the pairs it shares with the text.
//
// [Normalize] is the one form every lexical matcher reads text in
// (Unicode NFC), so that a letter typed as one character and as a letter
// and a combining accent is the same letter wherever words are compared.
package textseg

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"
	"golang.org/x/text/unicode/norm"
)

// Normalize is s in Unicode NFC: "é" typed as "e" and a combining acute
// accent (U+0065 U+0301) becomes the one character U+00E9, as a keyboard
// that composes would have typed it. Text already in NFC (most text, and
// all ASCII) is returned as it is, without a copy. Every place that
// compares words (the heuristics' tokenizer, the assertions) reads text
// through it, so that both sides of a comparison are in one form.
//
// Thai, which NFC leaves as typed, is put in the one order its letters
// show the same in: sara ae typed as two sara e ("เเ") is "แ", sara am
// typed as nikhahit and sara aa ("\u0e4d\u0e32") is "ำ", and a tone
// mark typed before the vowel above or below its consonant comes after
// it ("ท่ี" is "ที่"), as a Thai keyboard's writers and PDF extractors
// often leave them.
func Normalize(s string) string { return thaiOrder(norm.NFC.String(s)) }

// thaiOrder puts s's Thai in its usual order (Normalize); s without Thai
// is returned as it is.
func thaiOrder(s string) string {
	if !HasUnspaced(s) || !outOfThaiOrder(s) {
		return s
	}
	r := []rune(s)
	out := make([]rune, 0, len(r))
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '\u0e40' && i+1 < len(r) && r[i+1] == '\u0e40': // เเ
			out = append(out, '\u0e41')
			i++
			continue
		case c == '\u0e4d' && i+1 < len(r) && r[i+1] == '\u0e32': // ํา
			out = append(out, '\u0e33')
			i++
			continue
		case c == '\u0e4d' && i+2 < len(r) && thaiTone(r[i+1]) && r[i+2] == '\u0e32': // ํ่า
			out = append(out, r[i+1], '\u0e33')
			i += 2
			continue
		case thaiTone(c) && i+1 < len(r) && thaiUpperOrLower(r[i+1]): // ่ before ี
			out = append(out, r[i+1], c)
			i++
			continue
		}
		out = append(out, c)
	}
	return string(out)
}

// outOfThaiOrder reports whether s holds what thaiOrder changes.
func outOfThaiOrder(s string) bool {
	var prev rune
	for _, c := range s {
		if prev == '\u0e40' && c == '\u0e40' || c == '\u0e4d' || thaiTone(prev) && thaiUpperOrLower(c) {
			return true
		}
		prev = c
	}
	return false
}

// thaiTone reports whether r is a Thai tone mark (mai ek to mai
// chattawa).
func thaiTone(r rune) bool { return r >= '\u0e48' && r <= '\u0e4b' }

// thaiUpperOrLower reports whether r is a Thai vowel written above or
// below its consonant (mai han-akat, sara i to sara uu, phinthu).
func thaiUpperOrLower(r rune) bool { return r == '\u0e31' || r >= '\u0e34' && r <= '\u0e3a' }

// Unspaced reports whether r is of a script written without spaces between
// words: Chinese, Japanese, Thai, Lao, Khmer, Myanmar. (Korean is spaced.)
func Unspaced(r rune) bool {
	// The range test spares Latin, Cyrillic, Arabic, ... the table look-ups.
	return r >= '\u0e00' && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// HasUnspaced reports whether s holds a character of an unspaced script.
// It scans bytes, so it is quick on text with none.
func HasUnspaced(s string) bool {
	for i := 0; i < len(s); i++ {
		// Such characters, U+0E00 and above, take three or four bytes in
		// UTF-8, the first of them 0xE0 or more.
		if s[i] >= 0xe0 {
			return strings.ContainsFunc(s[i:], Unspaced)
		}
	}
	return false
}

// Grams yields the grams of word, a run of text with no spaces, in order:
// its UAX #29 word segments, each run of segments of an unspaced script
// giving each segment and each pair of neighbours ("热泵性" gives 热, 热泵, 泵,
// 泵性, 性), and each other segment itself ("AI" and "2024" of "AI模型2024").
// Case is kept.
func Grams(word string) iter.Seq[string] {
	return func(yield func(string) bool) {
		prev := "" // the previous segment, when of an unspaced script
		for seg := words.FromString(word); seg.Next(); {
			s := seg.Value()
			if r, _ := utf8.DecodeRuneInString(s); !Unspaced(r) {
				prev = ""
				if !yield(s) {
					return
				}
				continue
			}
			if prev != "" && !yield(prev+s) {
				return
			}
			if !yield(s) {
				return
			}
			prev = s
		}
	}
}

// WordCount returns the length of s in words: the number of its fields, as
// strings.Fields splits them, except that a field holding characters of an
// unspaced script counts one word for every two of its UAX #29 word
// segments of such a script, rounded up (Chinese and Japanese words are
// mostly one or two characters long), and one for each other segment that
// holds a letter or digit. So "热泵，性能。" is 2 words and "AI模型" 2.
func WordCount(s string) int {
	n := 0
	for f := range strings.FieldsSeq(s) {
		if !HasUnspaced(f) {
			n++
			continue
		}
		var c segCount
		for seg := words.FromString(f); seg.Next(); {
			c.add(seg.Value())
		}
		n += c.words()
	}
	return n
}

// segCount counts the words of a field of an unspaced script, segment by
// segment, as WordCount does.
type segCount struct{ chars, others int }

func (c *segCount) add(seg string) {
	switch {
	case HasUnspaced(seg):
		c.chars++
	case strings.ContainsFunc(seg, isLetterOrDigit):
		c.others++
	}
}

func (c segCount) words() int { return c.others + (c.chars+1)/2 }

// ClipWords returns the first n words of s, as WordCount counts them: s
// itself when it has no more, else its first fields joined by single
// spaces, the last one of an unspaced script cut between two of its
// segments.
func ClipWords(s string, n int) string {
	if WordCount(s) <= n {
		return s
	}
	var b strings.Builder
	add := func(f string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	for f := range strings.FieldsSeq(s) {
		w := WordCount(f)
		if w <= n {
			add(f)
			n -= w
			continue
		}
		// Cut f where one more segment would pass n, counting as
		// WordCount does.
		end := 0
		var c segCount
		for seg := words.FromString(f); seg.Next(); {
			if c.add(seg.Value()); c.words() > n {
				break
			}
			end += len(seg.Value())
		}
		if end > 0 {
			add(f[:end])
		}
		break
	}
	return b.String()
}

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// ASCIIDigits is s with its Thai digits (๐-๙) written in ASCII, so that
// "๒๕๖๘" and "2568" read as one number; s without Thai digits is
// returned as it is, without a copy.
func ASCIIDigits(s string) string {
	if !strings.ContainsFunc(s, IsThaiDigit) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if IsThaiDigit(r) {
			return '0' + (r - '๐')
		}
		return r
	}, s)
}

// IsThaiDigit reports whether r is a Thai digit, ๐ to ๙.
func IsThaiDigit(r rune) bool { return r >= '๐' && r <= '๙' }
