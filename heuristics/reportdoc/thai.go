package reportdoc

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/heuristics/internal/thai"
)

// Thai writes no full stop: a sentence ends at a space, or where a citation
// closes it. The rules (the package doc's claim rule states them too):
//
//   - a space between two Thai words ends a sentence, unless the word after
//     it joins its clause to the one before (thaiJoining: "และ" and, "ซึ่ง"
//     which, "เพราะ" because...) or a citation stands just before or after
//     the space (the next rule decides there);
//   - a citation (a link to a web page, a resolved [n] or footnote) written
//     after Thai prose ends the sentence when Thai prose follows it, with
//     or without a space between, unless a joining word stands just before
//     it (the citation is that word's object: "รายงานของ [กรม](url)") or
//     just after it.

// thaiJoining are Thai words that continue a sentence after a space: they
// join a clause to the one before (conjunctions, relative words,
// prepositions, "is"). A space before one is no sentence boundary.
var thaiJoining = map[string]bool{
	"และ": true, "แต่": true, "หรือ": true, "ซึ่ง": true, "ที่": true, "โดย": true, "เพราะ": true,
	"เนื่องจาก": true, "จึง": true, "ทำให้": true, "กับ": true, "ของ": true, "ใน": true, "จาก": true,
	"ตาม": true, "เพื่อ": true, "ว่า": true, "จน": true, "จนกว่า": true, "แม้": true, "แม้ว่า": true,
	"ขณะที่": true, "รวมถึง": true, "รวมทั้ง": true, "อีกทั้ง": true, "เช่น": true, "คือ": true,
	"ได้แก่": true, "ก็": true, "แล้ว": true, "ด้วย": true, "ต่อ": true, "ถึง": true, "เป็น": true,
	"กว่า": true, "มากกว่า": true, "น้อยกว่า": true, "อยู่": true, "ไว้": true, "หรือไม่": true,
}

// thaiProse reports whether r is a Thai character of prose: a letter or a
// mark, not a Thai digit or sign.
func thaiProse(r rune) bool {
	return thai.IsThai(r) && (unicode.IsLetter(r) || unicode.In(r, unicode.Mn, unicode.Mc))
}

// thaiOpens reports whether s starts with a Thai character that can begin
// a word: a consonant or a vowel written before its consonant.
func thaiOpens(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return (r >= 0x0e01 && r <= 0x0e2e) || (r >= 0x0e40 && r <= 0x0e44)
}

// thaiFirstWord is the first dictionary word of Thai text s.
func thaiFirstWord(s string) string {
	if len(s) > 120 {
		s = s[:120]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	if ws := thai.Segment(s); len(ws) > 0 {
		return ws[0]
	}
	return ""
}

// thaiLastWord is the last dictionary word of Thai text s.
func thaiLastWord(s string) string {
	if len(s) > 120 {
		s = s[len(s)-120:]
		for !utf8.ValidString(s) {
			s = s[1:]
		}
	}
	if ws := thai.Segment(s); len(ws) > 0 {
		return ws[len(ws)-1]
	}
	return ""
}

// thaiSpaceStops adds to bounds a boundary after each space that ends a
// Thai sentence (see above). bounds and the result are sorted.
func thaiSpaceStops(s string, spans *spanSet, bounds []int) []int {
	var extra []int
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], ' ')
		if j < 0 {
			break
		}
		start := i + j
		end := start
		for end < len(s) && s[end] == ' ' {
			end++
		}
		i = end
		prev, _ := utf8.DecodeLastRuneInString(s[:start])
		if start == 0 || end >= len(s) || !thaiProse(prev) || !thaiOpens(s[end:]) {
			continue
		}
		// Around a citation the citation rule decides.
		if spans.strictlyInside(start) || spans.citationAt(end) || spans.citationEndsAt(start) {
			continue
		}
		if thaiJoining[thaiFirstWord(s[end:])] {
			continue
		}
		extra = append(extra, end)
	}
	return addBounds(bounds, extra)
}

// thaiCitationStops adds to bounds a boundary after each citation that
// closes a Thai sentence: Thai prose before it, Thai prose after it.
// bounds and the result are sorted.
func thaiCitationStops(s string, spans *spanSet, marks []mark, bounds []int) []int {
	var extra []int
	for _, m := range marks {
		end, ok := spans.citationEnd(m.at)
		if !ok {
			continue
		}
		before := strings.TrimRight(s[:m.at], " ")
		prev, _ := utf8.DecodeLastRuneInString(before)
		if !thaiProse(prev) {
			continue
		}
		for end < len(s) && s[end] == ' ' {
			end++
		}
		// Citations side by side close the sentence together.
		for {
			next, ok := spans.citationEnd(end)
			if !ok {
				break
			}
			for end = next; end < len(s) && s[end] == ' '; end++ {
			}
		}
		if end >= len(s) || !thaiOpens(s[end:]) || spans.strictlyInside(end) {
			continue
		}
		// A citation after a joining word is that word's object, inside
		// its sentence ("รายงานของ [กรม](url) ระบุว่า...": the report of
		// the department states that...); one before a joining word is
		// followed by more of the same sentence.
		if thaiJoining[thaiLastWord(before)] || thaiJoining[thaiFirstWord(s[end:])] {
			continue
		}
		extra = append(extra, end)
	}
	return addBounds(bounds, extra)
}
