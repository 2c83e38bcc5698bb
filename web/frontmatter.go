package web

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/encoding/unicode"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/termtext"
)

// CorpusFile is one document of a local corpus after parsing: the metadata
// from its front matter (or, for HTML, its head) and its body as text.
type CorpusFile struct {
	// Path is the file's slash-separated path inside the corpus.
	Path string
	// URL is where the document was published; required.
	URL        string
	Title      string
	Author     string
	Published  time.Time // zero when unknown
	References int
	// Topic is free text describing the document; it is stored but not
	// searched.
	Topic string
	// Body is the document without its front matter: Markdown and text
	// as written, HTML reduced to its visible text.
	Body string
}

// ErrNoFrontMatter means a corpus file carries no metadata at all (no front
// matter, and for HTML no canonical link either), so it has no URL to cite.
// The index skips such files with a warning instead of failing:
//
//	if errors.Is(err, web.ErrNoFrontMatter) { /* skip */ }
var ErrNoFrontMatter = errors.New("no front matter with a url")

// corpusExts maps the supported file extensions to their kind.
var corpusExts = map[string]string{
	".md":       "markdown",
	".markdown": "markdown",
	".txt":      "text",
	".html":     "html",
	".htm":      "html",
}

// supportedCorpusFile reports whether name has an extension the corpus
// index reads.
func supportedCorpusFile(name string) bool {
	_, ok := corpusExts[strings.ToLower(path.Ext(name))]
	return ok
}

// ParseCorpusFile parses one corpus document. name is used for the kind
// (by extension) and in errors.
//
// Markdown and text files start with YAML front matter between two "---"
// lines:
//
//	---
//	url: https://example.org/report
//	title: A report
//	author: A. Writer
//	published: 2024-05-01
//	references: 12
//	topic: free text
//	---
//	Body...
//
// HTML files may carry the same block inside a comment at the top
// ("<!--", the block, "-->"); otherwise, and for fields the block leaves
// out, the <title>, <meta name="author">, <meta property=
// "article:published_time"> and <link rel="canonical"> of the page are used.
//
// A file is UTF-8 (a byte order mark is dropped), or UTF-16 with its
// byte order mark, as Windows PowerShell 5 writes text files.
//
// A file with no front matter (and, for HTML, no canonical link) returns
// ErrNoFrontMatter. Front matter that is present but wrong (bad YAML, a
// missing url, a date not in YYYY-MM-DD form) returns an *eval.InputError
// naming the file, line and field. Unknown fields are ignored. The name
// in an error has its control and bidirectional formatting characters
// written as escapes (termtext.Visible), since errors are printed and a
// corpus file's name is the corpus's: one holding a line break would
// otherwise print a line of its choosing.
func ParseCorpusFile(name string, data []byte) (CorpusFile, error) {
	f, err := parseCorpusFile(name, data)
	if ie, ok := errors.AsType[*eval.InputError](err); ok {
		ie.File = termtext.Visible(ie.File)
	}
	return f, err
}

func parseCorpusFile(name string, data []byte) (CorpusFile, error) {
	kind, ok := corpusExts[strings.ToLower(path.Ext(name))]
	if !ok {
		return CorpusFile{}, fmt.Errorf("%s: unsupported file type %q", termtext.Visible(name), path.Ext(name))
	}
	text := corpusNewlines(data)
	if kind == "html" {
		f, err := parseHTMLCorpusFile(name, text)
		cleanCorpusFile(&f)
		return f, err
	}
	f := CorpusFile{Path: name}
	block, blockLine, body, found, err := splitCorpusFrontMatter(name, text, 1)
	if err != nil {
		return CorpusFile{}, err
	}
	if !found {
		return CorpusFile{}, fmt.Errorf("%s: %w", termtext.Visible(name), ErrNoFrontMatter)
	}
	if err := decodeCorpusFrontMatter(name, block, blockLine, &f); err != nil {
		return CorpusFile{}, err
	}
	f.Body = strings.TrimSpace(body)
	if f.Title == "" && kind == "markdown" {
		f.Title = corpusHeading(f.Body)
	}
	cleanCorpusFile(&f)
	return f, requireCorpusURL(name, blockLine-1, &f)
}

// cleanCorpusFile removes control and bidirectional formatting characters
// from the text of f (cleanText), which search results and reports quote.
// Title, author and topic are one line each. A URL holding such characters
// is refused when read (url.Parse).
func cleanCorpusFile(f *CorpusFile) {
	for _, line := range []*string{&f.Title, &f.Author, &f.Topic} {
		*line, _ = cleanText(*line)
		*line = corpusSpaces(*line)
	}
	f.Body, _ = cleanText(f.Body)
	f.Body = strings.TrimSpace(f.Body)
}

// corpusNewlines decodes a file that starts with a UTF-16 byte order mark
// (Windows PowerShell 5 writes text files so), drops a UTF-8 byte order
// mark and turns CRLF and CR into LF, so line numbers and "---" detection
// work for files from any OS.
func corpusNewlines(data []byte) string {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		// The decoder takes the byte order from the mark and drops it; a
		// lone surrogate or an odd last byte becomes U+FFFD.
		if out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(data); err == nil {
			data = out
		}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	s := string(data)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s
}

// splitCorpusFrontMatter splits text that may start with a "---" line into the
// YAML block, the file line its first line is on, and the rest. firstLine is
// the file line text starts on. found is false when text does not start
// with "---"; an opening line with no closing "---" (or "...") is an error.
func splitCorpusFrontMatter(name, text string, firstLine int) (block string, blockLine int, rest string, found bool, err error) {
	first, after, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", 0, text, false, nil
	}
	var b strings.Builder
	line := firstLine + 1
	for rem := after; ; line++ {
		if rem == "" {
			return "", 0, "", false, &eval.InputError{File: name, Line: firstLine, Msg: `front matter opened with "---" is never closed`}
		}
		l, next, _ := strings.Cut(rem, "\n")
		if t := strings.TrimRight(l, " \t"); t == "---" || t == "..." {
			return b.String(), firstLine + 1, next, true, nil
		}
		b.WriteString(l)
		b.WriteByte('\n')
		rem = next
	}
}

// yamlErrLine finds "line N" in a YAML error message.
var yamlErrLine = regexp.MustCompile(`^line (\d+): `)

// yamlParserProblems are the messages of yaml/v3's parser errors, whose
// line numbers are 0-based (those of its scanner errors are 1-based).
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// decodeCorpusFrontMatter reads the YAML block (whose first line is file line
// blockLine) into f. Fields already set in f are overwritten only by
// non-empty values.
func decodeCorpusFrontMatter(name, block string, blockLine int, f *CorpusFile) error {
	fileLine := func(n int) int { return blockLine + n - 1 }
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		return corpusYAMLError(name, blockLine, err)
	}
	if len(doc.Content) == 0 {
		return nil // an empty block; requireURL reports the missing url
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return &eval.InputError{File: name, Line: fileLine(m.Line), Msg: "front matter must be a mapping of field: value"}
	}
	seen := map[string]int{} // field -> the block line it was first given on
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		at := v // where the value is written: an alias's place, not its anchor's
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias // "title: *name" is the value anchored as &name
		}
		field := strings.ToLower(k.Value)
		bad := func(msg string) error {
			return &eval.InputError{File: name, Line: fileLine(at.Line), Col: at.Column, Field: field, Msg: msg}
		}
		switch field {
		case "url", "title", "author", "published", "references", "topic":
		default:
			continue
		}
		// Two values for one field (url and URL too) leave which one
		// was meant to chance: the last would win unseen.
		if first, ok := seen[field]; ok {
			return &eval.InputError{File: name, Line: fileLine(k.Line), Col: k.Column, Field: field,
				Msg: fmt.Sprintf("is given twice (first on line %d)", fileLine(first))}
		}
		seen[field] = k.Line
		if v.Kind != yaml.ScalarNode {
			return bad("must be a single value, not a list or mapping")
		}
		val := strings.TrimSpace(v.Value)
		if v.Tag == "!!null" {
			val = ""
		}
		if msg := f.setFrontMatter(field, val); msg != "" {
			return bad(msg)
		}
	}
	return nil
}

// corpusYAMLError is the InputError of err, yaml's error for a front
// matter block whose first line is file line blockLine, at the file line
// it names.
func corpusYAMLError(name string, blockLine int, err error) error {
	msg, line := strings.TrimPrefix(err.Error(), "yaml: "), blockLine
	if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if yamlParserProblems[msg] {
			// yaml/v3 counts lines from 0 for parser (not scanner)
			// errors, and then names the line the construct began on.
			n++
		}
		line = blockLine + n - 1
	}
	return &eval.InputError{File: name, Line: line, Msg: "front matter is not valid YAML: " + msg, Err: err}
}

// setFrontMatter sets field (lower case, one of those front matter
// knows) of f to val, which is left unset when empty, and returns what is
// wrong with val, or "".
func (f *CorpusFile) setFrontMatter(field, val string) string {
	if val == "" {
		return ""
	}
	switch field {
	case "url":
		if strings.ContainsFunc(val, unclean) {
			return fmt.Sprintf("must not hold control or bidirectional formatting characters, got %q", val)
		}
		u, err := url.Parse(val)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("must be an absolute http(s) URL, got %q", val)
		}
		f.URL = val
	case "title":
		f.Title = val
	case "author":
		f.Author = val
	case "topic":
		f.Topic = val
	case "published":
		t, err := corpusDate(val)
		if err != nil {
			return fmt.Sprintf("must be a date in YYYY-MM-DD form, got %q", val)
		}
		f.Published = t
	case "references":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return fmt.Sprintf("must be a whole number >= 0, got %q", val)
		}
		f.References = n
	}
	return ""
}

func corpusSet(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// corpusDate accepts YYYY-MM-DD and, leniently, a full RFC 3339 time.
func corpusDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// requireCorpusURL reports a missing url at the front matter's opening line.
func requireCorpusURL(name string, line int, f *CorpusFile) error {
	if f.URL != "" {
		return nil
	}
	return &eval.InputError{File: name, Line: line, Field: "url", Msg: "is required (where the document was published, for citations)"}
}

// corpusHeading returns the text of the first ATX heading ("# Title") of a
// Markdown body, or "".
func corpusHeading(body string) string {
	for l := range strings.Lines(body) {
		t := strings.TrimSpace(l)
		if h, ok := strings.CutPrefix(t, "#"); ok {
			return strings.TrimSpace(strings.TrimLeft(h, "#"))
		}
	}
	return ""
}

// parseHTMLCorpusFile reads an HTML document: front matter in a leading
// comment, then the head's metadata for what it leaves out, and the
// visible text of the page as the body.
func parseHTMLCorpusFile(name, text string) (CorpusFile, error) {
	sc := htmlCorpusScan{name: name, text: text, f: CorpusFile{Path: name}}
	z := html.NewTokenizer(strings.NewReader(text))
	offset := 0 // bytes consumed so far, for line numbers
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		start := offset
		offset += len(z.Raw())
		if err := sc.token(tt, z.Token(), start); err != nil {
			return CorpusFile{}, err
		}
	}
	if err := z.Err(); err != nil && !errors.Is(err, io.EOF) {
		return CorpusFile{}, &eval.InputError{File: name, Msg: "cannot read HTML", Err: err}
	}
	return sc.file()
}

// htmlCorpusScan is what parseHTMLCorpusFile has read of an HTML
// document so far, token by token.
type htmlCorpusScan struct {
	name, text string
	f          CorpusFile // from the front matter
	sawContent bool       // a non-blank token before any comment front matter
	fmLine     int        // line of the comment with the front matter, 0 if none
	skipDepth  int        // inside script, style and the like
	inTitle    bool
	title      strings.Builder
	body       strings.Builder
	meta       CorpusFile // from the head, used where front matter is silent
}

// token reads tok, of type tt, which starts at byte start of the text.
func (sc *htmlCorpusScan) token(tt html.TokenType, tok html.Token, start int) error {
	switch tt {
	case html.CommentToken:
		return sc.comment(tok, start)
	case html.TextToken:
		if strings.TrimSpace(tok.Data) != "" {
			sc.sawContent = true
		}
		switch {
		case sc.inTitle:
			sc.title.WriteString(tok.Data)
		case sc.skipDepth == 0:
			sc.body.WriteString(tok.Data)
		}
	case html.StartTagToken, html.SelfClosingTagToken:
		sc.startTag(tok, tt == html.StartTagToken)
	case html.EndTagToken:
		switch tok.DataAtom {
		case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Head:
			if sc.skipDepth > 0 {
				sc.skipDepth--
			}
		case atom.Title:
			sc.inTitle = false
		}
		if corpusBlockElement[tok.DataAtom] {
			sc.body.WriteString("\n\n")
		}
	}
	return nil
}

// comment reads the front matter from comment tok, which starts at byte
// start, when it is the document's first content and holds some.
func (sc *htmlCorpusScan) comment(tok html.Token, start int) error {
	if sc.sawContent || sc.fmLine != 0 {
		return nil
	}
	sc.sawContent = true
	c := strings.TrimLeft(tok.Data, " \t\n")
	// The line the comment's content starts on: the comment's own
	// line plus any newlines before the "---".
	line := 1 + strings.Count(sc.text[:start], "\n") + strings.Count(tok.Data[:len(tok.Data)-len(c)], "\n")
	block, blockLine, _, found, err := splitCorpusFrontMatter(sc.name, c, line)
	if err != nil || !found {
		return err
	}
	sc.fmLine = line
	return decodeCorpusFrontMatter(sc.name, block, blockLine, &sc.f)
}

// startTag reads start (or self-closing, when not open) tag tok.
func (sc *htmlCorpusScan) startTag(tok html.Token, open bool) {
	sc.sawContent = true
	switch tok.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Head:
		if open {
			sc.skipDepth++
		}
	case atom.Title:
		sc.inTitle = open
	case atom.Meta:
		sc.headMeta(tok)
	case atom.Link:
		if strings.EqualFold(corpusAttr(tok, "rel"), "canonical") {
			corpusSet(&sc.meta.URL, strings.TrimSpace(corpusAttr(tok, "href")))
		}
	case atom.Body:
		sc.skipDepth = 0 // a <head> left open ends here
	case atom.Br:
		sc.body.WriteByte('\n')
	}
	if corpusBlockElement[tok.DataAtom] {
		sc.body.WriteString("\n\n")
	}
}

// headMeta reads the author or the date of publication from meta tag tok.
func (sc *htmlCorpusScan) headMeta(tok html.Token) {
	key := strings.ToLower(corpusAttr(tok, "name") + corpusAttr(tok, "property"))
	switch key {
	case "author", "article:author":
		corpusSet(&sc.meta.Author, strings.TrimSpace(corpusAttr(tok, "content")))
	case "article:published_time", "date":
		if t, err := corpusDate(strings.TrimSpace(corpusAttr(tok, "content"))); err == nil {
			sc.meta.Published = t
		}
	}
}

// file is the document read: its front matter, with the head's
// metadata where it is silent, and the page's visible text as the body.
func (sc *htmlCorpusScan) file() (CorpusFile, error) {
	f, meta := sc.f, sc.meta
	if sc.fmLine == 0 && meta.URL == "" {
		return CorpusFile{}, fmt.Errorf("%s: %w (nor a canonical link)", termtext.Visible(sc.name), ErrNoFrontMatter)
	}
	if f.URL == "" && meta.URL != "" {
		u, err := url.Parse(meta.URL)
		if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsFunc(meta.URL, unclean) {
			f.URL = meta.URL
		}
	}
	if f.Title == "" {
		f.Title = corpusSpaces(sc.title.String())
	}
	if f.Author == "" {
		f.Author = meta.Author
	}
	if f.Published.IsZero() {
		f.Published = meta.Published
	}
	f.Body = corpusTidy(sc.body.String())
	line := sc.fmLine
	if line == 0 {
		line = 1
	}
	return f, requireCorpusURL(sc.name, line, &f)
}

// corpusAttr returns the value of the attribute key of tok, or "".
func corpusAttr(tok html.Token, key string) string {
	for _, a := range tok.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

// corpusBlockElement lists the elements that break text into paragraphs.
var corpusBlockElement = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Li: true, atom.Ul: true, atom.Ol: true, atom.Tr: true, atom.Table: true,
	atom.Blockquote: true, atom.Pre: true, atom.Header: true, atom.Footer: true,
	atom.Main: true, atom.Nav: true, atom.Aside: true, atom.Figure: true, atom.Figcaption: true,
	atom.Dt: true, atom.Dd: true, atom.Hr: true,
}

// corpusSpaces joins the words of s with single spaces.
func corpusSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }

// corpusTidy collapses the spaces within each line and keeps at most one
// blank line between paragraphs.
func corpusTidy(s string) string {
	var b strings.Builder
	blank := false
	for l := range strings.Lines(s) {
		t := corpusSpaces(l)
		if t == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteString("\n\n")
		} else if b.Len() > 0 {
			b.WriteByte('\n')
		}
		blank = false
		b.WriteString(t)
	}
	return b.String()
}
