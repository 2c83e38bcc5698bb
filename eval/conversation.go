package eval

import (
	"cmp"
	"encoding/json"
	"errors"
	"strings"
)

// Roles of a conversation's messages, the OpenAI chat format's.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one message of a conversation, in the OpenAI chat format: a
// system, user or assistant message with its text, an assistant message
// with the tools it called (ToolCalls), or a tool message with the result
// of one call (ToolCallID names it).
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
	// Name is the tool's name on a tool message, when given.
	Name string `json:"name,omitempty"`
	// ToolCalls are the calls an assistant message made, in the order it
	// gave them; those of one message ran in parallel.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is, on a tool message, the ID of the call whose result
	// it is.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Error is true on a tool message whose call failed, when the source
	// says so (a span with an error status, a record's "error": true).
	Error bool `json:"error,omitempty"`
}

// ToolCall is one call of a tool by an assistant message, in the OpenAI
// chat format.
type ToolCall struct {
	ID string `json:"id,omitempty"`
	// Type is "function", the only kind of call.
	Type     string       `json:"type,omitempty"`
	Function ToolFunction `json:"function"`
}

// ToolFunction is the function a ToolCall calls: its name and its
// arguments, a JSON object written as a string ("" is no arguments).
type ToolFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments,omitempty"`
}

// ExpectedToolCall is a call a sample expects its conversation to make:
// the tool's name and its arguments, a JSON object. Arguments nil (the
// field left out) accepts any arguments; "{}" expects none.
type ExpectedToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Failed reports whether a tool message says its call failed: flagged
// (Error), or its content starts with "error" (in any case) or is a JSON
// object with an "error" member that is neither null nor false.
func (m Message) Failed() bool {
	if m.Error {
		return true
	}
	t := strings.TrimSpace(m.Content)
	if len(t) >= 5 && strings.EqualFold(t[:5], "error") {
		return true
	}
	var obj map[string]any
	if strings.HasPrefix(t, "{") && json.Unmarshal([]byte(t), &obj) == nil {
		if v, ok := obj["error"]; ok && v != nil && v != false {
			return true
		}
	}
	return false
}

// ErrNoConversation is a Score's Err, and named in its reason, when a
// metric of a conversation is given a sample without one (no messages):
// the score is Skipped. Test with errors.Is.
var ErrNoConversation = errors.New("the sample has no conversation (no messages)")

// NotEvaluable is the word every output uses for a conversation that
// cannot be judged (ErrNotEvaluable): its count, its mark and the start
// of its reason.
const NotEvaluable = "not_evaluable"

// ErrNotEvaluable is a Score's Err when the sample's conversation came
// from spans that carry no message content (content capture is opt-in
// in OpenTelemetry's GenAI conventions): the score is Skipped, shown as
// not_evaluable, never a value. Test with errors.Is.
var ErrNotEvaluable = errors.New(NotEvaluable)

// NotEvaluableReason is the Reason of a score skipped as ErrNotEvaluable:
// "not_evaluable: " and why.
func NotEvaluableReason(why string) string { return NotEvaluable + ": " + why }

// Calls returns the tool calls of the conversation's assistant messages,
// in order.
func Calls(msgs []Message) []ToolCall {
	var out []ToolCall
	for _, m := range msgs {
		if m.Role == RoleAssistant {
			out = append(out, m.ToolCalls...)
		}
	}
	return out
}

// Transcript writes the conversation as plain text, one message a
// paragraph ("user: ...", "assistant called search({...})",
// "tool search: ..."), the form judges read.
func Transcript(msgs []Message) string {
	paras := make([]string, 0, len(msgs))
	tools := map[string]string{} // call ID -> the tool's name
	for _, m := range msgs {
		var lines []string
		switch {
		case m.Role == RoleTool:
			head := "tool"
			if name := cmp.Or(m.Name, tools[m.ToolCallID]); name != "" {
				head += " " + name
			}
			if m.Error {
				head += " (error)"
			}
			lines = append(lines, head+": "+m.Content)
		default:
			if m.Content != "" || len(m.ToolCalls) == 0 {
				lines = append(lines, m.Role+": "+m.Content)
			}
			for _, c := range m.ToolCalls {
				tools[c.ID] = c.Function.Name
				lines = append(lines, m.Role+" called "+c.Function.Name+"("+c.Function.Arguments+")")
			}
		}
		paras = append(paras, strings.Join(lines, "\n"))
	}
	return strings.Join(paras, "\n\n")
}
