package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// joinDigitGroups is s with the commas that group a number's digits
// taken out, so that "1,000" is the word "1000" as "1000" is, not the
// two words "1" and "000": a run of digits and commas whose groups after
// the first have three digits each (1,234,567), or the last three and
// the others two (Indian, 1,00,000), the first of one to three. Other
// commas between digits (a list, "1,2,3"; a decimal comma, "1,5") are
// left as they are.
func joinDigitGroups(s string) string {
	if !strings.Contains(s, ",") {
		return s
	}
	var b strings.Builder
	last := 0 // s[last:] is not yet written
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsDigit(r) || i > 0 && startsAfterDigit(s[:i]) {
			i += w
			continue
		}
		end, groups := digitRun(s, i)
		if len(groups) > 1 && grouped(groups) {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:i])
			b.WriteString(strings.ReplaceAll(s[i:end], ",", ""))
			last = end
		}
		i = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// startsAfterDigit reports whether the text before ends with a digit or
// a comma: a run of digits starts after neither.
func startsAfterDigit(before string) bool {
	r, _ := utf8.DecodeLastRuneInString(before)
	return unicode.IsDigit(r) || r == ','
}

// digitRun reads the run of digits and single commas between digits
// from i, returning where it ends and the number of digits of each group.
func digitRun(s string, i int) (end int, groups []int) {
	n := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsDigit(r):
			n++
			i += w
			continue
		case r == ',' && n > 0:
			if next, _ := utf8.DecodeRuneInString(s[i+1:]); unicode.IsDigit(next) {
				groups = append(groups, n)
				n = 0
				i++
				continue
			}
		}
		break
	}
	return i, append(groups, n)
}

// grouped reports whether groups are the digit counts of a number
// grouped in thousands (3, 3, ...) or in the Indian way (2, ..., 3), its
// first group of one to three digits.
func grouped(groups []int) bool {
	if groups[0] < 1 || groups[0] > 3 || groups[len(groups)-1] != 3 {
		return false
	}
	western, indian := true, groups[0] <= 2
	for _, g := range groups[1 : len(groups)-1] {
		western = western && g == 3
		indian = indian && g == 2
	}
	return western || indian
}
