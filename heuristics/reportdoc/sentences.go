package reportdoc

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/heuristics/internal/lex"
	"github.com/assaylabs/assay/heuristics/internal/thai"
	"github.com/clipperhouse/uax29/v2/sentences"
)

// abbreviations never end a sentence when followed by more text, unless the
// next word usually opens one (see sentenceOpeners). Compared lower-cased,
// without the final dot.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"gen": true, "gov": true, "sen": true, "rep": true, "rev": true, "capt": true, "lt": true, "col": true,
	"fig": true, "figs": true, "eq": true, "eqs": true, "no": true, "nos": true, "vol": true, "vols": true,
	"pp": true, "p": true, "ch": true, "sec": true, "ref": true, "refs": true, "tab": true, "app": true,
	"approx": true, "ca": true, "cf": true, "e.g": true, "i.e": true, "vs": true, "al": true, "inc": true,
	"ltd": true, "corp": true, "co": true, "dept": true, "est": true, "jan": true, "feb": true, "mar": true,
	"apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true,
	"dec": true, "mt": true, "ft": true, "univ": true, "assn": true, "bros": true, "op": true, "ed": true,
	"eds": true, "repr": true, "trans": true, "viz": true,
}

// sentenceOpeners are words that, after an abbreviation or an initialism,
// show that a new sentence has begun ("... in the U.S. The market ...").
var sentenceOpeners = map[string]bool{
	"the": true, "this": true, "these": true, "that": true, "those": true, "it": true, "its": true,
	"in": true, "on": true, "at": true, "a": true, "an": true, "however": true, "but": true, "and": true,
	"we": true, "they": true, "he": true, "she": true, "there": true, "as": true, "for": true, "by": true,
	"if": true, "when": true, "while": true, "after": true, "before": true, "since": true, "overall": true,
	"moreover": true, "furthermore": true, "also": true, "both": true, "each": true, "all": true,
	"most": true, "many": true, "some": true, "such": true, "our": true, "their": true, "his": true,
	"her": true, "i": true, "you": true, "what": true, "why": true, "how": true, "yet": true, "thus": true,
	"meanwhile": true, "instead": true, "still": true, "then": true, "so": true, "one": true,
}

// alwaysAbbrev are abbreviations that cannot end a sentence at all: they
// always introduce what follows.
var alwaysAbbrev = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true, "fig": true, "figs": true,
	"eq": true, "eqs": true, "vs": true, "cf": true, "e.g": true, "i.e": true, "capt": true, "lt": true,
	"col": true, "gen": true, "sen": true, "rep": true, "rev": true, "mt": true,
}

// terminalMarks end a sentence.
const terminalMarks = ".!?。！？"

// SplitSentences returns the sentence boundaries of plain text s (no
// Markdown) as offsets, starting with 0 and ending with len(s), by the rules
// of the package doc.
func SplitSentences(s string) []int { return splitSentences(s, nil) }

// splitSentences returns the sentence boundaries of s as offsets, starting
// with 0 and ending with len(s). No boundary falls inside a protected span.
func splitSentences(s string, spans *spanSet) []int {
	bounds := []int{0}
	it := sentences.FromString(s)
	for it.Next() {
		end := it.End()
		if end >= len(s) {
			break
		}
		// A boundary inside a link's text or a code span is false; one
		// inside a citation marker (".[1]") moves to the marker's end.
		spans.around(end, end, func(sp span) bool {
			if end <= sp.start || end >= sp.end {
				return true
			}
			if sp.kind != spanMarker {
				end = -1
				return false
			}
			end = sp.end
			for end < len(s) && s[end] == ' ' {
				end++
			}
			return true
		})
		if end < 0 {
			continue
		}
		end = pastClosingLinks(s, spans, end)
		if end <= bounds[len(bounds)-1] || end >= len(s) {
			continue
		}
		if !endsWithLinkText(s[:end], spans) && joinsNext(s[bounds[len(bounds)-1]:end], s[end:]) {
			continue
		}
		bounds = append(bounds, end)
	}
	bounds = attachedLinkStops(s, spans, bounds)
	bounds = markerStops(s, spans, bounds)
	if thai.HasThai(s) {
		bounds = thaiSpaceStops(s, spans, bounds)
	}
	return append(detachedStops(s, spans, bounds), len(s))
}

// attachedLinkStops adds to bounds a boundary after the links written
// against a terminal mark when a capitalised word follows them ("held at
// 86 percent.[NIST](url) The homes..."), where the Unicode rules may see
// no sentence start: the links close the sentence before (see
// pastClosingLinks). bounds and the result are sorted.
func attachedLinkStops(s string, spans *spanSet, bounds []int) []int {
	if spans == nil {
		return bounds
	}
	var extra []int
	for _, sp := range spans.spans {
		if sp.kind != spanLink || sp.start == 0 {
			continue
		}
		if r, _ := utf8.DecodeLastRuneInString(s[:sp.start]); !strings.ContainsRune(terminalMarks, r) {
			continue
		}
		end := pastClosingLinks(s, spans, sp.start)
		if _, found := slices.BinarySearch(bounds, end); found || end >= len(s) || !opensSentence(s[end:]) || spans.strictlyInside(end) {
			continue
		}
		extra = append(extra, end)
	}
	return addBounds(bounds, extra)
}

// markerStops adds to bounds a boundary after the citation markers that
// follow a terminal mark when a capitalised word follows them ("at sea
// level.[^w] Ice melts...", "level. [^note] Ice..."). The Unicode rules see
// no sentence start there when the marker holds a lower-case letter: they
// read "[^w]" as the opening of a sentence that continues in lower case.
// bounds and the result are sorted.
func markerStops(s string, spans *spanSet, bounds []int) []int {
	if spans == nil {
		return bounds
	}
	var extra []int
	for _, sp := range spans.spans {
		if sp.kind != spanMarker || sp.start == 0 {
			continue
		}
		before := strings.TrimRight(s[:sp.start], " ")
		if r, _ := utf8.DecodeLastRuneInString(before); !strings.ContainsRune(terminalMarks, r) {
			continue
		}
		end := sp.end
		for {
			for end < len(s) && s[end] == ' ' {
				end++
			}
			next, ok := spans.markerAt(end)
			if !ok {
				break
			}
			end = next.end
		}
		if _, found := slices.BinarySearch(bounds, end); found || end >= len(s) || !opensSentence(s[end:]) || spans.strictlyInside(end) {
			continue
		}
		extra = append(extra, end)
	}
	return addBounds(bounds, extra)
}

// pastClosingLinks moves a sentence boundary at end past the links that
// close the sentence before it, as a citation marker there does ("grew.[1]
// Next"): a link written against the terminal mark, with no space ("of
// 2.0.[UMN](url) Next"), or one followed by a capitalised word that opens
// the next sentence ("of 2.0. [UMN](url) Next"). A link after a space that
// the next words continue ("[NIST](url) reports that...") is that
// sentence's own, its subject.
//
// Links that end the paragraph are left where they are: a sentence made
// only of citations already belongs to the one before.
func pastClosingLinks(s string, spans *spanSet, end int) int {
	for at := end; at < len(s); {
		sp, ok := spans.linkAt(at)
		if !ok {
			return at
		}
		prev, _ := utf8.DecodeLastRuneInString(s[:at])
		next := sp.end
		for next < len(s) && s[next] == ' ' {
			next++
		}
		if next >= len(s) {
			return end
		}
		if unicode.IsSpace(prev) && !opensSentence(s[next:]) {
			return at
		}
		at = next
	}
	return end
}

// opensSentence reports whether s starts, after opening quotes or
// brackets, with a capital letter.
func opensSentence(s string) bool {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return strings.ContainsRune("\"'“‘(*_[", r) })
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// detachedStops adds to bounds a boundary after each terminal mark that
// stands alone between spaces ("wa . it is"), as in tokenized or
// lower-cased text, where the Unicode rules see no sentence start: a
// detached mark is never an abbreviation's. Marks inside a link or code
// span are left alone. bounds and the result are sorted.
func detachedStops(s string, spans *spanSet, bounds []int) []int {
	var extra []int
	for i := 1; i+2 < len(s); i++ {
		if (s[i] != '.' && s[i] != '!' && s[i] != '?') || s[i-1] != ' ' || s[i+1] != ' ' {
			continue
		}
		end := i + 1
		for end < len(s) && s[end] == ' ' {
			end++
		}
		if _, found := slices.BinarySearch(bounds, end); end >= len(s) || found || spans.strictlyInside(end) {
			continue
		}
		extra = append(extra, end)
	}
	return addBounds(bounds, extra)
}

// endsWithLinkText reports whether the sentence s[:end] ends with a link's
// text and its period ("see [s](url). Next"): the text is a whole word
// chosen by the writer, not an abbreviation or initialism, whatever its
// length.
func endsWithLinkText(s string, spans *spanSet) bool {
	t := strings.TrimRightFunc(s, unicode.IsSpace)
	t = strings.TrimRight(t, ".!?\"')”’")
	return spans.linkEndsAt(len(t))
}

// joinsNext reports whether the boundary between sentence and the text after
// it is false: an abbreviation or initialism followed by a word that does
// not open a sentence, or a "sentence" that ends without terminal
// punctuation.
func joinsNext(sentence, rest string) bool {
	t := strings.TrimRightFunc(sentence, unicode.IsSpace)
	if !strings.HasSuffix(t, ".") {
		return false
	}
	last := t[strings.LastIndexFunc(t, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == '[' || r == '"' })+1:]
	word := strings.ToLower(strings.TrimSuffix(last, "."))
	if word == "" {
		return false
	}
	abbrev := abbreviations[word]
	initialism := isInitialism(last)
	if !abbrev && !initialism {
		return false
	}
	if alwaysAbbrev[word] {
		return true
	}
	next := lex.FirstWord(rest)
	if next == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(next)
	if unicode.IsLower(r) || unicode.IsDigit(r) {
		return true
	}
	return !sentenceOpeners[strings.ToLower(next)]
}

// isInitialism reports whether w is like "U.S." or "J.": single letters
// each followed by a dot.
func isInitialism(w string) bool {
	if len(w) < 2 || !strings.HasSuffix(w, ".") {
		return false
	}
	parts := strings.Split(strings.TrimSuffix(w, "."), ".")
	for _, p := range parts {
		if utf8.RuneCountInString(p) != 1 {
			return false
		}
		r, _ := utf8.DecodeRuneInString(p)
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// addBounds adds extra to the sorted bounds, keeping them sorted and
// each once.
func addBounds(bounds, extra []int) []int {
	if len(extra) == 0 {
		return bounds
	}
	bounds = append(bounds, extra...)
	slices.Sort(bounds)
	return slices.Compact(bounds)
}
