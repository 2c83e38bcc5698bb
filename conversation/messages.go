package conversation

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// Attribute keys of OpenTelemetry's GenAI semantic conventions.
const (
	AttrOperation     = "gen_ai.operation.name"
	AttrConversation  = "gen_ai.conversation.id"
	AttrInput         = "gen_ai.input.messages"
	AttrOutput        = "gen_ai.output.messages"
	AttrSystem        = "gen_ai.system_instructions"
	AttrToolName      = "gen_ai.tool.name"
	AttrToolCallID    = "gen_ai.tool.call.id"
	AttrToolArguments = "gen_ai.tool.call.arguments"
	AttrToolResult    = "gen_ai.tool.call.result"
	AttrErrorType     = "error.type"
	// OperationTool is the operation of a span that runs a tool.
	OperationTool = "execute_tool"
)

// Attribute keys of OpenInference's flattened conventions.
const (
	oiKind      = "openinference.span.kind"
	oiSession   = "session.id"
	oiInput     = "llm.input_messages."
	oiOutput    = "llm.output_messages."
	oiToolName  = "tool.name"
	oiToolID    = "tool_call.id"
	oiToolInput = "input.value"
	oiToolOut   = "output.value"
)

// wireMessage is a message as the GenAI conventions write it (role and
// parts) or as OpenAI's chat format does (role, content, tool_calls,
// tool_call_id); either is read.
type wireMessage struct {
	Role       string          `json:"role"`
	Parts      []wirePart      `json:"parts"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  []wireCall      `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// wirePart is one part of a GenAI message: text, a tool call or a tool
// call's response.
type wirePart struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Text      string          `json:"text"`
	Refusal   string          `json:"refusal"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Response  json.RawMessage `json:"response"`
	Result    json.RawMessage `json:"result"`
}

type wireCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// genAIMessages reads a GenAI messages attribute (a JSON array); ok is
// false when the attribute is absent or no such array.
func genAIMessages(v any) ([]eval.Message, bool) {
	text := jsonText(v)
	if len(text) == 0 {
		return nil, false
	}
	var wire []wireMessage
	if json.Unmarshal(text, &wire) != nil {
		return nil, false
	}
	var out []eval.Message
	for _, w := range wire {
		out = append(out, fromWire(w)...)
	}
	return out, true
}

// systemInstructions reads gen_ai.system_instructions: an array of parts
// (or a plain string), as one system message.
func systemInstructions(v any) (eval.Message, bool) {
	text := jsonText(v)
	if len(text) == 0 {
		return eval.Message{}, false
	}
	var parts []wirePart
	if json.Unmarshal(text, &parts) != nil {
		s, ok := v.(string)
		return eval.Message{Role: eval.RoleSystem, Content: s}, ok && s != ""
	}
	var texts []string
	for _, p := range parts {
		if t := partText(p); t != "" {
			texts = append(texts, t)
		}
	}
	return eval.Message{Role: eval.RoleSystem, Content: strings.Join(texts, "\n\n")}, len(texts) > 0
}

func partText(p wirePart) string {
	if p.Type == "refusal" { // an assistant's refusal in OpenAI's parts
		return p.Refusal
	}
	if p.Type != "" && p.Type != "text" {
		return ""
	}
	if p.Text != "" {
		return p.Text
	}
	return stringOf(p.Content)
}

// stringOf is a JSON string's value, or the JSON text of any other
// value ("" for nothing or null).
func stringOf(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(t, &s) == nil {
		return s
	}
	return string(compactJSON(t))
}

// argsText is a call's arguments as OpenAI writes them: the JSON object's
// compact text, whether given as an object or as its text.
func argsText(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return ""
	}
	if t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			return string(compactJSON([]byte(s)))
		}
	}
	return string(compactJSON(t))
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return bytes.TrimSpace(b)
	}
	return out.Bytes()
}

// fromWire turns one wire message into OpenAI chat messages: a GenAI
// message with several tool call responses is one tool message each.
func fromWire(w wireMessage) []eval.Message {
	m := eval.Message{Role: roleOf(w.Role), Name: w.Name, ToolCallID: w.ToolCallID}
	if len(w.Parts) == 0 {
		m.Content = contentText(w.Content)
		for _, c := range w.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, eval.ToolCall{ID: c.ID, Type: "function",
				Function: eval.ToolFunction{Name: c.Function.Name, Arguments: argsText(c.Function.Arguments)}})
		}
		return []eval.Message{m}
	}
	var texts []string
	var results []eval.Message
	for _, p := range w.Parts {
		switch p.Type {
		case "tool_call":
			m.ToolCalls = append(m.ToolCalls, eval.ToolCall{ID: p.ID, Type: "function",
				Function: eval.ToolFunction{Name: p.Name, Arguments: argsText(p.Arguments)}})
		case "tool_call_response":
			resp := p.Response
			if len(resp) == 0 {
				resp = p.Result
			}
			results = append(results, eval.Message{Role: eval.RoleTool, ToolCallID: p.ID, Content: stringOf(resp)})
		default:
			if t := partText(p); t != "" {
				texts = append(texts, t)
			}
		}
	}
	m.Content = strings.Join(texts, "\n\n")
	if len(results) > 0 && m.Content == "" && len(m.ToolCalls) == 0 {
		return results
	}
	return append([]eval.Message{m}, results...)
}

// contentText reads OpenAI content: a string or an array of parts.
func contentText(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '[' {
		var parts []wirePart
		if json.Unmarshal(t, &parts) == nil {
			var texts []string
			for _, p := range parts {
				if s := partText(p); s != "" {
					texts = append(texts, s)
				}
			}
			return strings.Join(texts, "\n\n")
		}
	}
	return stringOf(t)
}

// flattened reads OpenInference's flattened messages under prefix
// ("llm.input_messages."): prefix N ".message.role", ".message.content",
// ".message.contents.K.message_content.text", ".message.name",
// ".message.tool_call_id" and ".message.tool_calls.K.tool_call.id",
// ".tool_call.function.name", ".tool_call.function.arguments".
func flattened(attrs map[string]any, prefix string) ([]eval.Message, bool) {
	byIndex := map[int]*flatMessage{}
	for key, v := range attrs {
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue
		}
		idx, field, ok := strings.Cut(rest, ".")
		n, err := strconv.Atoi(idx)
		if !ok || err != nil {
			continue
		}
		at := byIndex[n]
		if at == nil {
			at = &flatMessage{parts: map[int]string{}, calls: map[int]*eval.ToolCall{}}
			byIndex[n] = at
		}
		at.set(strings.TrimPrefix(field, "message."), v)
	}
	if len(byIndex) == 0 {
		return nil, false
	}
	out := make([]eval.Message, 0, len(byIndex))
	for _, n := range sortedKeys(byIndex) {
		out = append(out, byIndex[n].message())
	}
	return out, true
}

// flatMessage is one message of flattened attributes as read so far: its
// fields, its content parts and its tool calls by index.
type flatMessage struct {
	m     eval.Message
	parts map[int]string
	calls map[int]*eval.ToolCall
}

// set sets field (after "message.") to v.
func (at *flatMessage) set(field string, v any) {
	s, _ := v.(string)
	switch {
	case field == "role":
		at.m.Role = roleOf(s)
	case field == "content":
		at.m.Content = s
	case field == "name":
		at.m.Name = s
	case field == "tool_call_id":
		at.m.ToolCallID = s
	case strings.HasPrefix(field, "contents."):
		k, sub, _ := strings.Cut(strings.TrimPrefix(field, "contents."), ".")
		if i, err := strconv.Atoi(k); err == nil && sub == "message_content.text" {
			at.parts[i] = s
		}
	case strings.HasPrefix(field, "tool_calls."):
		k, sub, _ := strings.Cut(strings.TrimPrefix(field, "tool_calls."), ".")
		i, err := strconv.Atoi(k)
		if err != nil {
			return
		}
		c := at.calls[i]
		if c == nil {
			c = &eval.ToolCall{Type: "function"}
			at.calls[i] = c
		}
		switch sub {
		case "tool_call.id":
			c.ID = s
		case "tool_call.function.name":
			c.Function.Name = s
		case "tool_call.function.arguments":
			c.Function.Arguments = argsText(jsonText(v))
		}
	}
}

// message is the message read: its parts joined when it has no content,
// and its tool calls in order.
func (at *flatMessage) message() eval.Message {
	if at.m.Content == "" && len(at.parts) > 0 {
		var texts []string
		for _, k := range sortedKeys(at.parts) {
			texts = append(texts, at.parts[k])
		}
		at.m.Content = strings.Join(texts, "\n\n")
	}
	for _, k := range sortedKeys(at.calls) {
		at.m.ToolCalls = append(at.m.ToolCalls, *at.calls[k])
	}
	return at.m
}

// roleOf is a message's role as the metrics read it: lower-cased, as
// instrumentations that write "Assistant" or "USER" mean the roles of
// the conventions, and a developer's role as the system's.
func roleOf(role string) string {
	role = strings.ToLower(strings.TrimSpace(role))
	if role == "developer" {
		return eval.RoleSystem
	}
	return role
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
