// Package mdtext keeps what Assay does not trust inert in the Markdown it
// writes. Text and URL write untrusted text (a source's sentences and
// title, a report's claims and URLs) so that it shows as the text it is
// and cannot open raw HTML, a link, an image or a block of its own. Safe
// takes Markdown someone else wrote (a model that may have read a
// prompt-injected source): raw HTML shows as the text it is, and a link or
// image whose destination is not a web address keeps its text and loses
// its destination; everything else is left byte for byte.
package mdtext

import (
	"strings"

	"github.com/assaylabs/assay/internal/termtext"
)

// textEscaper backslash-escapes the characters that open raw HTML ("<"),
// links, images and link reference definitions ("[", "]"), code spans
// ("`"), and the backslash itself, so that an escape already in the text
// cannot undo ours. Line breaks become spaces: a line of the text cannot
// start a heading, list, quote or HTML block.
var textEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "<", `\<`, "[", `\[`, "]", `\]`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// Text returns s escaped for Markdown inline text: a paragraph, a list
// item, a heading or a link's text. A control or bidirectional formatting
// character other than a tab or a line break (an escape sequence's ESC, a
// bell) is written as its Go escape, so a terminal showing the Markdown
// obeys nothing. Other characters are left as they are, so emphasis and
// entities still render, but nothing in s can run or link.
func Text(s string) string {
	if strings.ContainsFunc(s, hiddenInText) {
		var b strings.Builder
		for _, r := range s {
			if hiddenInText(r) {
				b.WriteString(termtext.Visible(string(r)))
			} else {
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	return textEscaper.Replace(s)
}

// hiddenInText is termtext.Hidden but for the tab, which Markdown shows
// as space, and line breaks, which Text turns into spaces.
func hiddenInText(r rune) bool {
	return r != '\t' && r != '\n' && r != '\r' && termtext.Hidden(r)
}

// cellEscaper is textEscaper for a table's cell: a "|" would end it.
var cellEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "<", `\<`, "[", `\[`, "]", `\]`, "|", `\|`,
)

// Cell returns s escaped for a cell of a Markdown table that a terminal
// shows as well: a control character (a line break, an escape
// sequence's ESC) is written as its Go escape (termtext.Visible), so the
// row stays on its line and the terminal obeys nothing, and a "|" cannot
// end the cell; nothing in s can run or link, as with Text.
func Cell(s string) string {
	return cellEscaper.Replace(termtext.Visible(s))
}

// URL returns an absolute URL ready to print in Markdown, bare or as a
// link's destination: every byte a URL may not hold as it is (controls,
// space, `"`, "<", ">", "\", "^", "`", "{", "|", "}", and "[" or "]" after
// the host) is percent-encoded, which names the same address. A URL that
// needs no change is returned unchanged.
func URL(u string) string {
	rest := 0
	if i := strings.Index(u, "://"); i >= 0 {
		rest = i + 3
		if j := strings.IndexAny(u[rest:], "/?#"); j >= 0 {
			rest += j
		} else {
			rest = len(u)
		}
	}
	var b strings.Builder
	started := false
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c <= ' ' || c == 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 || (i >= rest && (c == '[' || c == ']')) {
			if !started {
				started = true
				b.Grow(len(u) + 8)
				b.WriteString(u[:i])
			}
			const hex = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		if started {
			b.WriteByte(c)
		}
	}
	if !started {
		return u
	}
	return b.String()
}
