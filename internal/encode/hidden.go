package encode

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/internal/termtext"
)

// Escaped is JSON that Go's encoder wrote, or YAML whose strings holding
// such characters are double-quoted (quoteHidden), with each control or
// bidirectional formatting character the encoder left as it is (DEL, the
// C1 controls, U+202E and the other overrides and isolates) written as
// its \u escape: the same values to a parser, but a terminal shows the
// character instead of obeying it, so a record's id cannot reverse or
// hide the line it is printed on. A line break is kept: there it is the
// document's own.
func Escaped(b []byte) []byte {
	if !bytes.ContainsFunc(b, rawHidden) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r != utf8.RuneError && rawHidden(r) {
			fmt.Fprintf(&out, `\u%04X`, r)
		} else {
			out.Write(b[:n])
		}
		b = b[n:]
	}
	return out.Bytes()
}

// rawHidden is a character Escaped writes as its escape: all that
// termtext hides but a line break.
func rawHidden(r rune) bool { return r != '\n' && termtext.Hidden(r) }

// quoteHidden double-quotes each string of n that holds a character
// Escaped escapes, the one YAML style where an escape is read as one.
func quoteHidden(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && strings.ContainsFunc(n.Value, rawHidden) {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteHidden(c)
	}
}
