package mdtext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// render turns Markdown into HTML as a GFM viewer would, raw HTML allowed,
// so that anything our escaping lets through shows in the output.
func render(t *testing.T, md string) string {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	require.NoError(t, gm.Convert([]byte(md), &out))
	return out.String()
}

func TestTextRendersAsItself(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want string // want: the paragraph's HTML
	}{
		"plain prose": {in: "Wind farms supplied 12% of power.", want: "Wind farms supplied 12% of power."},
		"script tag": {in: `Output rose <script>fetch("/x")</script> sharply.`,
			want: `Output rose &lt;script&gt;fetch(&quot;/x&quot;)&lt;/script&gt; sharply.`},
		"event handler":   {in: "Costs fell <img src=q onerror=steal()> again.", want: "Costs fell &lt;img src=q onerror=steal()&gt; again."},
		"javascript link": {in: "See [the chart](javascript:steal()) here.", want: "See [the chart](javascript:steal()) here."},
		"data image":      {in: "A map ![m](data:image/svg+xml,<svg onload=steal()>) here.", want: "A map ![m](data:image/svg+xml,&lt;svg onload=steal()&gt;) here."},
		"autolink":        {in: "Mail <javascript:steal()> now.", want: "Mail &lt;javascript:steal()&gt; now."},
		"escape undone by the text's own backslash": {in: `Trick \[x\](javascript:steal()) and \<b onclick=y>.`,
			want: `Trick \[x\](javascript:steal()) and \&lt;b onclick=y&gt;.`},
		"reference definition on its own line": {in: "Rates rose.\n[a]: javascript:steal()\n[a]", want: "Rates rose. [a]: javascript:steal() [a]"},
		"html block after a line break":        {in: "Prices fell.\n<div onmouseover=steal()>x</div>", want: "Prices fell. &lt;div onmouseover=steal()&gt;x&lt;/div&gt;"},
		"heading after a line break":           {in: "Prices fell.\n# Buy now", want: "Prices fell. # Buy now"},
		"code span":                            {in: "Run `<b>` twice.", want: "Run `&lt;b&gt;` twice."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			html := render(t, "- line 3: "+Text(tc.in))
			assert.Equal(t, "<ul>\n<li>line 3: "+tc.want+"</li>\n</ul>\n", html)
		})
	}
}

func TestURL(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"ordinary URL unchanged":   {in: "https://www.nrel.gov/pv/degradation_rates?id=3&x=y#top", want: "https://www.nrel.gov/pv/degradation_rates?id=3&x=y#top"},
		"parentheses kept":         {in: "https://en.wikipedia.org/wiki/Mercury_(planet)", want: "https://en.wikipedia.org/wiki/Mercury_(planet)"},
		"quote and script in path": {in: `https://example.com/a"><script>steal()</script>`, want: "https://example.com/a%22%3E%3Cscript%3Esteal()%3C/script%3E"},
		"space and backtick":       {in: "https://example.com/a b`c", want: "https://example.com/a%20b%60c"},
		"link syntax in path":      {in: "https://example.com/[x](javascript:steal())", want: "https://example.com/%5Bx%5D(javascript:steal())"},
		"IPv6 host keeps brackets": {in: "http://[2001:db8::1]:8080/a[1]", want: "http://[2001:db8::1]:8080/a%5B1%5D"},
		"line break":               {in: "https://example.com/a\n<b>", want: "https://example.com/a%0A%3Cb%3E"},
		"non-ASCII left as it is":  {in: "https://ข่าว.example/ราคา", want: "https://ข่าว.example/ราคา"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := URL(tc.in)
			assert.Equal(t, tc.want, got)
			html := render(t, "- "+got+": 4 (unlisted site 4)")
			assert.NotContains(t, html, "<script")
			assert.NotContains(t, html, `href="javascript`)
			assert.False(t, strings.Contains(got, "<") || strings.Contains(got, `"`))
		})
	}
}

func TestCellRendersAsItselfInItsCell(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want string // want: the cell's HTML
	}{
		"plain":                  {in: "model-a", want: "model-a"},
		"a pipe":                 {in: "a | b", want: "a | b"},
		"a line break":           {in: "a\n| b", want: `a\n| b`},
		"an escape sequence":     {in: "m\x1b[2J", want: `m\x1b[2J`},
		"a backslash at the end": {in: `a\`, want: `a\`},
		"a backslash and pipe":   {in: `a\|b`, want: `a\|b`},
		"a tag":                  {in: "<b>x</b>", want: "&lt;b&gt;x&lt;/b&gt;"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Cell(tc.in)
			assert.NotContains(t, got, "\n")
			assert.NotContains(t, got, "\x1b")
			html := render(t, "| group | n |\n|---|---|\n| "+got+" | 3 |\n")
			assert.Contains(t, html, "<td>"+tc.want+"</td>\n<td>3</td>", html)
		})
	}
}

// TestTextShowsControlCharacters checks that a control or bidirectional
// formatting character in the text (an escape sequence a terminal would
// obey, a bell) is written as its Go escape, shown as such once rendered,
// while line breaks still become spaces and tabs stay.
func TestTextShowsControlCharacters(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want, html string
	}{
		"terminal reset":   {in: "heat\x1bc pumps", want: `heat\\x1bc pumps`, html: `heat\x1bc pumps`},
		"colour and bell":  {in: "red\x1b(0 x\a", want: `red\\x1b(0 x\\a`, html: `red\x1b(0 x\a`},
		"right-to-left":    {in: "abc\u202edef", want: `abc\\u202edef`, html: `abc\u202edef`},
		"line breaks, tab": {in: "a\r\nb\nc\td", want: "a b c\td", html: "a b c\td"},
		"nothing to do":    {in: "Heat pumps, 2.6 COP.", want: "Heat pumps, 2.6 COP.", html: "Heat pumps, 2.6 COP."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Text(tc.in))
			assert.Equal(t, "<ul>\n<li>line 3: "+tc.html+"</li>\n</ul>\n", render(t, "- line 3: "+Text(tc.in)))
		})
	}
}
