package align_test

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/align"
	"github.com/assaylabs/assay/internal/llmtest"
)

// TestAlignWriteKeepsAModelsControlCharactersInert: a model server whose
// replies carry an escape sequence and line breaks has them shown as
// escapes in the printed outcome (its first failure), never sent to the
// terminal as they are.
func TestAlignWriteKeepsAModelsControlCharactersInert(t *testing.T) {
	t.Parallel()
	const hostile = `"\u001b[2J\u001b]0;pwned\u0007\r\nmaybe"`
	srv := llmtest.New(t, llmtest.Func(llmtest.Graded(func(llmtest.GradeRequest) string { return hostile }, "The reply is short.", "The reply helps.")))
	j := job(t, srv)
	j.Candidates = ptr(1)
	out, err := align.Align(context.Background(), j)
	require.NoError(t, err)
	require.NotEmpty(t, out.Failed)
	var b strings.Builder
	out.Write(&b)
	text := b.String()
	t.Log(text)
	assert.False(t, strings.ContainsFunc(text, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }), "a control character in\n%q", text)
}
