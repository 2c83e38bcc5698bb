package lex

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
)

// The word lists of claim support, kept as data: nocontent.txt (light
// verbs, linking words, words about the source), antonyms.txt (antonym
// pairs), units.txt (units of measure) and measures.txt (words naming one
// measure).
var (
	//go:embed nocontent.txt
	noContentText string
	//go:embed antonyms.txt
	antonymText string
	//go:embed units.txt
	unitText string
	//go:embed measures.txt
	measureText string
	//go:embed inquiry.txt
	inquiryText string
)

// Unit is a unit of measure: the dimension it measures and its factor to
// the dimension's base unit (metres, kilograms, percent, degrees).
type Unit struct {
	// Dimension is "length", "mass", "percent", "temperature-c" or
	// "temperature-f".
	Dimension string
	// Factor converts a value in the unit to the base unit: 1000 for km.
	Factor float64
}

// lists are the parsed word lists, built on first use.
var lists = sync.OnceValue(func() (l struct {
	noContent map[string]bool
	antonyms  map[string][]string
	units     map[string]Unit
	measures  map[string]string
	inquiry   map[string]bool
}) {
	l.inquiry = map[string]bool{}
	for w := range wordSet(inquiryText) {
		l.inquiry[stem(w)] = true
	}
	l.noContent = wordSet(noContentText)
	l.antonyms = map[string][]string{}
	for _, f := range dataLines(antonymText) {
		if len(f) != 2 {
			panic("lex: antonyms.txt: a line is not a pair: " + strings.Join(f, " "))
		}
		a, b := stem(f[0]), stem(f[1])
		l.antonyms[a] = append(l.antonyms[a], b)
		l.antonyms[b] = append(l.antonyms[b], a)
	}
	l.units = map[string]Unit{}
	for _, f := range dataLines(unitText) {
		factor, err := strconv.ParseFloat(f[1], 64)
		if err != nil || len(f) < 3 {
			panic("lex: units.txt: want a dimension, a factor and spellings: " + strings.Join(f, " "))
		}
		for _, w := range f[2:] {
			l.units[w] = Unit{Dimension: f[0], Factor: factor}
		}
	}
	l.measures = map[string]string{}
	for _, f := range dataLines(measureText) {
		for _, w := range f[1:] {
			l.measures[w] = f[0]
		}
	}
	return l
})

// dataLines returns the fields of each line of text that is not blank or a
// comment.
func dataLines(text string) [][]string {
	var out [][]string
	for line := range strings.Lines(text) {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
			out = append(out, f)
		}
	}
	return out
}

// NoContent reports whether the lower-cased word w carries no content of
// its own in a claim (nocontent.txt): a light verb ("is", "became",
// "made"), a linking word ("however") or a word about the source ("the
// passage").
func (l *Lexicon) NoContent(w string) bool { return lists().noContent[w] }

// Antonyms returns the stems of the antonyms of the word whose stem is s
// (antonyms.txt), or nil: Antonyms(Stem("closed")) is ["open"].
func (l *Lexicon) Antonyms(s string) []string { return lists().antonyms[s] }

// Unit returns the unit of measure the lower-cased word w spells
// (units.txt): "km", "kilometres" and "kilometers" are all kilometres.
func (l *Lexicon) Unit(w string) (Unit, bool) {
	u, ok := lists().units[w]
	return u, ok
}

// Measure returns the measure the lower-cased word w names (measures.txt),
// or "": "tall", "high" and "height" are all "height".
func (l *Lexicon) Measure(w string) string { return lists().measures[w] }

// Inquiry reports whether the word w of a query frames the question or
// relates its words rather than names its topic (inquiry.txt: "discovered",
// "known", "shows"; "during", "within"), compared by
// stem.
func Inquiry(w string) bool { return lists().inquiry[stem(strings.ToLower(w))] }
