// Package thai cuts Thai text into words with a dictionary. Thai is written
// without spaces between words, and Unicode's word rules (UAX #29) cut it
// only into letters with their marks, so "รสชาติ" (taste) comes out as
// "ร", "ส", "ช", "า", "ติ": fragments no reader would name.
//
// Segment finds the split of a run of Thai text into dictionary words that
// leaves the fewest characters outside any word and, among those, uses the
// fewest words (maximal matching). A cut falls only where a Thai syllable
// may end: never before a vowel or tone mark written after its consonant,
// never before a consonant silenced by the thanthakhat (the "ร์" of
// "โซลาร์"), and never after a vowel written before it (เ แ โ ใ ไ).
// Characters no dictionary word covers stay together as one word.
//
// The dictionary is ICU's Thai word list (26,383 words, the list ICU's
// line breaker uses; see LICENSE-ICU), embedded gzipped and read on first
// use, so that a program that never meets Thai never pays for it.
package thai

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"
)

//go:embed words.txt.gz
var wordsGz []byte

// dictionary is the word list as a set, with the length in bytes of its
// longest word.
type dictionary struct {
	words  map[string]struct{}
	maxLen int
}

// dict reads the embedded list on first use.
var dict = sync.OnceValue(func() *dictionary {
	d, err := readDictionary(wordsGz)
	if err != nil {
		// The list is part of the binary: a read error is a broken build,
		// caught by TestDictionaryLoads, never a user's input.
		panic("thai: embedded dictionary: " + err.Error())
	}
	return d
})

func readDictionary(gz []byte) (*dictionary, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	d := &dictionary{words: make(map[string]struct{}, 27000)}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		w := strings.TrimSpace(sc.Text())
		if w == "" {
			continue
		}
		d.words[w] = struct{}{}
		d.maxLen = max(d.maxLen, len(w))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return d, zr.Close()
}

// IsThai reports whether r is a character of the Thai block.
func IsThai(r rune) bool { return r >= 0x0e01 && r <= 0x0e7f }

// HasThai reports whether s holds a Thai character.
func HasThai(s string) bool { return strings.ContainsFunc(s, IsThai) }

// Known reports whether w is a word of the dictionary.
func Known(w string) bool {
	_, ok := dict().words[w]
	return ok
}

// following are the characters written after the consonant they follow
// (vowels above, below and after it, tone marks, the repetition mark):
// no word starts with one.
func following(r rune) bool {
	switch {
	case r == 0x0e30 || r == 0x0e31 || r == 0x0e32 || r == 0x0e33: // ะ ั า ำ
		return true
	case r >= 0x0e34 && r <= 0x0e3a: // ิ ี ึ ื ุ ู ฺ
		return true
	case r >= 0x0e45 && r <= 0x0e4e: // ๅ ๆ ็ ่ ้ ๊ ๋ ์ ํ ๎
		return true
	}
	return false
}

// leading are the vowels written before the consonant they follow in
// speech: no word ends with one.
func leading(r rune) bool { return r >= 0x0e40 && r <= 0x0e44 }

// canCut reports whether a word may end at byte offset i of s.
func canCut(s string, i int) bool {
	if i == 0 || i == len(s) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(s[i:])
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	if !IsThai(next) || !IsThai(prev) {
		return true
	}
	return !following(next) && !leading(prev) && !silenced(s[i:])
}

// silenced reports whether s opens with a consonant silenced by the
// thanthakhat "์", directly or over a vowel ("ร์" in "โซลาร์", "ธุ์" in
// "พันธุ์"): such a consonant closes the syllable before it and never
// opens a word.
func silenced(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	if r < 0x0e01 || r > 0x0e2e {
		return false
	}
	r, m := utf8.DecodeRuneInString(s[n:])
	if r == 0x0e34 || r == 0x0e38 { // ิ ุ
		r, _ = utf8.DecodeRuneInString(s[n+m:])
	}
	return r == 0x0e4c
}

// cost is what a split of a prefix costs: characters outside any
// dictionary word first, then words.
type cost struct{ unknown, words int }

func (c cost) less(d cost) bool {
	return c.unknown < d.unknown || (c.unknown == d.unknown && c.words < d.words)
}

// thaiText reports whether r is Thai text a dictionary word may hold: a
// Thai letter, vowel, tone mark or sign, not a Thai digit (๐-๙) or the
// baht sign (฿), which are read as numbers are.
func thaiText(r rune) bool { return IsThai(r) && r != '฿' && (r < '๐' || r > '๙') }

// Segment returns the words of s, in order, their concatenation s: each
// run of Thai text cut as the package doc says, each other run (Latin,
// digits, Thai digits and the baht sign among them, spaces, punctuation)
// one piece as it stands, so "๒.๒" is one piece as "2.2" is.
func Segment(s string) []string {
	var out []string
	for start := 0; start < len(s); {
		r, _ := utf8.DecodeRuneInString(s[start:])
		thai := thaiText(r)
		end := start + strings.IndexFunc(s[start:], func(r rune) bool { return thaiText(r) != thai })
		if end < start {
			end = len(s)
		}
		if thai {
			out = append(out, segmentThai(s[start:end])...)
		} else {
			out = append(out, s[start:end])
		}
		start = end
	}
	return out
}

// segmentThai cuts a run of Thai characters.
func segmentThai(s string) []string {
	d := dict()
	var cuts []int // byte offsets where a word may end, ascending, 0 and len(s) included
	for i := range s {
		if canCut(s, i) {
			cuts = append(cuts, i)
		}
	}
	cuts = append(cuts, len(s))
	n := len(cuts)
	best := make([]cost, n)
	from := make([]int, n)   // the cut index the last word of the best split starts at
	known := make([]bool, n) // whether that last word is in the dictionary
	for k := 1; k < n; k++ {
		best[k] = cost{unknown: 1 << 30}
		for j := k - 1; j >= 0 && cuts[k]-cuts[j] <= max(d.maxLen, cuts[k]-cuts[k-1]); j-- {
			w := s[cuts[j]:cuts[k]]
			_, inDict := d.words[w]
			c := best[j]
			switch {
			case inDict:
				c.words++
			case j == k-1:
				// One syllable-sized piece outside the dictionary.
				c.unknown += utf8.RuneCountInString(w)
				c.words++
			default:
				continue
			}
			if c.less(best[k]) {
				best[k], from[k], known[k] = c, j, inDict
			}
		}
	}
	var rev []string
	for k := n - 1; k > 0; {
		j := from[k]
		// Unknown pieces side by side make one word.
		for !known[k] && j > 0 && !known[j] {
			j = from[j]
		}
		rev = append(rev, s[cuts[j]:cuts[k]])
		k = j
	}
	out := make([]string, len(rev))
	for i, w := range rev {
		out[len(rev)-1-i] = w
	}
	return out
}
