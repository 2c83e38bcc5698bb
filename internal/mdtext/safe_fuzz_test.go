package mdtext

import (
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// FuzzMarkdown rewrites arbitrary Markdown: it must not panic, a second
// pass must change nothing, and what comes out must parse with no raw
// HTML and no link, image or autolink to a scheme other than http(s) or
// mailto.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"a [x](javascript:1) <b>y</b>\n", "<!-- c -->\n    <script>x</script>\n", "<details>\n\n[x][1]\n\n[1]: data:,x\n",
		"> [a\n> b](vbscript:1)", "![i](&#106;avascript:1) <FILE:///x> ftp://a.example.com/x", "[ok](https://a.example \"q\")", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Safe(in)
		if again := Safe(out); again != out {
			t.Fatalf("second pass changed %q to %q", out, again)
		}
		b := []byte(out)
		doc := md().Parser().Parse(text.NewReader(b), parser.WithContext(parser.NewContext()))
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			bad := false
			switch n := n.(type) {
			case *ast.HTMLBlock, *ast.RawHTML:
				bad = true
			case *ast.Link:
				bad = !allowed(n.Destination, true)
			case *ast.Image:
				bad = !allowed(n.Destination, false)
			case *ast.AutoLink:
				bad = n.AutoLinkType != ast.AutoLinkEmail && !allowed(n.URL(b), true)
			}
			if bad {
				t.Fatalf("%q -> %q still has a %s", in, out, n.Kind())
			}
			return ast.WalkContinue, nil
		})
	})
}
