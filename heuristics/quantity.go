package heuristics

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/assaylabs/assay/heuristics/internal/lex"
)

// quantity is a number read from text with its unit, if any, in the unit's
// base (metres, kilograms, percent, degrees): "2.1 million" is 2,100,000,
// "1.5k" 1,500 and "330 km" 330,000 metres.
type quantity struct {
	text      string  // the number as written, lower-cased, with its scale and unit: "10 km"
	value     float64 // in the base unit
	dimension string  // "" when no unit follows the number
}

// agrees reports whether q and p are the same quantity: equal values, and
// the same dimension unless one of them has no unit.
func (q quantity) agrees(p quantity) bool {
	if q.dimension != "" && p.dimension != "" && q.dimension != p.dimension {
		return false
	}
	return math.Abs(q.value-p.value) <= 1e-9*math.Max(1, math.Abs(q.value))
}

// quantityToken is a number (with thousands separators and decimals), a
// run of letters, a degree sign or a percent sign.
var quantityToken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+(?:,\d{3})*(?:\.\d+)?|\pL+|°|%`) })

// scales are the words that multiply the number before them.
var scales = map[string]float64{
	"k": 1e3, "thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12,
}

// quantitiesIn returns the quantities written in digits in text, and, when
// words is set, those spelled out as number words ("three", "third"). A
// number is followed by an optional scale ("million", "k") and an optional
// unit (lex.Lexicon.Unit; "°C", "degrees Celsius", "%").
func quantitiesIn(text string, words bool) []quantity {
	var toks []string
	var out []quantity
	for _, m := range quantityToken().FindAllStringIndex(text, -1) {
		toks = append(toks, strings.ToLower(text[m[0]:m[1]]))
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		var q quantity
		if r, _ := utf8.DecodeRuneInString(t); unicode.IsDigit(r) {
			v, err := strconv.ParseFloat(strings.ReplaceAll(t, ",", ""), 64)
			if err != nil {
				continue
			}
			q = quantity{text: t, value: v}
		} else if d, ok := numberWords[t]; ok && words {
			v, _ := strconv.ParseFloat(d, 64)
			q = quantity{text: t, value: v}
		} else {
			continue
		}
		j := i + 1
		if j < len(toks) {
			if s, ok := scales[toks[j]]; ok {
				q.value *= s
				j++
			}
		}
		if u, n := unitAt(toks[j:]); n > 0 {
			q.value *= u.Factor
			q.dimension = u.Dimension
			j += n
		}
		if j > i+1 {
			q.text = strings.Join(toks[i:j], " ") // "2.1 million", "10 km"
		}
		out = append(out, q)
		i = j - 1
	}
	return out
}

// unitAt returns the unit the tokens start with and how many tokens it
// takes, or 0 tokens when they start with none.
func unitAt(toks []string) (lex.Unit, int) {
	if len(toks) == 0 {
		return lex.Unit{}, 0
	}
	switch t := toks[0]; {
	case t == "%":
		return lex.Unit{Dimension: "percent", Factor: 1}, 1
	case t == "per" && len(toks) > 1 && toks[1] == "cent":
		return lex.Unit{Dimension: "percent", Factor: 1}, 2
	case t == "°" || t == "degree" || t == "degrees":
		if len(toks) > 1 {
			switch toks[1] {
			case "c", "celsius", "centigrade":
				return lex.Unit{Dimension: "temperature-c", Factor: 1}, 2
			case "f", "fahrenheit":
				return lex.Unit{Dimension: "temperature-f", Factor: 1}, 2
			}
		}
		return lex.Unit{}, 1 // degrees of no named scale: no unit to compare
	}
	if u, ok := lexicon().Unit(toks[0]); ok {
		return u, 1
	}
	// In a script written without spaces the unit opens the run of
	// letters after the number: "100摄氏度时".
	if lex.IsGram(toks[0]) {
		for n := min(utf8.RuneCountInString(toks[0]), 5); n > 0; n-- {
			prefix := toks[0][:runeOffset(toks[0], n)]
			if u, ok := lexicon().Unit(prefix); ok {
				return u, 1
			}
		}
	}
	return lex.Unit{}, 0
}

// runeOffset is the byte offset of the nth rune of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// isUnitWord reports whether the lower-cased word w only qualifies a
// number: a unit, a scale or a degree sign's word. Such words are part of
// a quantity, not content words of their own.
func isUnitWord(w string) bool {
	if _, ok := lexicon().Unit(w); ok {
		return true
	}
	_, scale := scales[w]
	return scale || w == "degree" || w == "degrees" || w == "celsius" || w == "centigrade" || w == "fahrenheit" || w == "percent"
}
