package agent_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
)

// tagOpener is a "<" that could open an HTML tag, comment or declaration
// in some Markdown viewer: not escaped with a backslash.
var tagOpener = regexp.MustCompile(`(^|[^\\])<[A-Za-z/!?]`)

// TestMarkdownCardEscapesTheReport scores reports whose claims, cited URLs
// and citation markers put HTML or link syntax together, and checks that
// the Markdown card shows them as text.
func TestMarkdownCardEscapesTheReport(t *testing.T) {
	t.Parallel()
	p, err := agent.LoadProfile("research")
	require.NoError(t, err)
	tests := map[string]struct{ body, want string }{
		"a tag completed by a link's text": {
			body: "Blades are recycled <[b](https://blades.example.gov/r) onclick=steal()>at a rate of 30%.\n",
			want: `- line 5: Blades are recycled \<b onclick=steal()>at a rate of 30%.`,
		},
		"script in a cited URL": {
			body: `Onshore wind costs fell 70% [IRENA](https://irena.example.org/a"><script>steal()</script> "costs fell 70%").` + "\n",
			want: "- https://irena.example.org/a%22%3E%3Cscript%3Esteal()%3C/script%3E: 4 (unlisted site 4)",
		},
		"link syntax in a cited URL": {
			body: `Turbines grew taller [GWEC](https://gwec.example.net/[x](javascript:steal()) "grew taller").` + "\n",
			want: "- https://gwec.example.net/%5Bx%5D(javascript:steal()): 4 (unlisted site 4)",
		},
		"a tag in a dangling footnote marker": {
			body: "Turbine height doubled since 2000.[^<svg/onload=steal()>]\n",
			want: `- citation \[^\<svg/onload=steal()>\] names no entry of the Sources list`,
		},
		"a tag in a repeated sentence": {
			body: "Capacity rose <[i](https://cap.example.gov/a) onmouseover=steal()>by 9%.\n\nCapacity rose <[i](https://cap.example.gov/a) onmouseover=steal()>by 9%.\n",
			want: `- repeated sentence at line 7: "Capacity rose \<i onmouseover=steal()>by 9%."`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			report := "# Wind power\n\n## Executive Summary\n\n" + tc.body + "\n## Sources\n\n- https://gwec.example.net/r\n"
			c, err := agent.Score(context.Background(), p, eval.Sample{Query: "wind power", Answer: report}, agent.Options{})
			require.NoError(t, err)
			md := agent.NewResearchView(p, c).Markdown()
			assert.Contains(t, md, tc.want+"\n")
			assert.Empty(t, tagOpener.FindAllString(md, -1), "unescaped tags in\n%s", md)
			assertInert(t, renderUnsafe(t, md))
			assert.NotContains(t, renderUnsafe(t, md), `href="javascript`)
		})
	}
}
