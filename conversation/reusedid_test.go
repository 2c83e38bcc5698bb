package conversation_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/conversation"
	"github.com/assaylabs/assay/eval"
)

// modelSpan is a GenAI model call's span, from start to end, with its
// messages in and out in OpenAI's form.
func modelSpan(t *testing.T, id string, start, end uint64, in, out []map[string]any) conversation.Span {
	t.Helper()
	a, err := json.Marshal(in)
	require.NoError(t, err)
	b, err := json.Marshal(out)
	require.NoError(t, err)
	return conversation.Span{TraceID: "7e57", SpanID: id, ParentID: "root", Start: start, End: end,
		Attrs: map[string]any{conversation.AttrOperation: "chat", conversation.AttrInput: string(a), conversation.AttrOutput: string(b)}}
}

// toolSpan is an execute_tool span answering the call id with result.
func toolSpan(id string, start, end uint64, callID, tool, result string, failed bool) conversation.Span {
	return conversation.Span{TraceID: "7e57", SpanID: id, ParentID: "root", Start: start, End: end, Error: failed,
		Attrs: map[string]any{conversation.AttrOperation: conversation.OperationTool, conversation.AttrToolName: tool,
			conversation.AttrToolCallID: callID, conversation.AttrToolResult: result}}
}

func calls(id, tool, args string) map[string]any {
	return map[string]any{"role": "assistant", "tool_calls": []map[string]any{
		{"id": id, "type": "function", "function": map[string]any{"name": tool, "arguments": args}}}}
}

// TestToolSpansAnswerTheirOwnTurnsCall: a model that numbers each
// turn's calls afresh gives two calls one ID; each tool span answers
// the latest call of its ID, so the second turn's failure is its own.
func TestToolSpansAnswerTheirOwnTurnsCall(t *testing.T) {
	t.Parallel()
	user := map[string]any{"role": "user", "content": "Find a flat in Ghent and book the first."}
	first := calls("0", "listings", `{"town":"Ghent"}`)
	second := calls("0", "viewing", `{"flat":7}`)
	answer := map[string]any{"role": "tool", "tool_call_id": "0", "content": `{"flats":[7]}`}
	tests := map[string]struct {
		spans []conversation.Span
	}{
		"the second turn's history carries the first result": {spans: []conversation.Span{
			modelSpan(t, "m1", 10, 20, []map[string]any{user}, []map[string]any{first}),
			toolSpan("t1", 21, 30, "0", "listings", `{"flats":[7]}`, false),
			modelSpan(t, "m2", 31, 40, []map[string]any{user, first, answer}, []map[string]any{second}),
			toolSpan("t2", 41, 50, "0", "viewing", "calendar full", true),
		}},
		"the results only from tool spans": {spans: []conversation.Span{
			modelSpan(t, "m1", 10, 20, []map[string]any{user}, []map[string]any{first}),
			toolSpan("t1", 21, 30, "0", "listings", `{"flats":[7]}`, false),
			modelSpan(t, "m2", 31, 40, nil, []map[string]any{second}),
			toolSpan("t2", 41, 50, "0", "viewing", "calendar full", true),
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			convs := conversation.Assemble(tc.spans)
			require.Len(t, convs, 1)
			var results []eval.Message
			for _, m := range convs[0].Messages {
				if m.Role == eval.RoleTool {
					results = append(results, m)
				}
			}
			require.Len(t, results, 2, "%+v", convs[0].Messages)
			assert.False(t, results[0].Failed(), "the first turn's call succeeded: %+v", results[0])
			assert.Equal(t, `{"flats":[7]}`, results[0].Content)
			assert.True(t, results[1].Failed(), "the second turn's call failed: %+v", results[1])
			assert.Equal(t, "calendar full", results[1].Content)
		})
	}
}
