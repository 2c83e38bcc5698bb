package conversation_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/conversation"
	"github.com/assaylabs/assay/eval"
)

// TestRolesInAnyCase: an instrumentation that writes a role capitalised
// ("Assistant", "USER") means the convention's role; its messages are
// read as that role's, not dropped as a role no metric reads.
func TestRolesInAnyCase(t *testing.T) {
	t.Parallel()
	want := []eval.Message{
		{Role: eval.RoleSystem, Content: "Be brief."},
		{Role: eval.RoleUser, Content: "Weather in Paris?"},
		{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{{ID: "c1", Type: "function", Function: eval.ToolFunction{Name: "weather", Arguments: `{"city":"Paris"}`}}}},
		{Role: eval.RoleTool, ToolCallID: "c1", Content: "sunny"},
		{Role: eval.RoleAssistant, Content: "Sunny."},
	}
	tests := map[string]map[string]any{
		"GenAI parts": {
			"gen_ai.operation.name": "chat",
			"gen_ai.input.messages": `[{"role":"Developer","parts":[{"type":"text","content":"Be brief."}]},` +
				`{"role":"USER","parts":[{"type":"text","content":"Weather in Paris?"}]},` +
				`{"role":"Assistant","parts":[{"type":"tool_call","id":"c1","name":"weather","arguments":{"city":"Paris"}}]},` +
				`{"role":"Tool","parts":[{"type":"tool_call_response","id":"c1","response":"sunny"}]}]`,
			"gen_ai.output.messages": `[{"role":" Assistant ","parts":[{"type":"text","content":"Sunny."}]}]`,
		},
		"OpenAI form": {
			"gen_ai.operation.name": "chat",
			"gen_ai.input.messages": `[{"role":"SYSTEM","content":"Be brief."},{"role":"User","content":"Weather in Paris?"},` +
				`{"role":"ASSISTANT","tool_calls":[{"id":"c1","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]},` +
				`{"role":"TOOL","tool_call_id":"c1","content":"sunny"}]`,
			"gen_ai.output.messages": `[{"role":"Assistant","content":"Sunny."}]`,
		},
		"OpenInference flattened": {
			"openinference.span.kind":                                                "LLM",
			"llm.input_messages.0.message.role":                                      "System",
			"llm.input_messages.0.message.content":                                   "Be brief.",
			"llm.input_messages.1.message.role":                                      "USER",
			"llm.input_messages.1.message.content":                                   "Weather in Paris?",
			"llm.input_messages.2.message.role":                                      "Assistant",
			"llm.input_messages.2.message.tool_calls.0.tool_call.id":                 "c1",
			"llm.input_messages.2.message.tool_calls.0.tool_call.function.name":      "weather",
			"llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments": `{"city": "Paris"}`,
			"llm.input_messages.3.message.role":                                      "Tool",
			"llm.input_messages.3.message.tool_call_id":                              "c1",
			"llm.input_messages.3.message.content":                                   "sunny",
			"llm.output_messages.0.message.role":                                     "ASSISTANT",
			"llm.output_messages.0.message.content":                                  "Sunny.",
		},
	}
	for name, attrs := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := conversation.Assemble([]conversation.Span{{TraceID: "t1", SpanID: "s1", Start: 1, End: 2, Attrs: attrs}})
			require.Len(t, got, 1)
			assert.Empty(t, got[0].NotEvaluable)
			assert.Equal(t, want, got[0].Messages)
		})
	}
}
