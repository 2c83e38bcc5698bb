// Package termtext makes untrusted text safe to print on a terminal: a
// control character (an escape sequence's ESC, a carriage return) or a
// bidirectional formatting character that a dataset, a run folder, a
// command line or a user's pattern brings is written as its Go escape,
// so the terminal shows it instead of obeying it. It is a leaf: any
// package that writes such text into a message can use it.
package termtext

import (
	"strconv"
	"strings"
	"unicode"
)

// Visible is s with each control character (a tab, a line break, an
// escape sequence's ESC) and each bidirectional formatting character
// written as its Go escape (\t, \n, \x1b, \u202e); s itself when it has
// none.
func Visible(s string) string {
	if !strings.ContainsFunc(s, Hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !Hidden(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// Message is Visible but for line breaks, which it keeps: for a message
// of several lines (an error and the advice under it) whose parts may
// hold what a file name, a dataset or a flag brought.
func Message(s string) string {
	if !strings.ContainsFunc(s, hiddenInMessage) {
		return s
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		text, brk := strings.CutSuffix(line, "\n")
		b.WriteString(Visible(text))
		if brk {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func hiddenInMessage(r rune) bool { return r != '\n' && Hidden(r) }

// Hidden reports whether r is a character Visible writes as its escape: a
// control character or a bidirectional formatting one, which a terminal
// or a page obeys rather than shows.
func Hidden(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }
