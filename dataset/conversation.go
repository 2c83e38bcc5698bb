package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// readConversation reads a record's conversation into s: "messages" (OpenAI
// chat messages), "expected_tool_calls" ({name, arguments} objects) and
// "ordered" (a boolean, or its text in a CSV cell). It reports whether
// the record has messages.
func readConversation(fields map[string]json.RawMessage, s *eval.Sample) (bool, *eval.InputError) {
	has := false
	if raw, ok := fields["messages"]; ok && kind(raw) != "null" {
		msgs, err := messages(raw)
		if err != nil {
			return false, err
		}
		s.Messages, has = msgs, len(msgs) > 0
	}
	if raw, ok := fields["expected_tool_calls"]; ok && kind(raw) != "null" {
		calls, err := expectedCalls(raw)
		if err != nil {
			return false, err
		}
		s.ExpectedToolCalls = calls
		has = true // an agent's test case: nothing called may be the answer
	}
	if raw, ok := fields["ordered"]; ok && kind(raw) != "null" {
		switch kind(raw) {
		case "boolean":
			s.Ordered = bytes.Equal(bytes.TrimSpace(raw), []byte("true"))
		case "string":
			var t string
			_ = json.Unmarshal(raw, &t)
			switch strings.ToLower(strings.TrimSpace(t)) {
			case "true", "yes", "1":
				s.Ordered = true
			case "false", "no", "0", "":
			default:
				return false, &eval.InputError{Field: "ordered", Msg: fmt.Sprintf("want true or false, got %q", t)}
			}
		default:
			return false, &eval.InputError{Field: "ordered", Msg: "want true or false, got " + kind(raw)}
		}
	}
	return has, nil
}

// elements splits a JSON array into its elements, or says it is none.
func elements(field string, raw json.RawMessage, what string) ([]json.RawMessage, *eval.InputError) {
	if kind(raw) != "array" {
		return nil, &eval.InputError{Field: field, Msg: "want an array of " + what + ", got " + kind(raw)}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, &eval.InputError{Field: field, Msg: "invalid array: " + strings.TrimPrefix(err.Error(), "json: "), Err: err}
	}
	return elems, nil
}

// fieldsOf decodes the object at field.
func fieldsOf(field string, raw json.RawMessage) (map[string]json.RawMessage, *eval.InputError) {
	if kind(raw) != "object" {
		return nil, &eval.InputError{Field: field, Msg: "want an object, got " + kind(raw)}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &eval.InputError{Field: field, Msg: "invalid object: " + strings.TrimPrefix(err.Error(), "json: "), Err: err}
	}
	return m, nil
}

// stringField reads an optional string member of an object at field;
// null and absent are "".
func stringField(obj map[string]json.RawMessage, field, name string) (string, *eval.InputError) {
	raw, ok := obj[name]
	if !ok || kind(raw) == "null" {
		return "", nil
	}
	var s string
	if kind(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		return "", &eval.InputError{Field: field + "." + name, Msg: "want a string, got " + kind(raw)}
	}
	return s, nil
}

var roles = []string{eval.RoleSystem, eval.RoleUser, eval.RoleAssistant, eval.RoleTool}

// roleNames are the roles a message may give, as an error lists them:
// "developer" is read as "system".
const roleNames = "system, developer, user, assistant, tool"

// messages reads OpenAI chat messages.
func messages(raw json.RawMessage) ([]eval.Message, *eval.InputError) {
	elems, err := elements("messages", raw, "messages")
	if err != nil {
		return nil, err
	}
	out := make([]eval.Message, 0, len(elems))
	for i, e := range elems {
		at := fmt.Sprintf("messages[%d]", i)
		m, err := message(at, e)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, answered(out)
}

// answered checks that each tool message names a call of the
// conversation: one whose ID no call has gives the result of nothing, a
// result no metric pairs with its call (a failure tool_call_errors would
// never count), as OpenAI's API refuses it.
func answered(msgs []eval.Message) *eval.InputError {
	ids := map[string]bool{}
	for _, c := range eval.Calls(msgs) {
		ids[c.ID] = true
	}
	for i, m := range msgs {
		if m.Role == eval.RoleTool && !ids[m.ToolCallID] {
			return &eval.InputError{Field: fmt.Sprintf("messages[%d].tool_call_id", i),
				Msg: fmt.Sprintf("%q names no tool call of the conversation: a tool message gives the result of a call an assistant message made (its id)", m.ToolCallID)}
		}
	}
	return nil
}

func message(at string, raw json.RawMessage) (eval.Message, *eval.InputError) {
	var m eval.Message
	obj, err := fieldsOf(at, raw)
	if err != nil {
		return m, err
	}
	if m.Role, err = stringField(obj, at, "role"); err != nil {
		return m, err
	}
	switch {
	case m.Role == "":
		return m, &eval.InputError{Field: at + ".role", Msg: "missing: want one of " + roleNames}
	case m.Role == "developer": // OpenAI's newer name of the system role
		m.Role = eval.RoleSystem
	case !slices.Contains(roles, m.Role):
		return m, &eval.InputError{Field: at + ".role", Msg: fmt.Sprintf("want one of %s, got %q", roleNames, m.Role)}
	}
	if m.Content, err = content(at+".content", obj["content"]); err != nil {
		return m, err
	}
	if m.Name, err = stringField(obj, at, "name"); err != nil {
		return m, err
	}
	if raw, ok := obj["error"]; ok && kind(raw) != "null" {
		if kind(raw) != "boolean" {
			return m, &eval.InputError{Field: at + ".error", Msg: "want true or false, got " + kind(raw)}
		}
		m.Error = bytes.Equal(bytes.TrimSpace(raw), []byte("true"))
	}
	if raw, ok := obj["tool_calls"]; ok && kind(raw) != "null" {
		if m.Role != eval.RoleAssistant {
			return m, &eval.InputError{Field: at + ".tool_calls", Msg: "only an assistant message calls tools, this one's role is " + m.Role}
		}
		elems, err := elements(at+".tool_calls", raw, "tool calls")
		if err != nil {
			return m, err
		}
		for j, e := range elems {
			c, err := toolCall(fmt.Sprintf("%s.tool_calls[%d]", at, j), e)
			if err != nil {
				return m, err
			}
			m.ToolCalls = append(m.ToolCalls, c)
		}
	}
	if m.ToolCallID, err = stringField(obj, at, "tool_call_id"); err != nil {
		return m, err
	}
	if m.Role == eval.RoleTool && m.ToolCallID == "" {
		return m, &eval.InputError{Field: at + ".tool_call_id", Msg: "missing: a tool message names the call whose result it is"}
	}
	return m, nil
}

// content reads a message's content: a string, or an array of parts of
// which the text parts ({"type": "text", "text": ...}) and an
// assistant's refusals ({"type": "refusal", "refusal": ...}) are kept,
// joined by a blank line.
func content(at string, raw json.RawMessage) (string, *eval.InputError) {
	switch kind(raw) {
	case "nothing", "null":
		return "", nil
	case "string":
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, nil
	case "array":
		elems, err := elements(at, raw, "content parts")
		if err != nil {
			return "", err
		}
		var texts []string
		for i, e := range elems {
			pat := fmt.Sprintf("%s[%d]", at, i)
			part, err := fieldsOf(pat, e)
			if err != nil {
				return "", err
			}
			typ, err := stringField(part, pat, "type")
			if err != nil {
				return "", err
			}
			field := "text"
			switch typ {
			case "text", "":
			case "refusal": // an assistant's refusal, said as its text is
				field = "refusal"
			default:
				continue // an image or audio part: nothing a judge reads
			}
			t, err := stringField(part, pat, field)
			if err != nil {
				return "", err
			}
			texts = append(texts, t)
		}
		return strings.Join(texts, "\n\n"), nil
	}
	return "", &eval.InputError{Field: at, Msg: "want a string or an array of content parts, got " + kind(raw)}
}

// toolCall reads one of an assistant message's tool calls:
// {id, type: "function", function: {name, arguments}}, the arguments a
// JSON object written as a string (or, leniently, the object itself).
func toolCall(at string, raw json.RawMessage) (eval.ToolCall, *eval.InputError) {
	var c eval.ToolCall
	obj, err := fieldsOf(at, raw)
	if err != nil {
		return c, err
	}
	if c.ID, err = stringField(obj, at, "id"); err != nil {
		return c, err
	}
	if c.Type, err = stringField(obj, at, "type"); err != nil {
		return c, err
	}
	if c.Type != "" && c.Type != "function" {
		return c, &eval.InputError{Field: at + ".type", Msg: fmt.Sprintf("want \"function\", got %q", c.Type)}
	}
	fraw, ok := obj["function"]
	if !ok || kind(fraw) == "null" {
		return c, &eval.InputError{Field: at + ".function", Msg: "missing: a tool call names its function {name, arguments}"}
	}
	fn, err := fieldsOf(at+".function", fraw)
	if err != nil {
		return c, err
	}
	if c.Function.Name, err = stringField(fn, at+".function", "name"); err != nil {
		return c, err
	}
	if c.Function.Name == "" {
		return c, &eval.InputError{Field: at + ".function.name", Msg: "missing: a tool call names its tool"}
	}
	args, ok := fn["arguments"]
	switch {
	case !ok || kind(args) == "null":
	case kind(args) == "object": // the object itself, as some exports write it
		c.Function.Arguments = string(compact(args))
	case kind(args) == "string":
		var s string
		_ = json.Unmarshal(args, &s)
		if strings.TrimSpace(s) != "" {
			if msg := jsonObject([]byte(s)); msg != "" {
				return c, &eval.InputError{Field: at + ".function.arguments", Msg: msg}
			}
		}
		c.Function.Arguments = s
	default:
		return c, &eval.InputError{Field: at + ".function.arguments", Msg: "want a JSON object written as a string, got " + kind(args)}
	}
	return c, nil
}

// jsonObject says why text is no JSON object, or "": invalid, another
// kind of value, or an object naming a key twice (which would be read as
// its last value in silence).
func jsonObject(text []byte) string {
	if !json.Valid(text) {
		return "not a JSON object: invalid JSON"
	}
	if k := kind(text); k != "object" {
		return "not a JSON object: got " + k
	}
	if path, _, _, dup := duplicateKey(text); dup {
		return fmt.Sprintf("%s: given twice in one object: arguments name each key once", path)
	}
	return ""
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// expectedCalls reads expected_tool_calls: [{name, arguments}], the
// arguments a JSON object (or its text); arguments left out accept any.
func expectedCalls(raw json.RawMessage) ([]eval.ExpectedToolCall, *eval.InputError) {
	elems, err := elements("expected_tool_calls", raw, "tool calls")
	if err != nil {
		return nil, err
	}
	out := make([]eval.ExpectedToolCall, 0, len(elems))
	for i, e := range elems {
		at := fmt.Sprintf("expected_tool_calls[%d]", i)
		obj, err := fieldsOf(at, e)
		if err != nil {
			return nil, err
		}
		var c eval.ExpectedToolCall
		if c.Name, err = stringField(obj, at, "name"); err != nil {
			return nil, err
		}
		if c.Name == "" {
			return nil, &eval.InputError{Field: at + ".name", Msg: "missing: an expected call names its tool"}
		}
		args, ok := obj["arguments"]
		switch {
		case !ok || kind(args) == "null":
		case kind(args) == "object":
			c.Arguments = compact(args)
		case kind(args) == "string":
			var s string
			_ = json.Unmarshal(args, &s)
			if msg := jsonObject([]byte(s)); msg != "" {
				return nil, &eval.InputError{Field: at + ".arguments", Msg: msg}
			}
			c.Arguments = compact([]byte(s))
		default:
			return nil, &eval.InputError{Field: at + ".arguments", Msg: "want a JSON object, got " + kind(args)}
		}
		out = append(out, c)
	}
	return out, nil
}
