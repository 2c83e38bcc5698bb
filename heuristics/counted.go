package heuristics

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/heuristics/internal/thai"
	"github.com/assaylabs/assay/internal/textseg"
)

// Counted is a number written in digits and the thing it counts: "2
// children", or in Thai the noun and the classifier around the number
// ("ลูก 2 คน", two children), since the classifier alone ("คน", people)
// is shared by many nouns.
type Counted struct {
	Text string // the phrase as written: "2 children", "ลูก 2 คน"
	// Number is the number's value written plainly, so that two ways of
	// writing one number are one: ASCII digits for Thai ones, no
	// thousands commas, no zeros that say nothing ("๒", "2.0" and "02"
	// are "2"; "1,500" is "1500"; "1,5", a decimal comma, is "1.5").
	Number string
	Thing  string // what it counts, lower-cased: "children", "ลูก คน"
}

// countedNumber is a number in ASCII or Thai digits (its thousands
// grouped by commas, or not) and the run of letters after it (Thai
// vowels and tone marks are marks, not letters).
var countedNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([0-9๐-๙]{1,3}(?:,[0-9๐-๙]{3})+(?:\.[0-9๐-๙]+)?|[0-9๐-๙]+(?:[.,][0-9๐-๙]+)?)\s*([\pL\pM°%]+)`)
})

// CountedThings returns the numbers of text with the thing each counts,
// in order. A number inside a word or a longer number is not one.
func CountedThings(text string) []Counted {
	var out []Counted
	for _, m := range countedNumber().FindAllStringSubmatchIndex(text, -1) {
		if r, _ := utf8.DecodeLastRuneInString(text[:m[0]]); isASCIIWord(r) || r == '.' || r == ',' {
			continue // "A4 paper", "1.5.2 release"
		}
		num, after := text[m[2]:m[3]], text[m[4]:m[5]]
		start, end := m[0], m[5]
		thing := after
		if thai.HasThai(after) {
			after = thai.Segment(after)[0]
			thing, end = after, m[4]+len(after)
			// The noun before the number, when it is Thai.
			before := strings.TrimRight(text[:m[0]], " ")
			i := len(before)
			for i > 0 {
				r, size := utf8.DecodeLastRuneInString(before[:i])
				if !thai.IsThai(r) || textseg.IsThaiDigit(r) {
					break
				}
				i -= size
			}
			if i < len(before) {
				words := thai.Segment(before[i:])
				noun := words[len(words)-1]
				thing, start = noun+" "+after, len(before)-len(noun)
			}
		}
		out = append(out, Counted{Text: text[start:end], Number: plainNumber(textseg.ASCIIDigits(num)), Thing: strings.ToLower(thing)})
	}
	return out
}

func isASCIIWord(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
}

// plainNumber writes a number of ASCII digits plainly (Counted.Number):
// commas that group thousands dropped, another comma a decimal point,
// leading zeros and a fraction's trailing zeros left out.
func plainNumber(s string) string {
	if strings.Count(s, ",") > 1 || strings.Contains(s, ".") {
		s = strings.ReplaceAll(s, ",", "")
	} else if i := strings.IndexByte(s, ','); i >= 0 {
		if len(s)-i-1 == 3 {
			s = s[:i] + s[i+1:] // 1,500
		} else {
			s = s[:i] + "." + s[i+1:] // 1,5
		}
	}
	whole, frac, _ := strings.Cut(s, ".")
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if whole == "" {
		whole = "0"
	}
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}
