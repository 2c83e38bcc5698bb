package conversation_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/conversation"
	"github.com/assaylabs/assay/eval"
)

// TestARefusalInSpansIsTheAssistantsTurn: an output message in OpenAI's
// form whose content parts are a refusal is what the assistant said, not
// an empty turn.
func TestARefusalInSpansIsTheAssistantsTurn(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		output string
		want   string
	}{
		"a refusal part":         {`[{"role":"assistant","content":[{"type":"refusal","refusal":"I can't do that."}]}]`, "I can't do that."},
		"text and a refusal":     {`[{"role":"assistant","content":[{"type":"text","text":"Sorry."},{"type":"refusal","refusal":"No."}]}]`, "Sorry.\n\nNo."},
		"GenAI parts, text only": {`[{"role":"assistant","parts":[{"type":"text","content":"Hello."}]}]`, "Hello."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := conversation.Assemble([]conversation.Span{{TraceID: "t1", SpanID: "s1", Start: 1, End: 2, Attrs: map[string]any{
				"gen_ai.operation.name":  "chat",
				"gen_ai.input.messages":  `[{"role":"user","content":"Do it."}]`,
				"gen_ai.output.messages": tc.output,
			}}})
			require.Len(t, got, 1)
			assert.Empty(t, got[0].NotEvaluable)
			assert.Equal(t, []eval.Message{{Role: eval.RoleUser, Content: "Do it."}, {Role: eval.RoleAssistant, Content: tc.want}}, got[0].Messages)
		})
	}
}
