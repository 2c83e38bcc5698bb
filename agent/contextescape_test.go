package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestContextCardEscapesTheQuery scores retrievals whose query holds a
// line break, a bell, a bidi override, a pipe and a tag, and checks that
// the Markdown and text cards write the CRAG sub-queries and search query
// on one line each, with those characters shown rather than obeyed.
func TestContextCardEscapesTheQuery(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("context")
	require.NoError(t, err)
	const query = "What | is <b>x</b>?\n# line2\a \u202eevil"
	tests := map[string]struct {
		chunks string
		md     string // a line the Markdown card holds
		text   string // a line the text card holds
	}{
		"ambiguous: sub-queries": {
			chunks: `[{"content": "x | y <z>", "score": 0.9, "documentId": "d1", "metadata": {}}], "context": {"text": "x | y", "tokenCount": 3}`,
			md:     `CRAG action: decompose_and_recompose (sub-queries: What | is \<b>x\</b>? # line2\\a \\u202eevil | `,
			text:   `  - sub-query: What | is <b>x</b>?\n# line2\a \u202eevil`,
		},
		"incorrect: search query": {
			chunks: `[{"content": "pasta and basil", "score": 0.1, "documentId": "d1", "metadata": {}}], "context": {"text": "pasta", "tokenCount": 1}`,
			md:     `CRAG action: supplemental_search (search: | is \<b>x\</b>? # line2\\a \\u202eevil)`,
			text:   `  - search: | is <b>x</b>?\n# line2\a \u202eevil`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q, err := json.Marshal(query)
			require.NoError(t, err)
			sample, err := eval.DecodeContextSample("q.json", []byte(`{"query": `+string(q)+`, "chunks": `+tc.chunks+`}`))
			require.NoError(t, err)
			card, err := Score(context.Background(), p, sample, Options{NoRecency: true, Concurrency: 1})
			require.NoError(t, err)
			for format, want := range map[string]string{"md": tc.md, "text": tc.text} {
				var out bytes.Buffer
				require.NoError(t, render(&out, format, p, card, sample))
				s := out.String()
				assert.Contains(t, s, want, format)
				assert.False(t, strings.ContainsAny(s, "\a\u202e"), "%s card holds a raw control or bidi character:\n%s", format, s)
				assert.NotContains(t, s, "\n# line2", "%s card lets the query start a line", format)
			}
		})
	}
}
