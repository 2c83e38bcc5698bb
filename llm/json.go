package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/invopop/jsonschema"
)

// Validator is implemented by reply types that check their own values
// (ranges, enums, required lists) after decoding.
type Validator interface {
	Validate() error
}

// SchemaFor generates the JSON schema of T in the shape OpenAI's strict
// structured outputs want: every property required, no additional
// properties, no $schema or $ref.
func SchemaFor[T any](name string) *Schema {
	r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}
	var zero T
	s := r.ReflectFromType(reflect.TypeOf(zero))
	s.Version = ""
	data, err := json.Marshal(s)
	if err != nil {
		// Reflecting a Go type we wrote cannot fail at run time; a type
		// that cannot be described is a programming error.
		panic(fmt.Sprintf("llm: schema for %T: %v", zero, err))
	}
	return &Schema{Name: name, JSON: data}
}

// Chatter is anything that answers chat requests; *Client is one.
type Chatter interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// ChatJSON sends req and decodes the reply into out (a pointer). A reply
// that is not valid JSON of out's shape gets one repair request quoting the
// problem; if that fails too, the error wraps ErrInvalidOutput. The returned
// Usage covers both calls.
func ChatJSON(ctx context.Context, c Chatter, req Request, out any) (Usage, error) {
	typ := reflect.TypeOf(out).Elem()
	req.Check = func(content string) error { return DecodeJSON(content, reflect.New(typ).Interface()) }
	resp, err := c.Chat(ctx, req)
	u := resp.Usage
	if err != nil {
		return u, err
	}
	perr := DecodeJSON(resp.Content, out)
	if perr == nil {
		return u, nil
	}
	repair := req
	ask := "That reply could not be used: " + perr.Error() +
		". Reply again with only the JSON object the schema describes, and nothing else."
	if resp.Truncated {
		// The reply ran out of room, not out of sense: give the repair
		// twice the room and ask for a shorter reply.
		ask = "That reply was cut off at the output limit before the JSON object was complete. " +
			"Reply again with only the complete JSON object the schema describes, keeping every text field short."
		if req.MaxTokens > 0 {
			repair.MaxTokens = 2 * req.MaxTokens
		}
	}
	repair.Messages = append(append([]Message(nil), req.Messages...),
		Message{Role: Assistant, Content: resp.Content},
		Message{Role: User, Content: ask})
	if req.Key != "" {
		repair.Key = req.Key + "/repair"
	}
	repair.Tag = req.Tag + "/repair"
	resp2, err := c.Chat(ctx, repair)
	u = u.Add(resp2.Usage)
	if err != nil {
		return u, fmt.Errorf("repair after %v: %w", perr, err)
	}
	// DecodeJSON starts from zero: fields of the rejected reply cannot fill
	// gaps in the repaired one.
	if err := DecodeJSON(resp2.Content, out); err != nil {
		return u, err
	}
	return u, nil
}

// DecodeJSON reads a JSON object from a model's reply into out, tolerating
// what open models wrap around it: a reasoning block (<think>...</think>,
// as DeepSeek-R1 and Qwen3 write before answering), Markdown fences, prose
// before or after, even a stray {...} in that prose. It tries each
// balanced object in order and keeps the first that decodes into out and
// passes its Validate method, if it has one. Errors wrap ErrInvalidOutput
// and describe the first candidate's problem.
func DecodeJSON(content string, out any) error {
	content = reasoningBlock.ReplaceAllString(content, "")
	var first error
	for rest := content; ; {
		raw, next := nextObject(rest)
		if next < 0 {
			break
		}
		rest = rest[next:]
		if raw == "" {
			continue
		}
		// Start from zero: fields of a rejected candidate must not fill
		// gaps in the next.
		reflect.ValueOf(out).Elem().SetZero()
		err := decodeObject(raw, out)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	return fmt.Errorf("%w: no JSON object in reply %q", ErrInvalidOutput, clip(content, 80))
}

// reasoningBlock is the thinking some models write before their answer;
// one left open (the reply was cut while thinking) runs to the end.
var reasoningBlock = regexp.MustCompile(`(?is)<(?:think|thinking|reasoning)>.*?(?:</(?:think|thinking|reasoning)>|\z)`)

func decodeObject(raw string, out any) error {
	dec := json.NewDecoder(strings.NewReader(raw))
	if err := dec.Decode(out); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%w: field %q: want %s, got %s", ErrInvalidOutput, te.Field, te.Type, te.Value)
		}
		return fmt.Errorf("%w: %v", ErrInvalidOutput, err)
	}
	if v, ok := out.(Validator); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidOutput, err)
		}
	}
	return nil
}

// nextObject finds the first '{' of s and returns the balanced {...} that
// starts there (skipping strings) and the offset to search on from: after
// the object, or after the '{' when it never closes (raw is then ""). next
// is -1 when s has no '{'.
func nextObject(s string) (raw string, next int) {
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return "", -1
	}
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		ch := s[i]
		switch {
		case esc:
			esc = false
		case inStr && ch == '\\':
			esc = true
		case ch == '"':
			inStr = !inStr
		case inStr:
		case ch == '{':
			depth++
		case ch == '}':
			depth--
			if depth == 0 {
				return s[start : i+1], i + 1
			}
		}
	}
	return "", start + 1 // truncated: an object may still start inside
}

func clip(s string, n int) string {
	s = string(bytes.ToValidUTF8([]byte(s), nil))
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
