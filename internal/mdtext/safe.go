// Safe's Markdown is read with goldmark, as heuristics/reportdoc reads a
// report (CommonMark with GFM and footnotes), and only the source spans of
// the constructs it rewrites are rewritten.

package mdtext

import (
	"html"
	"slices"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// maxPasses bounds the rewrite passes. Rewriting can make new Markdown out
// of what was around the rewritten span (an HTML block turned text joins
// the paragraph after it), so Markdown parses again until nothing is left
// to rewrite; each pass escapes at least one "<" or "[", so few are needed.
const maxPasses = 32

// Safe returns src with every raw HTML block and inline tag written as
// escaped text, and every link, image or autolink whose destination has a
// scheme other than http or https (or mailto, for a link) written as its
// escaped text without the destination. A destination's scheme is read as
// a browser reads it: entities and backslash escapes decoded, tabs and line
// breaks removed, case ignored. Relative destinations are kept. When there
// is nothing to rewrite, src is returned unchanged.
func Safe(src string) string {
	for range maxPasses {
		out, changed := pass(src)
		if !changed {
			return src
		}
		src = out
	}
	// Not reached in practice; if it were, nothing in src may run.
	return blockEscaper.Replace(src)
}

// spanKey holds, in a parse's context, the source span of every inline
// node our wrapped parsers returned.
var spanKey = parser.NewContextKey()

type spans map[ast.Node][2]int

// spanned wraps an inline parser to record where each node it returns ends
// in the source (goldmark keeps only where an inline node starts).
type spanned struct {
	parser.InlineParser
}

func (s spanned) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	_, before := block.Position()
	n := s.InlineParser.Parse(parent, block, pc)
	if n != nil {
		_, after := block.Position()
		if m, ok := pc.Get(spanKey).(spans); ok {
			m[n] = [2]int{before.Start, after.Start}
		}
	}
	return n
}

// CloseBlock passes the call on to the wrapped parser, which the link
// parser needs to drop its unclosed brackets.
func (s spanned) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if c, ok := s.InlineParser.(parser.CloseBlocker); ok {
		c.CloseBlock(parent, block, pc)
	}
}

// md is goldmark with GFM and footnotes, as heuristics/reportdoc parses a
// report, its inline parsers wrapped to record spans. GFM is its four
// parts so that linkify's parser is wrapped too.
var md = sync.OnceValue(func() goldmark.Markdown {
	var inline []util.PrioritizedValue
	for _, p := range parser.DefaultInlineParsers() {
		inline = append(inline, util.Prioritized(spanned{p.Value.(parser.InlineParser)}, p.Priority))
	}
	// 999 is the priority extension.Linkify gives its parser.
	inline = append(inline, util.Prioritized(spanned{extension.NewLinkifyParser()}, 999))
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(inline...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	return goldmark.New(goldmark.WithParser(p), goldmark.WithExtensions(
		extension.Table, extension.Strikethrough, extension.TaskList, extension.Footnote))
})

type edit struct {
	start, end int
	text       string
}

// pass rewrites what one parse of src finds, and reports whether it found
// anything.
func pass(src string) (string, bool) {
	b := []byte(src)
	pc := parser.NewContext()
	found := spans{}
	pc.Set(spanKey, found)
	doc := md().Parser().Parse(text.NewReader(b), parser.WithContext(pc))
	var edits []edit
	lost := false
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		e, ok, known := rewrite(n, b, found)
		if !known {
			lost = true
			return ast.WalkStop, nil
		}
		if !ok {
			return ast.WalkContinue, nil
		}
		edits = append(edits, e...)
		return ast.WalkSkipChildren, nil
	})
	if lost {
		// A node to rewrite whose span is unknown: write it all as text.
		return blockEscaper.Replace(src), true
	}
	if len(edits) == 0 {
		return src, false
	}
	slices.SortFunc(edits, func(x, y edit) int { return x.start - y.start })
	var out strings.Builder
	out.Grow(len(src) + 16)
	at := 0
	for _, e := range edits {
		if e.start < at {
			continue // inside a span already rewritten
		}
		out.WriteString(src[at:e.start])
		out.WriteString(e.text)
		at = e.end
	}
	out.WriteString(src[at:])
	return out.String(), true
}

// rewrite returns the edits that make n safe, ok when n is rewritten (its
// children then need nothing), and known false when n must be rewritten
// but its span in the source was not recorded.
func rewrite(n ast.Node, src []byte, found spans) (edits []edit, ok, known bool) {
	switch n := n.(type) {
	case *ast.HTMLBlock:
		segs := n.Lines().Sliced(0, n.Lines().Len())
		if n.HasClosure() {
			segs = append(segs, n.ClosureLine)
		}
		return escapeSegments(segs, src), true, true
	case *ast.RawHTML:
		return escapeSegments(n.Segments.Sliced(0, n.Segments.Len()), src), true, true
	case *ast.Link:
		if allowed(n.Destination, true) {
			return nil, false, true
		}
		return asText(n, src, found)
	case *ast.Image:
		if allowed(n.Destination, false) {
			return nil, false, true
		}
		return asText(n, src, found)
	case *ast.AutoLink:
		if n.AutoLinkType == ast.AutoLinkEmail || allowed(n.URL(src), true) {
			return nil, false, true
		}
		sp, has := found[n]
		if !has {
			return nil, false, false
		}
		return []edit{{sp[0], sp[1], blockEscaper.Replace(string(src[sp[0]:sp[1]]))}}, true, true
	}
	return nil, false, true
}

// asText writes a link or image as its text (an image's alt text), escaped.
func asText(n ast.Node, src []byte, found spans) ([]edit, bool, bool) {
	sp, has := found[n]
	if !has || n.Pos() < 0 {
		return nil, false, false
	}
	var b strings.Builder
	plain(&b, n, src)
	return []edit{{n.Pos(), sp[1], inlineText(b.String())}}, true, true
}

// plain writes the text n shows, without its Markdown.
func plain(b *strings.Builder, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(util.UnescapePunctuations(c.Segment.Value(src)))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
			for i := range c.Segments.Len() {
				s := c.Segments.At(i)
				b.Write(s.Value(src))
			}
		case *ast.AutoLink:
			b.Write(c.Label(src))
		default:
			plain(b, c, src)
		}
	}
}

func escapeSegments(segs []text.Segment, src []byte) []edit {
	out := make([]edit, 0, len(segs))
	for _, s := range segs {
		out = append(out, edit{s.Start, s.Stop, blockEscaper.Replace(string(s.Value(src)))})
	}
	return out
}

// blockEscaper writes raw HTML (or a rejected autolink) as text and keeps
// its line breaks: on top of what mdtext.Text escapes, ":" so that no URL
// in it is linked again (GFM links bare URLs), and "~" so that no line of
// it opens a fenced code block. Every escaped character is ASCII
// punctuation, so a viewer shows it as it was.
var blockEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "<", `\<`, "[", `\[`, "]", `\]`, ":", `\:`, "~", `\~`,
)

// inlineText writes a rejected link's text: mdtext.Text, with ":" also
// escaped, for the same reason as blockEscaper.
func inlineText(s string) string {
	return strings.ReplaceAll(Text(s), ":", `\:`)
}

// allowed reports whether dest is relative or has the scheme http or
// https (or mailto, when mailto is true). It decodes dest as a viewer and
// a browser would before reading the scheme: backslash escapes, HTML
// entities (until none is left), then tabs and line breaks removed and
// leading controls and spaces trimmed. Anything before the first "/", "?"
// or "#" that holds a ":" is a scheme.
func allowed(dest []byte, mailto bool) bool {
	d := string(dest)
	for range 8 {
		u := html.UnescapeString(string(util.UnescapePunctuations([]byte(d))))
		if u == d {
			break
		}
		d = u
	}
	d = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, d)
	d = strings.TrimLeftFunc(d, func(r rune) bool { return r <= ' ' })
	head := d
	if i := strings.IndexAny(d, "/?#"); i >= 0 {
		head = d[:i]
	}
	colon := strings.IndexByte(head, ':')
	if colon < 0 {
		return true
	}
	switch strings.ToLower(head[:colon]) {
	case "http", "https":
		return true
	case "mailto":
		return mailto
	}
	return false
}
