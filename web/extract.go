package web

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// ErrNoContent means a page parsed but had no main content to keep: an empty
// body, a page of navigation only, or an empty text file. Test with
// errors.Is(err, web.ErrNoContent).
var ErrNoContent = errors.New("no main content")

// Notes Extract records in Document.Notes.
const noteRepairedUTF8 = "invalid UTF-8 repaired"

// Extract turns a page body into a Document whose Text is the Markdown of the
// main content. HTML (text/html, application/xhtml+xml) goes through
// readability, which drops navigation, ads and boilerplate, and the result is
// converted to Markdown; title, byline and publication time come from
// readability, or else from <title>, <meta name="author"> and
// article:published_time. text/plain and text/markdown pass through.
//
// The body is decoded to UTF-8 using the charset the page declares (a byte
// order mark, the contentType's charset parameter, or an HTML <meta>
// declaration); without one it is taken as UTF-8 and invalid bytes are
// replaced with U+FFFD. Either repair is recorded in Document.Notes.
//
// An empty result is ErrNoContent; another media type is an error. Extract
// does not fetch; pageURL resolves relative links and fills Document.URL
// and FinalURL.
func Extract(pageURL string, contentType string, body []byte) (doc Document, err error) {
	media := "text/html"
	if contentType != "" {
		m, _, perr := mime.ParseMediaType(contentType)
		if perr != nil {
			return Document{}, fmt.Errorf("extract: content type %q: %w", contentType, perr)
		}
		media = m
	}
	doc = Document{URL: pageURL, FinalURL: pageURL, ContentType: media, Bytes: len(body)}
	text, note := decodeBody(body, contentType, isHTML(media))
	if note != "" {
		doc.Notes = append(doc.Notes, note)
	}

	switch {
	case isHTML(media):
		// A parser bug on hostile markup must cost one source, not the run.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("extract: html parser panicked: %v\n%s", r, debug.Stack())
			}
		}()
		if err := extractHTML(&doc, pageURL, text); err != nil {
			return Document{}, err
		}
	case media == "text/plain" || media == "text/markdown":
		doc.Text = strings.TrimSpace(text)
		if media == "text/markdown" {
			doc.Title = markdownTitle(doc.Text)
		}
	default:
		return Document{}, fmt.Errorf("extract: content type %s", media)
	}
	if cleanDocument(&doc) {
		doc.Notes = append(doc.Notes, noteControlsRemoved)
	}
	if strings.TrimSpace(doc.Text) == "" {
		return Document{}, fmt.Errorf("extract: %w", ErrNoContent)
	}
	return doc, nil
}

// cleanDocument removes control and bidirectional formatting characters
// from doc's text, title and author (cleanText), after extraction, since
// HTML can write them as character references, and reports whether it
// removed any. Title and author are one line each.
func cleanDocument(doc *Document) bool {
	var removed [3]bool
	doc.Text, removed[0] = cleanText(doc.Text)
	doc.Title, removed[1] = cleanText(doc.Title)
	doc.Author, removed[2] = cleanText(doc.Author)
	doc.Title, doc.Author = corpusSpaces(doc.Title), corpusSpaces(doc.Author)
	return removed[0] || removed[1] || removed[2]
}

func isHTML(media string) bool {
	return media == "text/html" || media == "application/xhtml+xml"
}

// extractHTML fills doc from the HTML page text (already UTF-8).
func extractHTML(doc *Document, pageURL, text string) error {
	u, err := url.Parse(pageURL)
	if err != nil {
		return fmt.Errorf("extract: page URL: %w", err)
	}
	root, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return fmt.Errorf("extract: parse html: %w", err)
	}
	// Read the head first: readability mutates the tree.
	meta := readHead(root)

	p := readability.NewParser()
	article, err := p.ParseAndMutate(root, u)
	if err != nil {
		return fmt.Errorf("extract: readability: %w", err)
	}
	if article.Node == nil {
		return fmt.Errorf("extract: %w", ErrNoContent)
	}
	var rendered strings.Builder
	if err := article.RenderHTML(&rendered); err != nil {
		return fmt.Errorf("extract: render article: %w", err)
	}
	md, err := htmltomarkdown.ConvertString(rendered.String())
	if err != nil {
		return fmt.Errorf("extract: html to markdown: %w", err)
	}

	doc.Text = strings.TrimSpace(md)
	doc.Title = firstNonEmpty(article.Title(), meta.title)
	doc.Author = firstNonEmpty(article.Byline(), meta.author)
	if t, err := article.PublishedTime(); err == nil {
		doc.Published = t
	} else {
		doc.Published = meta.published
	}
	return nil
}

// headMeta is what readHead finds in a page's <title> and <meta> tags.
type headMeta struct {
	title, author string
	published     time.Time
}

// readHead collects the fallbacks for readability's metadata: <title>,
// <meta name="author"> (or article:author when it is not a URL, or
// dc.creator) and article:published_time (or datePublished, date,
// dc.date). The first of each wins.
func readHead(root *html.Node) headMeta {
	var m headMeta
	var published string
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Title:
			if m.title == "" && n.FirstChild != nil && n.FirstChild.Type == html.TextNode {
				m.title = strings.Join(strings.Fields(n.FirstChild.Data), " ")
			}
		case atom.Meta:
			key := strings.ToLower(firstNonEmpty(htmlAttr(n, "name"), htmlAttr(n, "property"), htmlAttr(n, "itemprop")))
			content := strings.TrimSpace(htmlAttr(n, "content"))
			if content == "" {
				continue
			}
			switch key {
			case "author", "dc.creator", "dcterms.creator":
				if m.author == "" {
					m.author = content
				}
			case "article:author":
				if m.author == "" && !strings.Contains(content, "://") {
					m.author = content
				}
			case "article:published_time", "datepublished", "date", "dc.date", "dcterms.date", "dc.date.issued":
				if published == "" {
					published = content
				}
			}
		}
	}
	m.published = parseMetaTime(published)
	return m
}

func htmlAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

// metaTimeLayouts are the date forms pages put in <meta> tags.
var metaTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02",
	time.RFC1123Z,
	time.RFC1123,
	"January 2, 2006",
	"2 January 2006",
}

// parseMetaTime parses s in one of metaTimeLayouts; zero when none fits.
func parseMetaTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range metaTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// markdownTitle is the text of the first level-1 ATX heading, if any.
func markdownTitle(md string) string {
	for line := range strings.Lines(md) {
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// decodeBody returns body as valid UTF-8 and a note when it had to change
// it. A declared charset is honoured (byte order mark, the Content-Type
// charset parameter, and for HTML a <meta> declaration in the first 1024
// bytes); otherwise the body is taken as UTF-8 and repaired. NUL bytes are
// dropped.
func decodeBody(body []byte, contentType string, htmlBody bool) (string, string) {
	text, note := decodeCharset(body, contentType, htmlBody)
	return strings.ReplaceAll(text, "\x00", ""), note
}

func decodeCharset(body []byte, contentType string, htmlBody bool) (string, string) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	// Without a BOM or header, DetermineEncoding guesses windows-1252 for
	// any non-UTF-8 body; trust it only when the page declares a charset.
	declared := certain || (htmlBody && declaresCharset(body))
	if declared && name != "utf-8" && enc != encoding.Nop {
		out, err := enc.NewDecoder().Bytes(body)
		if err == nil {
			// A UTF-16 decoder keeps the byte order mark as U+FEFF.
			s := strings.TrimPrefix(string(out), "\uFEFF")
			if !utf8.ValidString(s) {
				s = strings.ToValidUTF8(s, "\uFFFD")
			}
			return s, "decoded from " + name
		}
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if utf8.Valid(body) {
		return string(body), ""
	}
	return strings.ToValidUTF8(string(body), "\uFFFD"), noteRepairedUTF8
}

// declaresCharset reports whether the start of an HTML page mentions a
// charset, as <meta charset> or http-equiv Content-Type does.
func declaresCharset(body []byte) bool {
	head := body[:min(len(body), 1024)]
	return bytes.Contains(bytes.ToLower(head), []byte("charset"))
}
