package web_test

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/web"
)

func TestParseCorpusFile(t *testing.T) {
	t.Parallel()
	date := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		require.NoError(t, err)
		return d
	}
	tests := map[string]struct {
		name string
		data string
		want web.CorpusFile
	}{
		"markdown with every field": {
			name: "heat/pumps.md",
			data: "---\nurl: https://energy.example.gov/heat-pumps\ntitle: Heat pumps\nauthor: J. Doe\npublished: 2024-03-05\nreferences: 14\ntopic: home heating\nextra: ignored\n---\n\n# Heading\n\nHeat pumps move heat.\n",
			want: web.CorpusFile{
				Path: "heat/pumps.md", URL: "https://energy.example.gov/heat-pumps", Title: "Heat pumps",
				Author: "J. Doe", Published: date("2024-03-05"), References: 14, Topic: "home heating",
				Body: "# Heading\n\nHeat pumps move heat.",
			},
		},
		"markdown title falls back to the first heading": {
			name: "a.markdown",
			data: "---\r\nurl: https://example.org/a\r\n---\r\n# The title\r\ntext\r\n",
			want: web.CorpusFile{Path: "a.markdown", URL: "https://example.org/a", Title: "The title", Body: "# The title\ntext"},
		},
		"plain text with front matter": {
			name: "notes.txt",
			data: "\ufeff---\nurl: http://example.org/notes\ntitle: Notes\npublished: \"2020-01-31\"\n...\nJust text.\n",
			want: web.CorpusFile{Path: "notes.txt", URL: "http://example.org/notes", Title: "Notes", Published: date("2020-01-31"), Body: "Just text."},
		},
		"html with front matter in a leading comment": {
			name: "page.html",
			data: "<!DOCTYPE html>\n<!--\n---\nurl: https://example.edu/page\nauthor: A. Writer\n---\n-->\n<html><head><title>Page title</title><style>p{}</style></head>\n<body><p>First  para.</p><script>x()</script><p>Second<br>line.</p></body></html>",
			want: web.CorpusFile{Path: "page.html", URL: "https://example.edu/page", Title: "Page title", Author: "A. Writer", Body: "First para.\n\nSecond\nline."},
		},
		"html with head metadata only": {
			name: "page.htm",
			data: `<html><head><title> Canon </title><link rel="canonical" href="https://example.com/c"><meta name="author" content="B. Author"><meta property="article:published_time" content="2023-07-01T10:00:00Z"></head><body><h1>Canon</h1><div>Body text.</div></body></html>`,
			want: web.CorpusFile{Path: "page.htm", URL: "https://example.com/c", Title: "Canon", Author: "B. Author", Published: time.Date(2023, 7, 1, 10, 0, 0, 0, time.UTC), Body: "Canon\n\nBody text."},
		},
		"control and bidi characters are removed": {
			name: "c.md",
			data: "---\nurl: https://example.org/c\ntitle: \"T\\u202eevil\\a \\e[2J\"\nauthor: \"Ann\\x7f Lee\"\ntopic: \"x\\u2066y\"\n---\nHeat\x1b[2J pumps \u202eperform\u202c well.\x07\n",
			want: web.CorpusFile{Path: "c.md", URL: "https://example.org/c", Title: "Tevil [2J", Author: "Ann Lee", Topic: "xy", Body: "Heat[2J pumps perform well."},
		},
		"control characters of html written as references are removed": {
			name: "c.html",
			data: "<html><head><title>A&#x1b;[2J&#x202e;B</title><link rel=canonical href=https://example.com/c><meta name=author content=\"C&#x7;D\"></head><body><p>Heat&#x1b;[31m pumps&#x202E;.</p></body></html>",
			want: web.CorpusFile{Path: "c.html", URL: "https://example.com/c", Title: "A[2JB", Author: "CD", Body: "Heat[31m pumps."},
		},
		"an alias is the value anchored": {
			name: "alias.md",
			data: "---\nurl: &home https://example.org/alias\ntopic: &t heat pumps\ntitle: *t\nauthor: *home\n---\nx",
			want: web.CorpusFile{Path: "alias.md", URL: "https://example.org/alias", Title: "heat pumps", Author: "https://example.org/alias", Topic: "heat pumps", Body: "x"},
		},
		"a url given by an alias": {
			name: "alias.txt",
			data: "---\nsite: &u https://example.org/alias\nurl: *u\n---\nx",
			want: web.CorpusFile{Path: "alias.txt", URL: "https://example.org/alias", Body: "x"},
		},
		"html front matter wins over head metadata": {
			name: "p.html",
			data: "<!-- ---\nurl: https://example.com/fm\ntitle: From front matter\n--- -->\n<html><head><title>From head</title><link rel=canonical href=https://example.com/head></head><body>x</body></html>",
			want: web.CorpusFile{Path: "p.html", URL: "https://example.com/fm", Title: "From front matter", Body: "x"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := web.ParseCorpusFile(tc.name, []byte(tc.data))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseCorpusFileErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name, data string
		// want is the whole message of the *eval.InputError; "" expects
		// ErrNoFrontMatter instead.
		want string
	}{
		"missing url": {
			name: "a.md", data: "---\ntitle: No URL\n---\nbody",
			want: "a.md:1: url: is required (where the document was published, for citations)",
		},
		"empty front matter": {
			name: "a.md", data: "---\n---\nbody",
			want: "a.md:1: url: is required (where the document was published, for citations)",
		},
		"bad date names line and field": {
			name: "b.md", data: "---\nurl: https://example.org/b\ntitle: B\npublished: 5 March 2024\n---\nbody",
			want: `b.md:4:12: published: must be a date in YYYY-MM-DD form, got "5 March 2024"`,
		},
		"negative references": {
			name: "c.txt", data: "---\nurl: https://example.org/c\nreferences: -3\n---\n",
			want: `c.txt:3:13: references: must be a whole number >= 0, got "-3"`,
		},
		"relative url": {
			name: "d.md", data: "---\nurl: /local/path\n---\n",
			want: `d.md:2:6: url: must be an absolute http(s) URL, got "/local/path"`,
		},
		"url with a bidirectional override": {
			name: "f.md", data: "---\nurl: \"https://example.org/\\u202egpj.exe\"\n---\n",
			want: `f.md:2:6: url: must not hold control or bidirectional formatting characters, got "https://example.org/\u202egpj.exe"`,
		},
		"canonical link with a bidirectional override": {
			name: "i.html", data: "<html><head><link rel=canonical href=\"https://example.org/&#x202e;gpj.exe\"></head><body>x</body></html>",
			want: "i.html:1: url: is required (where the document was published, for citations)",
		},
		"url given twice": {
			name: "g.md", data: "---\nurl: https://example.org/a\ntitle: T\nurl: https://example.org/b\n---\n",
			want: `g.md:4:1: url: is given twice (first on line 2)`,
		},
		"field given twice in another case": {
			name: "h.md", data: "---\nurl: https://example.org/a\nURL: https://example.org/b\n---\n",
			want: `h.md:3:1: url: is given twice (first on line 2)`,
		},
		"list where a value belongs": {
			name: "e.md", data: "---\nurl: https://example.org/e\nauthor:\n  - A\n  - B\n---\n",
			want: "e.md:4:3: author: must be a single value, not a list or mapping",
		},
		"bad yaml": {
			name: "f.md", data: "---\nurl: https://example.org/f\ntitle: [unclosed\n---\n",
			want: "f.md:3: front matter is not valid YAML: did not find expected ',' or ']'",
		},
		"front matter never closed": {
			name: "g.md", data: "---\nurl: https://example.org/g\nbody",
			want: `g.md:1: front matter opened with "---" is never closed`,
		},
		"not a mapping": {
			name: "h.md", data: "---\n- a\n- b\n---\n",
			want: "h.md:2: front matter must be a mapping of field: value",
		},
		"bad date in html comment front matter": {
			name: "i.html", data: "<!doctype html>\n\n<!--\n---\nurl: https://example.org/i\npublished: 2024-13-01\n---\n-->\n<p>x</p>",
			want: `i.html:6:12: published: must be a date in YYYY-MM-DD form, got "2024-13-01"`,
		},
		"an alias of a list names the alias's place": {
			name: "m.md", data: "---\nurl: https://example.org/m\nnames: &n [a, b]\n\nauthor: *n\n---\n",
			want: "m.md:5:9: author: must be a single value, not a list or mapping",
		},
		"an alias of a bad date names the alias's place": {
			name: "n.md", data: "---\nurl: https://example.org/n\nwhen: &d soon\npublished: *d\n---\n",
			want: `n.md:4:12: published: must be a date in YYYY-MM-DD form, got "soon"`,
		},
		"plain text without front matter is skipped": {name: "j.txt", data: "Just some text.\n"},
		"markdown without front matter is skipped":   {name: "k.md", data: "# Title\n\ntext"},
		"html without front matter or canonical":     {name: "l.html", data: "<html><title>T</title><p>x</p></html>"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := web.ParseCorpusFile(tc.name, []byte(tc.data))
			require.Error(t, err)
			if tc.want == "" {
				require.ErrorIs(t, err, web.ErrNoFrontMatter)
				return
			}
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "want *eval.InputError, got %T: %v", err, err)
			require.Equal(t, tc.name, ie.File)
			require.Positive(t, ie.Line)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestParseCorpusFileBadYAMLLine(t *testing.T) {
	t.Parallel()
	// The YAML error is on the block's third line, the file's fourth.
	_, err := web.ParseCorpusFile("f.md", []byte("---\nurl: https://example.org/f\ntitle: ok\nauthor: : :\n---\n"))
	var ie *eval.InputError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, 4, ie.Line, ie.Error())
	require.Contains(t, ie.Msg, "not valid YAML")
}

func TestParseCorpusFileUnsupported(t *testing.T) {
	t.Parallel()
	_, err := web.ParseCorpusFile("x.pdf", []byte("%PDF"))
	require.ErrorContains(t, err, "unsupported")
}

// FuzzParseCorpusFile checks that no input panics and that every failure is
// either a skip or an *eval.InputError with a line.
func FuzzParseCorpusFile(f *testing.F) {
	f.Add("a.md", "---\nurl: https://example.org/a\npublished: 2024-01-02\n---\nbody")
	f.Add("b.html", "<!--\n---\nurl: https://example.org/b\n---\n--><p>x</p>")
	f.Add("c.txt", "---\nurl: [\n---\n")
	f.Fuzz(func(t *testing.T, name, data string) {
		_, err := web.ParseCorpusFile(name, []byte(data))
		var ie *eval.InputError
		switch {
		case err == nil, errors.Is(err, web.ErrNoFrontMatter):
		case errors.As(err, &ie):
			if ie.File != name {
				t.Fatalf("error names %q, not %q", ie.File, name)
			}
		}
	})
}

// A corpus file written as UTF-16 with its byte order mark (Windows
// PowerShell 5's default) is read as the text it holds, not skipped as a
// file without front matter.
func TestParseCorpusFileUTF16(t *testing.T) {
	t.Parallel()
	encode := func(s string, order binary.AppendByteOrder) []byte {
		out := order.AppendUint16(nil, 0xfeff)
		for _, u := range utf16.Encode([]rune(s)) {
			out = order.AppendUint16(out, u)
		}
		return out
	}
	tests := map[string]struct {
		name string
		data []byte
		want web.CorpusFile
	}{
		"markdown, little-endian, CRLF": {
			name: "pumps.md",
			data: encode("---\r\nurl: https://example.org/pumps\r\ntitle: Wärmepumpen\r\n---\r\nHeat pumps at −15 °C.\r\n", binary.LittleEndian),
			want: web.CorpusFile{Path: "pumps.md", URL: "https://example.org/pumps", Title: "Wärmepumpen", Body: "Heat pumps at −15 °C."},
		},
		"text, big-endian": {
			name: "notes.txt",
			data: encode("---\nurl: https://example.org/notes\n---\n热泵 notes\n", binary.BigEndian),
			want: web.CorpusFile{Path: "notes.txt", URL: "https://example.org/notes", Body: "热泵 notes"},
		},
		"html, little-endian": {
			name: "page.html",
			data: encode(`<html><head><title>Page</title><link rel="canonical" href="https://example.org/page"></head><body><p>Text.</p></body></html>`, binary.LittleEndian),
			want: web.CorpusFile{Path: "page.html", URL: "https://example.org/page", Title: "Page", Body: "Text."},
		},
		"an odd last byte is a replacement character": {
			name: "odd.md",
			data: append(encode("---\nurl: https://example.org/odd\n---\nText", binary.LittleEndian), 'x'),
			want: web.CorpusFile{Path: "odd.md", URL: "https://example.org/odd", Body: "Text\ufffd"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := web.ParseCorpusFile(tc.name, tc.data)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// An error names the file with its control and bidirectional characters
// written as escapes: a corpus file's name is printed, and one holding a
// line break would print a line of its own choosing.
func TestParseCorpusFileErrorsEscapeTheName(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name, data string
		want       string // the whole message
	}{
		"a line break and an escape sequence, bad url": {
			name: "bad\nassay: all good \x1b[32mOK.md", data: "---\nurl: javascript:alert(1)\n---\nx",
			want: `bad\nassay: all good \x1b[32mOK.md:2:6: url: must be an absolute http(s) URL, got "javascript:alert(1)"`,
		},
		"a right-to-left override, bad yaml": {
			name: "notes\u202etxt.md", data: "---\nurl: https://example.org/n\ntitle: [x\n---\n",
			want: `notes\u202etxt.md:3: front matter is not valid YAML: did not find expected ',' or ']'`,
		},
		"a carriage return, html front matter never closed": {
			name: "page\r.html", data: "<!--\n---\nurl: https://example.org/p\n-->",
			want: `page\r.html:2: front matter opened with "---" is never closed`,
		},
		"a line break, no front matter": {
			name: "plain\nfake.md", data: "text",
			want: `plain\nfake.md: no front matter with a url`,
		},
		"a line break, html without canonical": {
			name: "plain\nfake.html", data: "<p>text</p>",
			want: `plain\nfake.html: no front matter with a url (nor a canonical link)`,
		},
		"a plain name is as it was": {
			name: "dir/a.md", data: "---\ntitle: x\n---\n",
			want: "dir/a.md:1: url: is required (where the document was published, for citations)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := web.ParseCorpusFile(tc.name, []byte(tc.data))
			require.EqualError(t, err, tc.want)
		})
	}
}
