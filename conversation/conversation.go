// Package conversation assembles the conversations an application had from
// its OpenTelemetry spans, so that Assay judges what an agent did from the
// traces it already exports: OTLP export requests (JSON, as a file of
// export lines or an OTLP/HTTP body, or protobuf) in, eval samples with
// OpenAI chat messages out.
//
// Two conventions are read:
//
//   - OpenTelemetry's GenAI semantic conventions: a model call's span
//     carries gen_ai.input.messages, gen_ai.output.messages and
//     gen_ai.system_instructions (JSON, messages of role and parts: text,
//     tool_call, tool_call_response; messages in OpenAI's own form are
//     read too); an execute_tool span carries gen_ai.tool.name,
//     gen_ai.tool.call.id, gen_ai.tool.call.arguments and
//     gen_ai.tool.call.result, and its error status; gen_ai.conversation.id
//     threads the traces of one session.
//   - OpenInference's flattened keys: llm.input_messages.N.message.role,
//     .content, .contents.K.message_content.text,
//     .tool_calls.K.tool_call.function.name and .arguments, and
//     llm.output_messages the same; a TOOL span's tool.name, input.value
//     and output.value; session.id threads a session.
//
// Spans are grouped into conversations by their conversation (or session)
// ID, which a span inherits from any other span of its trace, else by
// trace. Within one, spans are taken in the order they started: each model
// call's input extends the messages so far (its history repeated is
// recognised, not duplicated) and its output is appended; each tool span
// is joined to the call it answers (by call ID, else the earliest call of
// that tool without a result) as a tool message after the calls of its
// assistant message.
//
// A conversation whose spans carry no message content (capturing it is
// opt-in in the GenAI conventions) is kept, not evaluable: its sample
// says why (eval.Sample.NotEvaluable), and every metric skips it as
// eval.ErrNotEvaluable, shown and never a score.
package conversation

import (
	"cmp"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// NotEvaluableReason is the NotEvaluable of a conversation whose spans
// carry no message content.
const NotEvaluableReason = "the spans carry no message content (GenAI content capture is opt-in: " +
	"set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, or your instrumentation's switch)"

// UnreadableReason is the NotEvaluable of a conversation whose spans
// carry message content, but no user or assistant message that can be
// read from it (an attribute that is not a JSON array of messages, or
// roles that are none of GenAI's): content was captured, so turning
// capture on is not the advice.
const UnreadableReason = "the spans carry message content but no user or assistant message that can be read from it (" +
	AttrInput + " and " + AttrOutput + " want a JSON array of messages, each with a role: system, user, assistant or tool)"

// Conversation is one conversation assembled from spans.
type Conversation struct {
	// ID is its gen_ai.conversation.id (or session.id), else its trace ID.
	ID string
	// Traces are the IDs of its traces, in the order they started.
	Traces []string
	// Spans is how many spans it was assembled from.
	Spans    int
	Messages []eval.Message
	// NotEvaluable says why it cannot be judged, "" when it can.
	NotEvaluable string
	// Start is when its first span started (Unix nanoseconds).
	Start uint64
}

// Sample is the conversation as a sample to judge: its ID, its messages
// and, when it cannot be judged, why.
func (c Conversation) Sample() eval.Sample {
	return eval.Sample{ID: c.ID, Messages: c.Messages, NotEvaluable: c.NotEvaluable}
}

// Assemble groups spans into conversations, in the order each started.
// Spans of traces that have no GenAI or OpenInference span are no
// conversation and are left out; a span given twice (the same trace and
// span ID) counts once.
func Assemble(spans []Span) []Conversation {
	seen := map[string]bool{}
	var uniq []Span
	for _, s := range spans {
		k := s.TraceID + "/" + s.SpanID
		if seen[k] {
			continue
		}
		seen[k] = true
		uniq = append(uniq, s)
	}
	// The conversation of each trace: the first ID a span of it carries.
	traceConv := map[string]string{}
	genai := map[string]bool{}
	for _, s := range uniq {
		if kind(s) != spanOther {
			genai[s.TraceID] = true
		}
		if id := convID(s); id != "" && traceConv[s.TraceID] == "" {
			traceConv[s.TraceID] = id
		}
	}
	groups := map[string][]Span{}
	var order []string
	for _, s := range uniq {
		if !genai[s.TraceID] {
			continue
		}
		id := cmp.Or(traceConv[s.TraceID], s.TraceID)
		if _, ok := groups[id]; !ok {
			order = append(order, id)
		}
		groups[id] = append(groups[id], s)
	}
	out := make([]Conversation, 0, len(order))
	for _, id := range order {
		out = append(out, assemble(id, groups[id]))
	}
	slices.SortStableFunc(out, func(a, b Conversation) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

func convID(s Span) string { return cmp.Or(s.str(AttrConversation), s.str(oiSession)) }

// What a span is to a conversation.
const (
	spanOther = iota
	spanModel // a model call: messages in and out
	spanTool  // a tool's run
)

func kind(s Span) int {
	op, oi := s.str(AttrOperation), s.str(oiKind)
	switch {
	case op == OperationTool || oi == "TOOL":
		return spanTool
	case op != "" || oi == "LLM":
		return spanModel
	}
	for k := range s.Attrs {
		if k == AttrInput || k == AttrOutput || strings.HasPrefix(k, oiInput) || strings.HasPrefix(k, oiOutput) {
			return spanModel
		}
	}
	return spanOther
}

func assemble(id string, spans []Span) Conversation {
	slices.SortStableFunc(spans, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.SpanID, b.SpanID))
	})
	c := Conversation{ID: id, Spans: len(spans), Start: spans[0].Start}
	// A model call's input is said when it starts and its output when it
	// ends; a tool's result when it ends. An agent's span, which holds
	// the model calls and tools it made, so says its answer last.
	type event struct {
		at   uint64
		seq  int
		msgs []eval.Message // nil for a tool span
		tool *Span
	}
	var events []event
	unreadable := false // a message attribute that is not GenAI messages
	for i, s := range spans {
		if !slices.Contains(c.Traces, s.TraceID) {
			c.Traces = append(c.Traces, s.TraceID)
		}
		switch kind(s) {
		case spanModel:
			in, out := modelMessages(s)
			unreadable = unreadable || unreadableMessages(s)
			events = append(events, event{at: s.Start, seq: 2 * i, msgs: in}, event{at: max(s.End, s.Start), seq: 2*i + 1, msgs: out})
		case spanTool:
			events = append(events, event{at: max(s.End, s.Start), seq: 2*i + 1, tool: &spans[i]})
		}
	}
	slices.SortStableFunc(events, func(a, b event) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
	var msgs []eval.Message
	for _, e := range events {
		if e.tool != nil {
			msgs = joinTool(msgs, *e.tool)
			continue
		}
		msgs = extend(msgs, e.msgs)
	}
	c.Messages = msgs
	if !hasContent(msgs) {
		c.NotEvaluable = NotEvaluableReason
		if unreadable || slices.ContainsFunc(msgs, unknownRole) {
			c.NotEvaluable = UnreadableReason
		}
	}
	return c
}

// hasContent reports whether a user or assistant message says something.
func hasContent(msgs []eval.Message) bool {
	for _, m := range msgs {
		if (m.Role == eval.RoleUser || m.Role == eval.RoleAssistant) && m.Content != "" {
			return true
		}
	}
	return false
}

// unknownRole reports whether m says something in a role none of GenAI's
// (system, user, assistant, tool): content captured, in a role no metric
// reads.
func unknownRole(m eval.Message) bool {
	switch m.Role {
	case eval.RoleSystem, eval.RoleUser, eval.RoleAssistant, eval.RoleTool:
		return false
	}
	return m.Content != ""
}

// unreadableMessages reports whether a model call carries a GenAI
// messages attribute that genAIMessages cannot read.
func unreadableMessages(s Span) bool {
	for _, name := range []string{AttrInput, AttrOutput} {
		if v, ok := s.Attrs[name]; ok && len(jsonText(v)) > 0 {
			if _, read := genAIMessages(v); !read {
				return true
			}
		}
	}
	return false
}

// modelMessages reads a model call's messages in and out, in either
// convention.
func modelMessages(s Span) (in, out []eval.Message) {
	if sys, ok := systemInstructions(s.Attrs[AttrSystem]); ok {
		in = append(in, sys)
	}
	if m, ok := genAIMessages(s.Attrs[AttrInput]); ok {
		in = append(in, m...)
	} else if m, ok := flattened(s.Attrs, oiInput); ok {
		in = append(in, m...)
	}
	if m, ok := genAIMessages(s.Attrs[AttrOutput]); ok {
		out = m
	} else if m, ok := flattened(s.Attrs, oiOutput); ok {
		out = m
	}
	return in, out
}

// extend adds a model call's messages to those so far: when they repeat
// the messages so far (the history sent again), only what follows; when
// they start with the end of the messages so far, only the rest; when the
// messages so far already hold them all from the start, nothing.
func extend(msgs, more []eval.Message) []eval.Message {
	if len(more) == 0 {
		return msgs
	}
	if len(more) >= len(msgs) && equalMessages(more[:len(msgs)], msgs) {
		return slices.Clone(more)
	}
	if equalMessages(msgs[:min(len(more), len(msgs))], more[:min(len(more), len(msgs))]) {
		return msgs // an earlier call's history: nothing new
	}
	for k := min(len(more), len(msgs)); k > 0; k-- {
		if equalMessages(msgs[len(msgs)-k:], more[:k]) {
			return append(msgs, more[k:]...)
		}
	}
	// A system message sent again before the new turn is not said twice.
	if len(msgs) > 0 && more[0].Role == eval.RoleSystem && sameMessage(msgs[0], more[0]) {
		more = more[1:]
	}
	return append(msgs, more...)
}

func equalMessages(a, b []eval.Message) bool {
	return slices.EqualFunc(a, b, sameMessage)
}

// sameMessage compares two messages as the same message of the
// conversation; a tool message is known by its call ID, as one exported
// without content (by the model span) is the same as with it (by the
// tool span).
func sameMessage(a, b eval.Message) bool {
	if a.Role != b.Role {
		return false
	}
	if a.Role == eval.RoleTool && a.ToolCallID != "" {
		return a.ToolCallID == b.ToolCallID
	}
	if a.Content != b.Content || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := a.ToolCalls[i], b.ToolCalls[i]
		if x.ID != y.ID || x.Function.Name != y.Function.Name {
			return false
		}
	}
	return true
}

// joinTool joins a tool span to the call it answers: its result becomes
// (or fills) the tool message of that call, after the calls of its
// assistant message; a tool span that answers no call known is a call
// and its result, appended.
func joinTool(msgs []eval.Message, s Span) []eval.Message {
	name := cmp.Or(s.str(AttrToolName), s.str(oiToolName))
	id := cmp.Or(s.str(AttrToolCallID), s.str(oiToolID))
	args := argsText(jsonText(firstOf(s.Attrs, AttrToolArguments, oiToolInput)))
	result, ok := firstOf(s.Attrs, AttrToolResult, oiToolOut).(string)
	if !ok {
		result = string(jsonText(firstOf(s.Attrs, AttrToolResult, oiToolOut)))
	}
	if result == "" && s.Error {
		result = cmp.Or(s.Status, s.str(AttrErrorType), "error")
	}
	at, call := answeredCall(msgs, id, name)
	if at < 0 {
		if id == "" {
			id = "span-" + s.SpanID
		}
		return append(msgs,
			eval.Message{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{{ID: id, Type: "function", Function: eval.ToolFunction{Name: name, Arguments: args}}}},
			eval.Message{Role: eval.RoleTool, ToolCallID: id, Content: result, Error: s.Error})
	}
	c := msgs[at].ToolCalls[call]
	if c.ID == "" {
		c.ID = "span-" + s.SpanID
		msgs[at].ToolCalls[call].ID = c.ID
	}
	if c.Function.Arguments == "" && args != "" {
		msgs[at].ToolCalls[call].Function.Arguments = args
	}
	if i := resultOf(msgs, at, c.ID); i >= 0 {
		if msgs[i].Content == "" {
			msgs[i].Content = result
		}
		msgs[i].Error = msgs[i].Error || s.Error
		return msgs
	}
	// After the assistant message and the results already there.
	pos := at + 1
	for pos < len(msgs) && msgs[pos].Role == eval.RoleTool {
		pos++
	}
	return slices.Insert(msgs, pos, eval.Message{Role: eval.RoleTool, ToolCallID: c.ID, Content: result, Error: s.Error})
}

// answeredCall finds the call a tool span answers, as the index of its
// assistant message and of the call in it, or -1, -1: by ID the latest
// call of that ID (a model may number each turn's calls afresh, and a
// tool's span ends after the call was made), else the earliest call of
// the tool without a result.
func answeredCall(msgs []eval.Message, id, name string) (at, call int) {
	if id != "" {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role != eval.RoleAssistant {
				continue
			}
			for j, c := range msgs[i].ToolCalls {
				if c.ID == id {
					return i, j
				}
			}
		}
		return -1, -1
	}
	for i, m := range msgs {
		if m.Role != eval.RoleAssistant {
			continue
		}
		for j, c := range m.ToolCalls {
			if c.Function.Name == name && resultOf(msgs, i, c.ID) < 0 {
				return i, j
			}
		}
	}
	return -1, -1
}

// resultOf returns the index of the tool message with the call ID id
// after the assistant message at, before another call of that ID; or -1.
func resultOf(msgs []eval.Message, at int, id string) int {
	for i := at + 1; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == eval.RoleTool && m.ToolCallID == id {
			return i
		}
		if m.Role == eval.RoleAssistant && slices.ContainsFunc(m.ToolCalls, func(c eval.ToolCall) bool { return c.ID == id }) {
			return -1
		}
	}
	return -1
}

func firstOf(attrs map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := attrs[k]; ok && v != nil {
			return v
		}
	}
	return nil
}
