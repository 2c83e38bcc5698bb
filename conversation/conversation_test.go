package conversation_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/conversation"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
)

func load(t *testing.T, path string) []dataset.Record {
	t.Helper()
	recs, err := dataset.Load(path)
	require.NoError(t, err)
	return recs
}

func TestSpansFileGivesTheConversationOfItsMessages(t *testing.T) {
	t.Parallel()
	want := load(t, "../fixtures/agents/weather.jsonl")
	got := load(t, "../fixtures/agents/weather.spans.jsonl")
	require.Len(t, got, 1, "two traces threaded by gen_ai.conversation.id are one conversation")
	assert.Equal(t, "trip-42", got[0].ID)
	assert.Equal(t, 1, got[0].Line, "the line of its first span")
	assert.Equal(t, want[0].Sample.Messages, got[0].Sample.Messages)
	assert.Empty(t, got[0].Sample.NotEvaluable)
}

func TestSpansWithoutContentAreNotEvaluable(t *testing.T) {
	t.Parallel()
	got := load(t, "../fixtures/agents/nocontent.spans.jsonl")
	require.Len(t, got, 1)
	assert.Equal(t, conversation.NotEvaluableReason, got[0].Sample.NotEvaluable)
	calls := eval.Calls(got[0].Sample.Messages)
	require.Len(t, calls, 1, "the tool span still says a tool ran")
	assert.Equal(t, "get_weather", calls[0].Function.Name)
}

func TestOnePrettyPrintedExportIsRead(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../fixtures/agents/weather.spans.jsonl")
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(b), "\n")
	var v any
	require.NoError(t, json.Unmarshal([]byte(first), &v))
	pretty, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	recs, err := dataset.Read("export.json", strings.NewReader(string(pretty)))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, "trip-42", recs[0].ID)
	calls := eval.Calls(recs[0].Sample.Messages)
	require.Len(t, calls, 1, "the first export holds the first model call and the tool")
	assert.JSONEq(t, `{"city":"Paris","day":"Friday"}`, calls[0].Function.Arguments)
}

func TestAssembleJoinsToolsAndThreadsSessions(t *testing.T) {
	t.Parallel()
	oiChat := func(trace, span string, start uint64, attrs map[string]any) conversation.Span {
		attrs["openinference.span.kind"] = "LLM"
		return conversation.Span{TraceID: trace, SpanID: span, Name: "llm", Start: start, End: start + 10, Attrs: attrs}
	}
	tests := map[string]struct {
		spans []conversation.Span
		want  []conversation.Conversation
	}{
		"openinference flattened keys, a tool span with an error": {
			spans: []conversation.Span{
				oiChat("t1", "s1", 100, map[string]any{
					"session.id":                                                              "sess-1",
					"llm.input_messages.0.message.role":                                       "user",
					"llm.input_messages.0.message.content":                                    "Book a table for two.",
					"llm.output_messages.0.message.role":                                      "assistant",
					"llm.output_messages.0.message.tool_calls.0.tool_call.id":                 "c9",
					"llm.output_messages.0.message.tool_calls.0.tool_call.function.name":      "book",
					"llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": `{"people": 2}`,
				}),
				{TraceID: "t1", SpanID: "s2", Start: 120, End: 130, Error: true, Status: "no table free", Attrs: map[string]any{
					"openinference.span.kind": "TOOL", "tool.name": "book", "input.value": `{"people":2}`}},
				oiChat("t2", "s3", 200, map[string]any{
					"session.id":                        "sess-1",
					"llm.input_messages.0.message.role": "user",
					"llm.input_messages.0.message.contents.0.message_content.text": "Then tomorrow?",
					"llm.output_messages.0.message.role":                           "assistant",
					"llm.output_messages.0.message.content":                        "Booked for tomorrow.",
				}),
			},
			want: []conversation.Conversation{{ID: "sess-1", Traces: []string{"t1", "t2"}, Spans: 3, Start: 100, Messages: []eval.Message{
				{Role: "user", Content: "Book a table for two."},
				{Role: "assistant", ToolCalls: []eval.ToolCall{{ID: "c9", Type: "function", Function: eval.ToolFunction{Name: "book", Arguments: `{"people":2}`}}}},
				{Role: "tool", ToolCallID: "c9", Content: "no table free", Error: true},
				{Role: "user", Content: "Then tomorrow?"},
				{Role: "assistant", Content: "Booked for tomorrow."},
			}}},
		},
		"a tool span that answers no call known, and no conversation id": {
			spans: []conversation.Span{
				{TraceID: "t7", SpanID: "x1", Start: 5, End: 9, Attrs: map[string]any{
					"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "clock", "gen_ai.tool.call.result": "12:00"}},
				{TraceID: "t7", SpanID: "x0", Start: 1, End: 3, Attrs: map[string]any{"http.method": "GET"}},
			},
			want: []conversation.Conversation{{ID: "t7", Traces: []string{"t7"}, Spans: 2, Start: 1, NotEvaluable: conversation.NotEvaluableReason, Messages: []eval.Message{
				{Role: "assistant", ToolCalls: []eval.ToolCall{{ID: "span-x1", Type: "function", Function: eval.ToolFunction{Name: "clock"}}}},
				{Role: "tool", ToolCallID: "span-x1", Content: "12:00"},
			}}},
		},
		"a trace without GenAI spans is no conversation": {
			spans: []conversation.Span{{TraceID: "t8", SpanID: "h1", Attrs: map[string]any{"http.method": "GET"}}},
			want:  []conversation.Conversation{},
		},
		"a span exported twice counts once": {
			spans: []conversation.Span{
				{TraceID: "t9", SpanID: "c1", Start: 1, End: 2, Attrs: map[string]any{"gen_ai.operation.name": "chat",
					"gen_ai.input.messages":  `[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]`,
					"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"text","content":"Hello"}]}]`}},
				{TraceID: "t9", SpanID: "c1", Start: 1, End: 2, Attrs: map[string]any{"gen_ai.operation.name": "chat",
					"gen_ai.input.messages":  `[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]`,
					"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"text","content":"Hello"}]}]`}},
			},
			want: []conversation.Conversation{{ID: "t9", Traces: []string{"t9"}, Spans: 1, Start: 1, Messages: []eval.Message{
				{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello"}}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := conversation.Assemble(tc.spans)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDecodeJSONReadsHexIDs(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../fixtures/agents/nocontent.spans.jsonl")
	require.NoError(t, err)
	req, err := conversation.DecodeJSON(b)
	require.NoError(t, err)
	spans := conversation.Spans(req)
	require.Len(t, spans, 4)
	assert.Equal(t, "5b8efff798038103d269b633813fc60c", spans[0].TraceID)
	assert.Equal(t, "a000000000000001", spans[0].SpanID)
	assert.Empty(t, spans[0].ParentID)
	assert.Equal(t, "a000000000000001", spans[1].ParentID)

	_, err = conversation.DecodeJSON([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}`))
	assert.ErrorContains(t, err, `traceId: want hex, got "zz"`)
}

func TestSpanIDsAreValidAsOTLPSaysAndZeroParentsAreRoots(t *testing.T) {
	t.Parallel()
	const (
		trace = "4bf92f3577b34da6a3ce929d0e0e4736"
		span  = "00f067aa0ba902b7"
	)
	tests := map[string]struct {
		traceID, spanID, parentID string
		valid                     bool
		parent                    string // the span's ParentID once read
	}{
		"a root":                        {trace, span, "", true, ""},
		"a child":                       {trace, span, "a000000000000001", true, "a000000000000001"},
		"a parent of zeros is a root":   {trace, span, "0000000000000000", true, ""},
		"a trace ID of zeros":           {"00000000000000000000000000000000", span, "", false, ""},
		"a span ID of zeros":            {trace, "0000000000000000", "", false, ""},
		"a trace ID of 8 bytes":         {"4bf92f3577b34da6", span, "", false, ""},
		"a span ID of 16 bytes":         {trace, trace, "", false, ""},
		"no trace ID":                   {"", span, "", false, ""},
		"a parent ID of 4 bytes":        {trace, span, "0a0b0c0d", false, "0a0b0c0d"},
		"upper-case hex is read as hex": {"4BF92F3577B34DA6A3CE929D0E0E4736", span, "", true, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			body := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"` + tc.traceID + `","spanId":"` + tc.spanID +
				`","parentSpanId":"` + tc.parentID + `","name":"chat m"}]}]}]}`
			req, err := conversation.DecodeJSON([]byte(body))
			require.NoError(t, err)
			spans := conversation.Spans(req)
			require.Len(t, spans, 1)
			assert.Equal(t, tc.valid, spans[0].Valid())
			assert.Equal(t, tc.parent, spans[0].ParentID)
		})
	}
}

func TestRemoteParentsAreReadFromTheSpanFlags(t *testing.T) {
	t.Parallel()
	const (
		hasIsRemote = 0x100
		isRemote    = 0x200
	)
	tests := map[string]struct {
		parent    string
		flags     int
		remote    bool
		localRoot bool
	}{
		"a root": {"", 0, false, true},
		"a root, flags saying its context is local": {"", hasIsRemote, false, true},
		"a child of a local parent":                 {"a000000000000001", hasIsRemote | 1, false, false},
		"a child of a remote parent":                {"a000000000000001", hasIsRemote | isRemote | 1, true, true},
		"flags that do not say (an old SDK)":        {"a000000000000001", 1, false, false},
		"is-remote without has-is-remote":           {"a000000000000001", isRemote, false, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			body := fmt.Sprintf(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7","parentSpanId":%q,"flags":%d,"name":"x"}]}]}]}`,
				tc.parent, tc.flags)
			req, err := conversation.DecodeJSON([]byte(body))
			require.NoError(t, err)
			spans := conversation.Spans(req)
			require.Len(t, spans, 1)
			assert.Equal(t, tc.remote, spans[0].RemoteParent)
			assert.Equal(t, tc.localRoot, spans[0].LocalRoot())
		})
	}
}

// TestNotEvaluableSaysWhy: spans without content advise turning capture
// on; spans whose content was captured but cannot be read say so instead.
func TestNotEvaluableSaysWhy(t *testing.T) {
	t.Parallel()
	chat := func(attrs map[string]any) []conversation.Span {
		attrs["gen_ai.operation.name"] = "chat"
		return []conversation.Span{{TraceID: "t1", SpanID: "s1", Start: 1, End: 2, Attrs: attrs}}
	}
	tests := map[string]struct {
		spans []conversation.Span
		want  string
	}{
		"no message attribute": {
			spans: chat(map[string]any{"gen_ai.request.model": "m"}),
			want:  conversation.NotEvaluableReason,
		},
		"an empty message attribute": {
			spans: chat(map[string]any{"gen_ai.input.messages": ""}),
			want:  conversation.NotEvaluableReason,
		},
		"input messages that are not JSON": {
			spans: chat(map[string]any{"gen_ai.input.messages": "not json"}),
			want:  conversation.UnreadableReason,
		},
		"output messages that are a JSON object, not an array": {
			spans: chat(map[string]any{"gen_ai.output.messages": `{"role":"assistant","content":"Hello"}`}),
			want:  conversation.UnreadableReason,
		},
		"messages in a role none of GenAI's": {
			spans: chat(map[string]any{"gen_ai.input.messages": `[{"role":"customer","parts":[{"type":"text","content":"Hi"}]}]`}),
			want:  conversation.UnreadableReason,
		},
		"one readable user message: evaluable": {
			spans: chat(map[string]any{"gen_ai.input.messages": "not json",
				"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"text","content":"Hello"}]}]`}),
			want: "",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := conversation.Assemble(tc.spans)
			require.Len(t, got, 1)
			assert.Equal(t, tc.want, got[0].NotEvaluable)
		})
	}
}
