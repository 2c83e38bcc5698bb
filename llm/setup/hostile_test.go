package setup

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/llm"
)

// TestNoticesShowANameEscaped: a model's name comes from a flag (--llm,
// --checker) and is shown on the terminal: its control characters and
// bidi overrides are escaped, never sent raw.
func TestNoticesShowANameEscaped(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		model, want string
	}{
		"an escape sequence": {"evil\x1b]0;pwn\x07\x1b[31m", `evil\x1b]0;pwn\a\x1b[31m`},
		"a bidi override":    {"gpt\u202e4o", `gpt\u202e4o`},
		"a newline":          {"a\nassay: b", `a\nassay: b`},
		"a plain name":       {"gpt-4o-mini", "gpt-4o-mini"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf strings.Builder
			n := &notices{w: &buf}
			n.event(llm.Event{Kind: "unpriced", Model: tc.model})
			out := buf.String()
			assert.Equal(t, "assay: model "+tc.want+" is not in the price table, so the cost of its calls is unknown; give --prices FILE with its price per million tokens ({"+tc.want+": {in: 0.15, out: 0.6}})\n", out)
		})
	}
}
