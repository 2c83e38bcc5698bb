package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// articleHTML is a news page: navigation, an article with a byline and a
// publication date in its head, a footer.
const articleHTML = `<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Reef survey finds coral recovery | Ocean News</title>
<meta name="author" content="Dana Reyes">
<meta property="article:published_time" content="2024-03-15T09:30:00Z">
</head><body>
<nav><a href="/">Home</a> <a href="/world">World</a> <a href="/science">Science</a></nav>
<article>
<h1>Reef survey finds coral recovery</h1>
<p>A survey of the northern reef published on Friday found that hard coral cover rose to 36 percent,
the highest level recorded since monitoring began in 1986. Researchers counted coral on 86 reefs
between August and May, using towed divers and photographic transects.</p>
<p>The gains were driven mostly by fast-growing <a href="/acropora">Acropora</a> corals, which are also
the most vulnerable to heat stress, storms and crown-of-thorns starfish. "It is good news, but it is
fragile news," said the lead author of the report, who cautioned that a single marine heatwave could
undo years of growth within weeks.</p>
<p>The southern region showed a smaller increase, and scientists said the survey would be repeated
next year to confirm whether the trend holds. Funding for the programme was renewed for five years.</p>
</article>
<footer>Copyright Ocean News. <a href="/privacy">Privacy</a></footer>
</body></html>`

func TestExtract(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		contentType string
		body        string
		wantTitle   string
		wantAuthor  string
		wantTime    time.Time
		contains    []string
		excludes    []string
		wantNotes   []string
		wantErr     string
	}{
		"html article keeps metadata and drops navigation": {
			contentType: "text/html; charset=utf-8",
			body:        articleHTML,
			wantTitle:   "Reef survey finds coral recovery",
			wantAuthor:  "Dana Reyes",
			wantTime:    time.Date(2024, 3, 15, 9, 30, 0, 0, time.UTC),
			contains:    []string{"hard coral cover rose to 36 percent", "[Acropora](https://news.example.com/acropora)", "fragile news"},
			excludes:    []string{"Privacy", "World"},
		},
		"meta fallbacks when readability finds no byline": {
			contentType: "text/html",
			body: `<html><head><title>Plain page</title><meta name="dc.creator" content="J. Smith">
<meta itemprop="datePublished" content="2023-07-01"></head><body><div><p>` +
				strings.Repeat("Sea levels rose by three millimetres a year over the decade. ", 12) +
				`</p></div></body></html>`,
			wantTitle:  "Plain page",
			wantAuthor: "J. Smith",
			wantTime:   time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC),
			contains:   []string{"Sea levels rose by three millimetres"},
		},
		"latin-1 declared in the header is decoded": {
			contentType: "text/html; charset=iso-8859-1",
			body:        "<html><body><p>Caf\xe9 cr\xe8me, " + strings.Repeat("a long sentence about coffee. ", 20) + "</p></body></html>",
			contains:    []string{"Café crème"},
			wantNotes:   []string{"decoded from windows-1252"},
		},
		"latin-1 declared in a meta tag is decoded": {
			contentType: "text/html",
			body:        `<html><head><meta charset="iso-8859-1"></head><body><p>Caf` + "\xe9 " + strings.Repeat("a long sentence about coffee. ", 20) + "</p></body></html>",
			contains:    []string{"Café"},
			wantNotes:   []string{"decoded from windows-1252"},
		},
		"undeclared invalid utf-8 is repaired": {
			contentType: "text/html",
			body:        "<html><body><p>Caf\xe9 " + strings.Repeat("a long sentence about coffee. ", 20) + "</p></body></html>",
			contains:    []string{"Caf\uFFFD"},
			wantNotes:   []string{noteRepairedUTF8},
		},
		"markdown passes through with its heading as title": {
			contentType: "text/markdown; charset=utf-8",
			body:        "# Tides\n\nTides follow the moon.\n",
			wantTitle:   "Tides",
			contains:    []string{"# Tides\n\nTides follow the moon."},
		},
		"plain text passes through": {
			contentType: "text/plain",
			body:        "  Tides follow the moon.  \n",
			contains:    []string{"Tides follow the moon."},
		},
		"no content type is taken as html": {
			body:     "<p>" + strings.Repeat("Waves carry energy, not water. ", 20) + "</p>",
			contains: []string{"Waves carry energy"},
		},
		"empty html":              {contentType: "text/html", body: "", wantErr: "no main content"},
		"navigation only":         {contentType: "text/html", body: "<html><body><nav></nav><script>x()</script></body></html>", wantErr: "no main content"},
		"blank text":              {contentType: "text/plain", body: " \n\t ", wantErr: "no main content"},
		"unsupported media type":  {contentType: "application/pdf", body: "%PDF-1.4", wantErr: "content type application/pdf"},
		"malformed content type":  {contentType: "text/html; charset", body: "<p>x</p>", wantErr: "content type"},
		"utf-8 byte order mark":   {contentType: "text/plain", body: "\xef\xbb\xbfHello", contains: []string{"Hello"}, excludes: []string{"\ufeff"}},
		"utf-16 byte order mark":  {contentType: "text/plain", body: "\xff\xfeH\x00i\x00", contains: []string{"Hi"}, wantNotes: []string{"decoded from utf-16le"}},
		"nul bytes dropped":       {contentType: "text/plain", body: "Ti\x00des", contains: []string{"Tides"}},
		"xhtml is html":           {contentType: "application/xhtml+xml", body: "<html><body><p>" + strings.Repeat("Currents move heat poleward. ", 20) + "</p></body></html>", contains: []string{"Currents move heat"}},
		"markdown without a head": {contentType: "text/markdown", body: "Tides.\n## Not a title", contains: []string{"Tides."}},
		"control and bidi characters of a page are removed": {
			contentType: "text/html",
			body: "<html><head><title>Evil\u202e title\x1b[31m</title><meta name=author content=\"Ann\x07 Lee\u2066\"></head><body><article><p>" +
				strings.Repeat("Heat pumps \u202eperform well\u202c in the cold\x1b[2J. ", 12) + "</p></article></body></html>",
			wantTitle:  "Evil title[31m",
			wantAuthor: "Ann Lee",
			contains:   []string{"Heat pumps perform well in the cold"},
			excludes:   []string{"\x1b", "\u202e", "\u202c"},
			wantNotes:  []string{noteControlsRemoved},
		},
		"control characters written as character references are removed": {
			contentType: "text/html",
			body:        "<html><head><title>A&#x1b;[2JB&#x202E;C</title></head><body><article><p>" + strings.Repeat("Tides follow&#x1b;[2J the moon. ", 12) + "</p></article></body></html>",
			wantTitle:   "A[2JBC",
			contains:    []string{"Tides follow[2J the moon."},
			excludes:    []string{"\x1b"},
			wantNotes:   []string{noteControlsRemoved},
		},
		"carriage returns of plain text become line breaks": {
			contentType: "text/plain",
			body:        "Tides\rfollow\r\nthe\u0085moon\x1b[2J\x7f.",
			contains:    []string{"Tides\nfollow\nthe\nmoon[2J."},
			wantNotes:   []string{noteControlsRemoved},
		},
		"tabs and right-to-left marks are kept": {
			contentType: "text/plain",
			body:        "a\tb \u200f\u05e9\u05dc\u05d5\u05dd",
			contains:    []string{"a\tb \u200f\u05e9\u05dc\u05d5\u05dd"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const pageURL = "https://news.example.com/2024/reef"
			doc, err := Extract(pageURL, tc.contentType, []byte(tc.body))
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, pageURL, doc.URL)
			assert.Equal(t, tc.wantTitle, doc.Title)
			assert.Equal(t, tc.wantAuthor, doc.Author)
			assert.True(t, tc.wantTime.Equal(doc.Published), "published %v, want %v", doc.Published, tc.wantTime)
			assert.Equal(t, len(tc.body), doc.Bytes)
			assert.Equal(t, tc.wantNotes, doc.Notes)
			for _, s := range tc.contains {
				assert.Contains(t, doc.Text, s)
			}
			for _, s := range tc.excludes {
				assert.NotContains(t, doc.Text, s)
			}
		})
	}
}

func TestExtractNoContentIsErrNoContent(t *testing.T) {
	t.Parallel()
	_, err := Extract("https://example.com/", "text/html", nil)
	require.ErrorIs(t, err, ErrNoContent)
}

func FuzzExtract(f *testing.F) {
	for _, seed := range []string{
		articleHTML,
		"",
		"<",
		"<html><head><meta charset=\"shift_jis\"></head><body><p>\x82\xa0</p></body></html>",
		"<table><tr><td><table><td><p>nested</p></td></table>",
		"<svg><foreignObject><p>x</p></foreignObject></svg><math><mi>y</mi></math>",
		"<a href=\"javascript:alert(1)\">x</a><img src=x onerror=alert(1)>",
		"<p>\x00\xff\xfe</p>",
		"<base href=\"::\"><a href=\"%zz\">bad link</a><p>" + strings.Repeat("text ", 200) + "</p>",
	} {
		f.Add(seed, "text/html")
	}
	f.Add("# Title\n\nbody", "text/markdown")
	f.Add("body", "text/plain; charset=utf-16")
	f.Fuzz(func(t *testing.T, body, contentType string) {
		doc, err := Extract("https://example.com/page", contentType, []byte(body))
		if err != nil {
			return
		}
		if doc.Text == "" {
			t.Fatal("nil error with empty text")
		}
		if !strings.Contains(doc.ContentType, "/") {
			t.Fatalf("content type %q", doc.ContentType)
		}
	})
}

func ExampleExtract() {
	page := `<html><head><title>Tides</title><meta name="author" content="A. Moon"></head>
<body><nav><a href="/">Home</a></nav><article><p>Tides are the rise and fall of sea levels caused by the
gravity of the Moon and the Sun. Most coasts see two high tides a day.</p></article></body></html>`
	doc, err := Extract("https://example.com/tides", "text/html; charset=utf-8", []byte(page))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Title, "by", doc.Author)
	fmt.Println(doc.Text)
	// Output:
	// Tides by A. Moon
	// Tides are the rise and fall of sea levels caused by the gravity of the Moon and the Sun. Most coasts see two high tides a day.
}
