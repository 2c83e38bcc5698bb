package reportdoc

import (
	"bytes"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/internal/lex"
	"github.com/assaylabs/assay/heuristics/internal/thai"
	"github.com/assaylabs/assay/internal/textseg"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Report is a Markdown report parsed for scoring. Build one with
// Parse; the zero value is an empty report.
type Report struct {
	// Title is the text of the first level-1 heading, if any.
	Title string
	// Sections are the headings in document order.
	Sections []Section
	// Sentences are every sentence of the body, claims or not.
	Sentences []Sentence
	// Paragraphs are the body's paragraphs and list items as plain text,
	// with the section they sit in.
	Paragraphs []Paragraph
	// References maps a numbered reference or footnote label ("1") to the
	// URL its entry names ("" when the entry has no URL).
	References map[string]string
	// SourceURLs are the URLs listed in the Sources section, in order.
	SourceURLs []string
	// Dangling are citation labels that resolve to no entry ("[7]").
	Dangling []string
}

// Section is one heading of a report.
type Section struct {
	// Level is 1-6 for a Markdown heading, BoldHeadingLevel for a
	// paragraph of bold text standing as one.
	Level int
	Title string
	Line  int
	// Sources is true for the Sources or References section.
	Sources bool
}

// Paragraph is one paragraph or list item of the body, as plain text.
type Paragraph struct {
	Text    string
	Section string
	Line    int
}

// Sentence is one sentence of the body with the citations it carries.
type Sentence struct {
	Text string
	// Prose is Text without its citation markers and bare URLs ("[1]",
	// "[^a]", "https://..."): the words a reader reads.
	Prose     string
	Line      int
	Section   string
	Claim     bool
	Citations []eval.Citation
	// Row is true for a table row, its cells joined by " | ": one claim,
	// not prose (Clarity does not read it as a sentence).
	Row bool
}

// HasHeading reports whether the report has a Markdown heading (a bold
// paragraph standing as one does not count).
func (r *Report) HasHeading() bool {
	for _, s := range r.Sections {
		if s.Level < BoldHeadingLevel {
			return true
		}
	}
	return false
}

// Cited reports whether the sentence carries a citation that resolves: to
// an http(s) URL that names a host (a link to "https:///x" or one with a
// control character in it points nowhere and cites nothing).
func (s Sentence) Cited() bool {
	for _, c := range s.Citations {
		if c.Kind == eval.CiteNumbered || c.Kind == eval.CiteFootnote {
			return true // only resolved ones are attached
		}
		if usableURL(c.URL) {
			return true
		}
	}
	return false
}

// usableURL reports whether u is an http(s) URL that parses and names a
// host.
func usableURL(u string) bool {
	if !isWebURL(u) {
		return false
	}
	p, err := url.Parse(u)
	return err == nil && strings.Trim(p.Hostname(), ".") != ""
}

// Quoted reports whether the sentence carries a citation that resolves and
// is more than a bare link: seed 000's [text](url "quote"), a numbered
// reference or a footnote (which name an entry of the report's sources).
func (s Sentence) Quoted() bool {
	for _, c := range s.Citations {
		switch c.Kind {
		case eval.CiteNumbered, eval.CiteFootnote:
			return true // only resolved ones are attached
		case eval.CiteInline:
			if usableURL(c.URL) && strings.TrimSpace(c.Quote) != "" {
				return true
			}
		}
	}
	return false
}

// Claims returns the report's claims with their verdicts in document
// order: cited (Quoted), cited without quote (Cited, by links without
// their quote only) or uncited.
func (r *Report) Claims() []eval.Claim {
	var out []eval.Claim
	for _, s := range r.Sentences {
		if !s.Claim {
			continue
		}
		v := eval.VerdictUncited
		switch {
		case s.Quoted():
			v = eval.VerdictCited
		case s.Cited():
			v = eval.VerdictCitedNoQuote
		}
		out = append(out, eval.Claim{Text: s.Text, Line: s.Line, Section: s.Section, Verdict: v, Citations: s.Citations})
	}
	return out
}

// CitedURLs returns the http(s) URLs cited by the body, in order of first
// appearance, without normalisation or de-duplication.
func (r *Report) CitedURLs() []string {
	var out []string
	for _, s := range r.Sentences {
		for _, c := range s.Citations {
			if isWebURL(c.URL) {
				out = append(out, c.URL)
			}
		}
	}
	return out
}

// md is the Markdown parser, built on first use, not at start-up.
var md = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote))
})

// Parse parses a Markdown report. It never fails: any byte sequence is
// some Markdown, and invalid UTF-8 is read as replacement characters.
func Parse(src []byte) *Report {
	src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	doc := md().Parser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext()))
	p := &reportParser{src: src, lines: lineStarts(src), r: &Report{References: map[string]string{}}}
	p.collectFootnotes(doc)
	p.walkBlocks(doc)
	for _, para := range p.pending {
		p.section = para.section
		if t, ok := para.node.(*east.Table); ok {
			p.table(t)
			continue
		}
		p.paragraph(para.node)
	}
	p.r.Dangling = dedupe(p.r.Dangling)
	return p.r
}

type reportParser struct {
	src   []byte
	lines []int
	r     *Report

	footnoteRef map[int]string // footnote index -> label
	section     string
	level       int  // level of the heading that opened the Sources section
	inSources   bool // inside the Sources/References section
	// pending are the body's paragraphs, read once every reference entry
	// is known (the Sources list usually comes last).
	pending []pendingParagraph
}

type pendingParagraph struct {
	node    ast.Node
	section string
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOf returns the 1-based line of a byte offset.
func (p *reportParser) lineOf(off int) int {
	return sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > off })
}

func (p *reportParser) blockLine(n ast.Node) int {
	for c := n; c != nil; c = c.FirstChild() {
		if c.Type() == ast.TypeBlock {
			if l := c.Lines(); l != nil && l.Len() > 0 {
				return p.lineOf(l.At(0).Start)
			}
		} else if t, ok := c.(*ast.Text); ok {
			return p.lineOf(t.Segment.Start)
		}
	}
	return 0
}

// collectFootnotes records every footnote definition's label and first URL.
func (p *reportParser) collectFootnotes(doc ast.Node) {
	p.footnoteRef = map[int]string{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if f, ok := n.(*east.Footnote); ok {
			label := string(f.Ref)
			p.footnoteRef[f.Index] = label
			p.r.References["^"+label] = firstURL(f, p.src)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

func (p *reportParser) walkBlocks(parent ast.Node) {
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			p.heading(strings.TrimSpace(plainText(n, p.src)), n.Level, n)
		case *ast.List:
			if p.inSources {
				p.sourceList(n)
				continue
			}
			p.walkBlocks(n)
		case *ast.ListItem:
			p.walkBlocks(n)
		case *ast.Paragraph, *ast.TextBlock:
			if title, ok := p.boldHeading(n); ok {
				p.heading(title, BoldHeadingLevel, n)
				continue
			}
			if p.inSources {
				p.sourceParagraph(n)
				continue
			}
			p.pending = append(p.pending, pendingParagraph{n, p.section})
		case *east.Table:
			if p.inSources {
				p.sourceTable(n)
				continue
			}
			p.pending = append(p.pending, pendingParagraph{n, p.section})
		case *ast.Blockquote, *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.ThematicBreak,
			*east.FootnoteList:
			continue
		default:
			p.walkBlocks(n)
		}
	}
}

// heading opens a section: title at level (1-6, or BoldHeadingLevel).
func (p *reportParser) heading(title string, level int, n ast.Node) {
	if p.inSources && level <= p.level {
		p.inSources = false
	}
	src := isSourcesHeading(title)
	if src && !p.inSources {
		p.inSources, p.level = true, level
	}
	if level == 1 && p.r.Title == "" {
		p.r.Title = title
	}
	p.section = title
	p.r.Sections = append(p.r.Sections, Section{Level: level, Title: title, Line: p.blockLine(n), Sources: src})
}

// BoldHeadingLevel is the level of a paragraph of bold text standing as a
// heading ("**Sources**"): below every Markdown heading, so "**Primary**"
// inside a "## Sources" section does not end it.
const BoldHeadingLevel = 7

// maxBoldHeadingWords is the most words a bold paragraph may have to be
// read as a heading.
const maxBoldHeadingWords = 8

// boldHeading reports whether n is a paragraph of the document (not of a
// list or quote) that is one run of bold text, with at most a colon after
// it, of a few words that do not end in a full stop ("**Main Findings**",
// "**Sources:**"), and returns its title. A bold sentence stays a claim.
func (p *reportParser) boldHeading(n ast.Node) (string, bool) {
	if _, ok := n.(*ast.Paragraph); !ok || n.Parent() == nil || n.Parent().Kind() != ast.KindDocument {
		return "", false
	}
	var strong *ast.Emphasis
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Emphasis:
			if strong != nil || c.Level != 2 {
				return "", false
			}
			strong = c
		case *ast.Text:
			if t := strings.TrimSpace(string(c.Segment.Value(p.src))); t != "" && t != ":" {
				return "", false
			}
		default:
			return "", false
		}
	}
	if strong == nil {
		return "", false
	}
	title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(plainText(strong, p.src)), ":："))
	words := len(strings.Fields(title))
	if words == 0 || words > maxBoldHeadingWords || lex.EndsWith(title, ".!?。！？") {
		return "", false
	}
	return title, true
}

// sourceList reads the entries of the Sources list: the Nth item of an
// ordered list is reference N (from the list's start number); an item that
// opens with "[N]" is reference N, and so is a bulleted item that opens
// with "N.", "N)" or "(N)".
func (p *reportParser) sourceList(l *ast.List) {
	i := 0
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		u := firstURL(it, p.src)
		if u != "" {
			p.r.SourceURLs = append(p.r.SourceURLs, u)
		}
		label := ""
		text := plainText(it, p.src)
		if m := leadingLabel.FindStringSubmatch(text); m != nil {
			label = refLabel(m[1])
		} else if m := bulletNumber.FindStringSubmatch(text); m != nil && !l.IsOrdered() {
			label = refLabel(m[1] + m[2]) // "- (3) ..."
		} else if inner, ok := it.FirstChild().(*ast.List); ok && inner.IsOrdered() && !l.IsOrdered() {
			label = strconv.Itoa(inner.Start) // "- 3. https://...": a list inside the bullet
		} else if l.IsOrdered() {
			label = strconv.Itoa(l.Start + i)
		}
		if label != "" {
			p.r.References[label] = u
		}
		i++
	}
}

// sourceTable reads the rows of a Sources table: each row's first URL is a
// listed source, and reference N when its first cell is "N" or "[N]".
func (p *reportParser) sourceTable(t *east.Table) {
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		if _, body := row.(*east.TableRow); !body {
			continue
		}
		u := firstURL(row, p.src)
		if u != "" {
			p.r.SourceURLs = append(p.r.SourceURLs, u)
		}
		if first := row.FirstChild(); first != nil {
			if label := strings.Trim(strings.TrimSpace(plainText(first, p.src)), "[]."); isDigits(label) {
				p.r.References[refLabel(label)] = u
			}
		}
	}
}

// sourceParagraph reads "[N] ...", "N. ...", "N) ..." and "(N) ..." lines
// written as a plain paragraph: lines numbered in Thai digits ("๑. ...")
// are no Markdown list, nor are "2. ..." lines that follow a line of text.
func (p *reportParser) sourceParagraph(n ast.Node) {
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := string(seg.Value(p.src))
		u := rawURL.FindString(line)
		if u != "" {
			p.r.SourceURLs = append(p.r.SourceURLs, trimURL(u))
		}
		if m := leadingLabel.FindStringSubmatch(line); m != nil {
			p.r.References[refLabel(m[1])] = trimURL(u)
		} else if m := bulletNumber.FindStringSubmatch(line); m != nil {
			p.r.References[refLabel(m[1]+m[2])] = trimURL(u)
		}
	}
	// Links inside the paragraph count as listed sources too.
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := c.(*ast.Link); entering && ok && isWebURL(string(l.Destination)) {
			if !slices.Contains(p.r.SourceURLs, string(l.Destination)) {
				p.r.SourceURLs = append(p.r.SourceURLs, string(l.Destination))
			}
		}
		return ast.WalkContinue, nil
	})
}

var (
	leadingLabel = regexp.MustCompile(`^\s*\[([0-9๐-๙]{1,4})\]`)
	// bulletNumber is a number that opens a bulleted Sources entry or a
	// line of a Sources paragraph: "(3) ", or "3. " in Thai digits (in
	// ASCII digits goldmark reads it as an ordered list inside the bullet).
	bulletNumber = regexp.MustCompile(`^\s*(?:\(([0-9๐-๙]{1,4})\)|([0-9๐-๙]{1,4})[.)])\s`)
	rawURL       = regexp.MustCompile(`https?://[^\s<>"']+`)
	// bracketRef is compiled on first use: its counted repeats make a
	// large program, unlike the two above.
	bracketRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\[(\^?)([0-9๐-๙]{1,4}|[^\]\s]{1,40})\]`)
	})
	// bracketGroup is a marker citing several numbered entries at once:
	// "[1, 3]", "[2; 5]", "[1-3]", "[1–3, 7]".
	bracketGroup = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\[[0-9๐-๙]{1,4}(?:[ \t]*[,;\-–—][ \t]*[0-9๐-๙]{1,4}){1,40}\]`)
	})
)

// maxGroupRange is the widest range a group marker may span ("[1-20]"); a
// wider one ("[1-9999]") is not read as a citation of every entry.
const maxGroupRange = 50

// groupLabels are the entry numbers a group marker names, in order, each
// once: "[1-3, 7]" -> 1 2 3 7. ok is false for a range that runs backwards
// or wider than maxGroupRange.
func groupLabels(marker string) (labels []string, ok bool) {
	inner := refLabel(strings.Trim(marker, "[]"))
	seen := map[int]bool{}
	for _, item := range strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == ';' }) {
		lo, hi, found := strings.Cut(item, "-")
		if !found {
			lo, hi, found = strings.Cut(strings.ReplaceAll(item, "—", "–"), "–")
		}
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, false
		}
		b := a
		if found {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a || b-a > maxGroupRange {
				return nil, false
			}
		}
		for n := a; n <= b; n++ {
			if !seen[n] {
				seen[n] = true
				labels = append(labels, strconv.Itoa(n))
			}
		}
	}
	return labels, len(labels) > 0
}

func trimURL(u string) string { return strings.TrimRight(u, ".,;:)]") }

// firstURL returns the first http(s) URL inside a node: a link destination,
// an autolink, or a bare URL in its text.
func firstURL(n ast.Node, src []byte) string {
	found := ""
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || found != "" {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Link:
			if isWebURL(string(c.Destination)) {
				found = string(c.Destination)
			}
		case *ast.AutoLink:
			if u := autoLinkURL(c, src); isWebURL(u) {
				found = u
			}
		case *ast.Text:
			if u := rawURL.FindString(string(c.Segment.Value(src))); u != "" {
				found = trimURL(u)
			}
		}
		return ast.WalkContinue, nil
	})
	return found
}

func autoLinkURL(a *ast.AutoLink, src []byte) string {
	u := string(a.URL(src))
	if strings.HasPrefix(strings.ToLower(u), "www.") {
		u = "http://" + u
	}
	return u
}

func isWebURL(u string) bool {
	l := strings.ToLower(u)
	return (strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")) && len(u) > len("https://")
}

// sourcesHeadings are the headings that open the Sources section.
var sourcesHeadings = []string{
	"sources", "references", "bibliography", "citations", "works cited", "further reading", "sources and references", "reference list", "source list",
	// Thai: sources, references, documents referred to, bibliography,
	// list of references, and "sources and references".
	"แหล่งที่มา", "ที่มา", "แหล่งข้อมูล", "แหล่งอ้างอิง", "อ้างอิง", "เอกสารอ้างอิง", "รายการอ้างอิง",
	"บรรณานุกรม", "แหล่งที่มาและเอกสารอ้างอิง", "แหล่งที่มาและอ้างอิง", "ที่มาและอ้างอิง",
}

// sourceWords name a list of sources; sourceJoiners may stand beside them
// in such a heading ("Sources & References", "Notes and References",
// "List of Sources"), where no other word may ("Sources of heat loss" is a
// topic).
var (
	sourceWords   = []string{"source", "sources", "reference", "references", "bibliography", "citations"}
	sourceJoiners = []string{"and", "of", "cited", "consulted", "used", "further", "reading", "list", "notes", "key", "links",
		"works", "primary", "secondary", "additional", "other", "selected", "all"}
)

func isSourcesHeading(title string) bool {
	t := NormalizeHeading(title)
	if slices.Contains(sourcesHeadings, t) {
		return true
	}
	core := false
	for _, w := range strings.Fields(t) {
		switch {
		case slices.Contains(sourceWords, w):
			core = true
		case !slices.Contains(sourceJoiners, w):
			return false
		}
	}
	return core
}

// NormalizeHeading lower-cases a heading and drops numbering, emoji and
// punctuation: "## 5. Sources:" -> "sources".
func NormalizeHeading(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.In(r, unicode.Mn, unicode.Mc): // Thai vowels and tones are marks
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == '-' || r == '&' || r == '/':
			b.WriteByte(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// plainText is a node's text without markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.Label(src))
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tt, ok := t.(*ast.Text); ok {
					b.Write(tt.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		if c.Type() == ast.TypeBlock && c.PreviousSibling() != nil {
			b.WriteByte(' ')
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// span is a range of the flattened paragraph text that no sentence boundary
// may cut: a link's text, a code span, a citation marker.
type span struct {
	start, end int
	kind       spanKind
}

type spanKind int

const (
	spanLink   spanKind = iota // a link's text: prose, but not splittable
	spanCode                   // a code span
	spanMarker                 // a citation marker or bare URL: not prose
)

// mark is a citation anchored at an offset of the flattened text.
type mark struct {
	at   int
	cite eval.Citation
	// bare is true for markers that carry no prose ([1], [^1], autolinks):
	// at the start of a sentence they belong to the sentence before.
	bare bool
	// group holds the citations of a marker naming several entries
	// ("[1-3]") instead of cite; markers written alike share one slice.
	group []eval.Citation
}

// citeSink gives marks' citations to sentences: a group's citations go to
// a sentence once each, however many group markers name them, so that a
// run of "[1-50]" costs no more than the entries it names.
type citeSink struct {
	seen map[int]map[string]bool // sentence index -> refs given by groups
}

func (cs *citeSink) add(dst []eval.Citation, sentence int, m mark) []eval.Citation {
	if m.group == nil {
		return append(dst, m.cite)
	}
	if cs.seen == nil {
		cs.seen = map[int]map[string]bool{}
	}
	set := cs.seen[sentence]
	if set == nil {
		set = map[string]bool{}
		cs.seen[sentence] = set
	}
	for _, c := range m.group {
		if !set[c.Ref] {
			set[c.Ref] = true
			dst = append(dst, c)
		}
	}
	return dst
}

// origin maps an offset of the flattened text back to the source.
type origin struct{ flat, src int }

type flattener struct {
	p     *reportParser
	b     strings.Builder
	spans []span
	marks []mark
	// dangling are the markers that name no entry: no citation, but
	// where a sentence may end.
	dangling []mark
	origins  []origin
}

func (f *flattener) write(s string, srcOff int) {
	if srcOff >= 0 {
		f.origins = append(f.origins, origin{f.b.Len(), srcOff})
	}
	f.b.WriteString(s)
}

func (f *flattener) inline(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			f.write(string(c.Segment.Value(f.p.src)), c.Segment.Start)
			if c.SoftLineBreak() || c.HardLineBreak() {
				f.write(" ", -1)
			}
		case *ast.String:
			f.write(string(c.Value), -1)
		case *ast.CodeSpan:
			start := f.b.Len()
			f.write("`", -1)
			f.inline(c)
			f.write("`", -1)
			f.spans = append(f.spans, span{start, f.b.Len(), spanCode})
		case *ast.Link:
			start := f.b.Len()
			f.inline(c)
			end := f.b.Len()
			dest := string(c.Destination)
			kind := spanLink
			if isDigits(strings.Trim(f.b.String()[start:end], "[]")) {
				kind = spanMarker
			}
			f.spans = append(f.spans, span{start, end, kind})
			if !isWebURL(dest) {
				continue
			}
			linkText := f.b.String()[start:end]
			ck := eval.CiteLink
			switch {
			case kind == spanMarker:
				ck = eval.CiteNumbered
			case len(c.Title) > 0:
				ck = eval.CiteInline
			}
			cite := eval.Citation{Kind: ck, Text: linkText, URL: dest, Quote: string(c.Title)}
			if ck == eval.CiteNumbered {
				cite.Ref = refLabel(strings.Trim(linkText, "[]"))
			}
			f.marks = append(f.marks, mark{at: start, cite: cite, bare: ck == eval.CiteNumbered})
		case *ast.AutoLink:
			start := f.b.Len()
			u := autoLinkURL(c, f.p.src)
			f.write(string(c.Label(f.p.src)), -1)
			f.spans = append(f.spans, span{start, f.b.Len(), spanMarker})
			if isWebURL(u) {
				f.marks = append(f.marks, mark{at: start, cite: eval.Citation{Kind: eval.CiteLink, URL: u, Text: u}, bare: true})
			}
		case *east.FootnoteLink:
			label := f.p.footnoteRef[c.Index]
			start := f.b.Len()
			f.write("[^"+label+"]", -1)
			f.spans = append(f.spans, span{start, f.b.Len(), spanMarker})
			f.marks = append(f.marks, mark{at: start, cite: eval.Citation{Kind: eval.CiteFootnote, Ref: label, URL: f.p.r.References["^"+label]}, bare: true})
		case *ast.Image, *ast.RawHTML, *east.TaskCheckBox:
			continue
		default:
			f.inline(c)
		}
	}
}

// bracketRefs finds "[1]" and "[^x]" markers left as text (goldmark keeps
// them as text when no definition exists) and resolves the numbered ones
// against the Sources list.
func (f *flattener) bracketRefs(s string) {
	f.bracketGroups(s)
	inline := newSpanSet(f.spans) // the spans of links, code and markers, where brackets are no reference
	for _, m := range bracketRef().FindAllStringSubmatchIndex(s, -1) {
		start, end := m[0], m[1]
		if inline.covers(start) {
			continue
		}
		foot := m[3] > m[2]
		label := s[m[4]:m[5]]
		if !foot && !isDigits(label) {
			continue
		}
		f.spans = append(f.spans, span{start, end, spanMarker})
		key := refLabel(label)
		kind := eval.CiteNumbered
		if foot {
			key, kind = "^"+label, eval.CiteFootnote
		} else {
			label = key
		}
		u, ok := f.p.r.References[key]
		if !ok {
			f.p.r.Dangling = append(f.p.r.Dangling, s[start:end])
			// It cites nothing, yet it is written as a citation: it
			// still ends a Thai sentence as one would.
			f.dangling = append(f.dangling, mark{at: start, bare: true})
			continue
		}
		f.marks = append(f.marks, mark{at: start, cite: eval.Citation{Kind: kind, Ref: label, URL: u}, bare: true})
	}
}

// bracketGroups finds markers that cite several numbered entries ("[1, 3]",
// "[1-3]") and resolves each number against the Sources list; a number with
// no entry is dangling, as "[9]" alone would be.
func (f *flattener) bracketGroups(s string) {
	inline := newSpanSet(f.spans)
	shared := map[string][]eval.Citation{} // the citations of each group, by its labels
	for _, m := range bracketGroup().FindAllStringIndex(s, -1) {
		start, end := m[0], m[1]
		if inline.covers(start) {
			continue
		}
		labels, ok := groupLabels(s[start:end])
		if !ok {
			continue
		}
		f.spans = append(f.spans, span{start, end, spanMarker})
		key := strings.Join(labels, ",")
		group, done := shared[key]
		var missing []string
		for _, label := range labels {
			u, found := f.p.r.References[label]
			if !found {
				missing = append(missing, "["+label+"]")
			} else if !done {
				group = append(group, eval.Citation{Kind: eval.CiteNumbered, Ref: label, URL: u})
			}
		}
		shared[key] = group
		if len(group) > 0 {
			f.marks = append(f.marks, mark{at: start, bare: true, group: group})
		}
		if len(missing) == len(labels) {
			// It names no entry at all: one dangling marker, as written.
			f.p.r.Dangling = append(f.p.r.Dangling, s[start:end])
			f.dangling = append(f.dangling, mark{at: start, bare: true})
			continue
		}
		f.p.r.Dangling = append(f.p.r.Dangling, missing...)
	}
}

func (f *flattener) srcOffset(flat int) int {
	i := sort.Search(len(f.origins), func(i int) bool { return f.origins[i].flat > flat }) - 1
	if i < 0 {
		return -1
	}
	return f.origins[i].src + (flat - f.origins[i].flat)
}

func (p *reportParser) paragraph(n ast.Node) {
	f := &flattener{p: p}
	f.inline(n)
	s := f.b.String()
	f.bracketRefs(s)
	sort.SliceStable(f.marks, func(i, j int) bool { return f.marks[i].at < f.marks[j].at })
	spans := newSpanSet(f.spans)
	line := p.blockLine(n)
	if strings.TrimSpace(s) == "" {
		return
	}
	p.r.Paragraphs = append(p.r.Paragraphs, Paragraph{Text: strings.TrimSpace(s), Section: p.section, Line: line})

	bounds := splitSentences(s, spans)
	if thai.HasThai(s) {
		stops := append(slices.Clone(f.marks), f.dangling...)
		bounds = append(thaiCitationStops(s, spans, stops, bounds[:len(bounds)-1]), len(s))
	}
	first := len(p.r.Sentences)
	next := 0 // the first mark not yet given to a sentence: marks and bounds both ascend
	var sink citeSink
	for i := 0; i+1 < len(bounds); i++ {
		start, end := bounds[i], bounds[i+1]
		var cites []eval.Citation
		leadingBare := true
		for next < len(f.marks) && f.marks[next].at < start {
			next++
		}
		for ; next < len(f.marks) && f.marks[next].at < end; next++ {
			m := f.marks[next]
			// Bare markers before any prose of this sentence belong to the
			// sentence before it ("... grew.[1] Next ...").
			if leadingBare && m.bare && len(p.r.Sentences) > first && onlyMarkup(s[start:m.at]) {
				prev := &p.r.Sentences[len(p.r.Sentences)-1]
				prev.Citations = sink.add(prev.Citations, len(p.r.Sentences)-1, m)
				continue
			}
			leadingBare = false
			cites = sink.add(cites, len(p.r.Sentences), m)
		}
		body := strings.TrimSpace(s[start:end])
		if !hasProse(spans.strip(s, start, end, spanMarker, spanLink)) {
			// A sentence made only of citations belongs to the one before.
			if len(p.r.Sentences) > first {
				prev := &p.r.Sentences[len(p.r.Sentences)-1]
				prev.Citations = append(prev.Citations, cites...)
				continue
			}
		}
		sl := line
		if off := f.srcOffset(start + leadingSpace(s[start:end])); off >= 0 {
			sl = p.lineOf(off)
		}
		p.r.Sentences = append(p.r.Sentences, Sentence{
			Text: body, Prose: strings.TrimSpace(spans.strip(s, start, end, spanMarker)), Line: sl, Section: p.section, Citations: cites,
			Claim: isClaim(spans.strip(s, start, spans.trimClosingLinks(s, start, end), spanMarker), body),
		})
	}
}

// table reads the body rows of a table, each as one sentence: a claim
// when at least two of its cells hold text (a subject and what is said of
// it), cited by any citation in its cells. The header row names columns
// and is no claim.
func (p *reportParser) table(t *east.Table) {
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		if _, body := row.(*east.TableRow); !body {
			continue
		}
		f := &flattener{p: p}
		var cells [][2]int
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			if cell != row.FirstChild() {
				f.write(" | ", -1)
			}
			start := f.b.Len()
			f.inline(cell)
			cells = append(cells, [2]int{start, f.b.Len()})
		}
		s := f.b.String()
		f.bracketRefs(s)
		sort.SliceStable(f.marks, func(i, j int) bool { return f.marks[i].at < f.marks[j].at })
		spans := newSpanSet(f.spans)
		filled := 0
		for _, c := range cells {
			if hasProse(spans.strip(s, c[0], c[1], spanMarker)) {
				filled++
			}
		}
		if filled == 0 {
			continue
		}
		var cites []eval.Citation
		var sink citeSink
		for _, m := range f.marks {
			cites = sink.add(cites, 0, m)
		}
		line := 0
		if off := f.srcOffset(0); off >= 0 {
			line = p.lineOf(off)
		}
		p.r.Sentences = append(p.r.Sentences, Sentence{
			Text: strings.TrimSpace(s), Line: line, Section: p.section, Citations: cites, Row: true, Claim: filled >= 2,
		})
	}
}

func leadingSpace(s string) int { return len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace)) }

// onlyMarkup reports whether s holds no letters or digits.
func onlyMarkup(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

func hasProse(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// isDigits reports whether s is a number written in ASCII or Thai
// digits (๐-๙), as a reference's label may be.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && !textseg.IsThaiDigit(r) {
			return false
		}
	}
	return true
}

// refLabel is a reference's label with its Thai digits written in ASCII,
// so "[๓]" and "[3]" name the same entry of the Sources list.
func refLabel(s string) string { return textseg.ASCIIDigits(s) }

// MinClaimWords is the fewest words a sentence needs to state a claim.
const MinClaimWords = 3

var metaOpeners = []string{"this report", "in this report", "this section", "the following section", "below we", "this document", "this analysis",
	// the same in Thai: this report, in this report, this section, in this
	// section, the following section, this document, this article, this
	// analysis
	"รายงานนี้", "ในรายงานนี้", "ส่วนนี้", "ในส่วนนี้", "ส่วนต่อไปนี้", "เอกสารนี้", "บทความนี้", "การวิเคราะห์นี้"}

// isClaim applies the claim rule of the package doc to one sentence; prose
// is the sentence without citation markers.
func isClaim(prose, body string) bool {
	p := strings.TrimSpace(prose)
	p = strings.TrimRight(p, " \t*_\"'”’)")
	if lex.EndsWith(p, "?？:：") {
		return false
	}
	if !lex.Default().HasWords(p, MinClaimWords) && !shortFact(p) {
		return false
	}
	low := strings.ToLower(strings.TrimLeft(body, " *_>#-"))
	for _, m := range metaOpeners {
		if strings.HasPrefix(low, m) {
			return false
		}
	}
	return true
}

// shortFact reports whether a sentence of two words states a fact: a word
// and a quantity ("Capacity: 86%", "COP 2.0", "Founded 1998", "Staff: 40";
// not "Step 3" or "Table 2", which label), or two words, neither a stop
// word, closed by a full stop ("Sales fell.", not "Thank you.").
func shortFact(p string) bool {
	ws := lex.Default().Words(p)
	if len(ws) != 2 {
		return false
	}
	var word, num string
	for _, w := range ws {
		switch {
		case isNumber(w):
			num = w
		case lex.Default().IsStop(strings.ToLower(w)):
			return false
		default:
			word = w
		}
	}
	switch {
	case word != "" && num != "":
		return isQuantity(p, num)
	case num == "":
		return lex.EndsWith(p, ".!。！")
	}
	return false
}

// isQuantity reports whether the number num of the short sentence p is a
// quantity rather than a label's index: a decimal, a percentage, four
// digits or more (a year, an amount), a number with a currency sign or a
// unit beside it, or any number given as a label's value ("Staff: 40").
func isQuantity(p, num string) bool {
	digits := 0
	for _, r := range num {
		if unicode.IsDigit(r) {
			digits++
		}
	}
	switch {
	case strings.ContainsAny(num, ".%,") || digits >= 4:
		return true
	case strings.ContainsAny(p, ":=$€£¥฿"):
		return true
	}
	return false
}

// isNumber reports whether the word w is a number: digits, with decimal
// or thousands separators and a percent sign ("86%", "2.0", "1,200").
func isNumber(w string) bool {
	return strings.ContainsFunc(w, unicode.IsDigit) && !strings.ContainsFunc(w, func(r rune) bool {
		return !unicode.IsDigit(r) && r != '.' && r != ',' && r != '%'
	})
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
