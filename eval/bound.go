package eval

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// MaxText is the most bytes a result keeps of one text: a score's reason
// and error, and each string of its evidence (a claim, a citation's text,
// quote and URL, a source's URL and basis, a gap, an issue). A judge's
// texts are a sentence or two; a model that answers with megabytes would
// otherwise fill every results file, report and cache it reaches. A text
// cut ends with CutMarker and the number of bytes left out.
const MaxText = 4 << 10

// CutMarker starts what Clip puts at the end of a text it cut.
const CutMarker = "… [cut: "

// Clip returns s when it is at most n bytes long, else its start, ended
// at a rune boundary, and a marker saying how many bytes were left out
// ("… [cut: 12345 more bytes]"), the whole at most n bytes long for an n
// of 64 or more.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Room for the marker, the count's digits included.
	keep := max(n-len(CutMarker)-len(" more bytes]")-20, 0)
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return fmt.Sprintf("%s%s%d more bytes]", s[:keep], CutMarker, len(s)-keep)
}

// Bounded returns e with each of its strings clipped to n bytes (Clip). It
// copies what it cuts: e's slices are left as they are.
func (e Evidence) Bounded(n int) Evidence {
	long := func(ss ...string) bool { return slices.ContainsFunc(ss, func(s string) bool { return len(s) > n }) }
	clip := func(ss ...*string) {
		for _, s := range ss {
			*s = Clip(*s, n)
		}
	}
	if long(e.Gaps...) {
		e.Gaps = slices.Clone(e.Gaps)
		for i := range e.Gaps {
			clip(&e.Gaps[i])
		}
	}
	if long(e.Issues...) {
		e.Issues = slices.Clone(e.Issues)
		for i := range e.Issues {
			clip(&e.Issues[i])
		}
	}
	claimLong := func(c Claim) bool {
		return long(c.Text, c.Section, c.Verdict, c.SourceID) || slices.ContainsFunc(c.Citations, func(ct Citation) bool {
			return long(ct.Kind, ct.Ref, ct.Text, ct.URL, ct.Quote)
		})
	}
	if slices.ContainsFunc(e.Claims, claimLong) {
		e.Claims = slices.Clone(e.Claims)
		for i := range e.Claims {
			c := &e.Claims[i]
			clip(&c.Text, &c.Section, &c.Verdict, &c.SourceID)
			c.Citations = slices.Clone(c.Citations)
			for j := range c.Citations {
				ct := &c.Citations[j]
				clip(&ct.Kind, &ct.Ref, &ct.Text, &ct.URL, &ct.Quote)
			}
		}
	}
	if slices.ContainsFunc(e.Sources, func(s SourceRating) bool { return long(s.URL, s.Domain, s.Basis) }) {
		e.Sources = slices.Clone(e.Sources)
		for i := range e.Sources {
			s := &e.Sources[i]
			clip(&s.URL, &s.Domain, &s.Basis)
		}
	}
	return e
}
