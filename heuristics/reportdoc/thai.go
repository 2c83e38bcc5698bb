package reportdoc

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/heuristics/internal/thai"
)

// Thai writes no full stop: a sentence ends at a space, or where a citation
// closes it. The rules (the package doc's claim rule states them too):
//
//   - a space between two Thai words ends a sentence, unless the word
//     before it cannot end one (thaiOpen: "จาก" from, "ของ" of, "และ"
//     and: what follows is its object), the text after it continues the
//     sentence (thaiContinues: a joining word such as "ซึ่ง" which or
//     "เพราะ" because, an era after its year, "ปี พ.ศ. ๒๕๖๗", or a verb
//     of saying whose subject came before, "กรมการข้าว ระบุว่า"), the
//     space follows the repetition mark "ๆ" or the abbreviation mark "ฯ"
//     (written with a space after them inside a sentence), or a citation
//     stands just before or after the space (the next rule decides there);
//   - a citation (a link to a web page, a resolved [n] or footnote) written
//     after Thai prose ends the sentence when Thai prose (or a capitalised
//     word, an English sentence of a mixed report) follows it, with
//     or without a space between, unless the word just before it cannot
//     end a sentence (the citation is that word's object: "รายงานของ
//     [กรม](url)") or a joining word that opens no sentence (thaiOpener)
//     stands just after it. A word that
//     joins after a space may still end a sentence before a citation:
//     "...ลดลงแล้ว[1] ชาวนา..." (has fallen already) ends at the marker.

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

// thaiOpen are the joining words that cannot end a sentence: a
// preposition, conjunction or relative word wants what follows it. Words
// that join after a space yet also close a clause ("แล้ว" already, "ด้วย"
// too, "อยู่", "ไว้", "กว่า" than, "ต่อ" on, "ถึง" arrive, "เป็น") are
// left out.
var thaiOpen = map[string]bool{
	"และ": true, "แต่": true, "หรือ": true, "ซึ่ง": true, "ที่": true, "โดย": true, "เพราะ": true,
	"เนื่องจาก": true, "จึง": true, "ทำให้": true, "กับ": true, "ของ": true, "ใน": true, "จาก": true,
	"ตาม": true, "เพื่อ": true, "ว่า": true, "จนกว่า": true, "แม้": true, "แม้ว่า": true,
	"ขณะที่": true, "รวมถึง": true, "รวมทั้ง": true, "อีกทั้ง": true, "เช่น": true, "คือ": true,
	"ได้แก่": true, "ก็": true, "สำหรับ": true, "ระหว่าง": true, "แก่": true, "เมื่อ": true,
	"ตั้งแต่": true, "ภายใน": true, "ณ": true,
}

// thaiOpener are joining words that also open a sentence with an adverbial
// phrase ("ในปี ๒๕๖๗..." in 2024, "จากการสำรวจ..." from the survey,
// "ตามรายงาน..." according to the report, "เพื่อ..." to...). After a
// space they may continue a clause; after a citation, which closed one,
// they open the next sentence.
var thaiOpener = map[string]bool{
	"ใน": true, "จาก": true, "ตาม": true, "เพื่อ": true, "แม้": true, "แม้ว่า": true, "ขณะที่": true,
	"เนื่องจาก": true, "โดย": true, "อีกทั้ง": true,
}

// thaiEras are the abbreviations of the eras a year is written in
// (Buddhist, Common, Chula and Rattanakosin): after a space they belong to
// the year word before them ("ในปี พ.ศ. ๒๕๖๗").
var thaiEras = []string{"พ.ศ.", "ค.ศ.", "จ.ศ.", "ร.ศ."}

// thaiContinues reports whether Thai text rest, written after a space,
// continues the sentence before the space: it opens with a joining word,
// an era, or a verb of saying or finding with its "ว่า" (that), whose
// subject is before the space ("สำนักงานเศรษฐกิจการเกษตร ระบุว่า...").
func thaiContinues(rest string) bool {
	for _, era := range thaiEras {
		if strings.HasPrefix(rest, era) {
			return true
		}
	}
	if len(rest) > 120 {
		rest = rest[:120]
		for !utf8.ValidString(rest) {
			rest = rest[:len(rest)-1]
		}
	}
	ws := thai.Segment(rest)
	if len(ws) == 0 {
		return false
	}
	return thaiJoining[ws[0]] || len(ws) > 1 && ws[1] == "ว่า" && thaiProse([]rune(ws[0])[0])
}

// thaiProse reports whether r is a Thai character of prose: a letter or a
// mark, not a Thai digit or sign.
func thaiProse(r rune) bool {
	return thai.IsThai(r) && (unicode.IsLetter(r) || unicode.In(r, unicode.Mn, unicode.Mc))
}

// thaiRepeat is the mark "ๆ" that repeats the word before it, and
// thaiAbbrev the mark "ฯ" that shortens it ("กรุงเทพฯ", "ฯลฯ" etc.); Thai
// style writes a space after each, inside a sentence as at its end.
const (
	thaiRepeat = 'ๆ'
	thaiAbbrev = 'ฯ'
)

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
		if start == 0 || end >= len(s) || !thaiProse(prev) || prev == thaiRepeat || prev == thaiAbbrev || !thaiOpens(s[end:]) {
			continue
		}
		// Around a citation the citation rule decides.
		if spans.strictlyInside(start) || spans.citationAt(end) || spans.citationEndsAt(start) {
			continue
		}
		if thaiOpen[thaiLastWord(s[:start])] || thaiContinues(s[end:]) {
			continue
		}
		extra = append(extra, end)
	}
	return addBounds(bounds, extra)
}

// thaiSentenceBefore reports whether before, the text up to a citation,
// ends a Thai sentence with no full stop: its sentence so far holds Thai
// prose and it ends in a word, a Thai or a Latin one, a number or a
// percentage ("...ร้อยละ ๑๕[1]", "...รุ่น Dolphin[1]"), not in a terminal
// mark (the other rules place that citation) or another citation.
func thaiSentenceBefore(before string, bounds []int) bool {
	prev, _ := utf8.DecodeLastRuneInString(before)
	if !thaiProse(prev) && !unicode.IsLetter(prev) && !unicode.IsDigit(prev) && prev != '%' {
		return false
	}
	i, _ := slices.BinarySearch(bounds, len(before)+1)
	start := 0
	if i > 0 {
		start = min(bounds[i-1], len(before))
	}
	return strings.ContainsFunc(before[start:], thaiProse)
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
		if !thaiSentenceBefore(before, bounds) {
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
		// Thai prose or a capitalised word, an English sentence in a
		// mixed report, opens the next sentence.
		if end >= len(s) || !thaiOpens(s[end:]) && !opensSentence(s[end:]) || spans.strictlyInside(end) {
			continue
		}
		// A citation after a joining word is that word's object, inside
		// its sentence ("รายงานของ [กรม](url) ระบุว่า...": the report of
		// the department states that...); one before a joining word is
		// followed by more of the same sentence.
		if first := thaiFirstWord(s[end:]); thaiOpen[thaiLastWord(before)] || thaiJoining[first] && !thaiOpener[first] {
			continue
		}
		extra = append(extra, end)
	}
	return addBounds(bounds, extra)
}
