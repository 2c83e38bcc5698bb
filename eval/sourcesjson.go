package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// sourceRecord is one source in a --sources file.
type sourceRecord struct {
	URL              string   `json:"url"`
	Title            string   `json:"title"`
	Author           *string  `json:"author"`
	AuthorVerified   *bool    `json:"author_verified"`
	Published        string   `json:"published"`
	References       *int     `json:"references"`
	Credibility      *float64 `json:"credibility"`
	CredibilityScore *float64 `json:"credibility_score"`
	Text             string   `json:"text"`
}

// DecodeSources reads a sources file: a JSON array of sources, or an object
// whose "validated_citations" (seed 000) or "sources" field is one. Each
// source has "url" and optionally "credibility_score" (or "credibility",
// 1..10), "title", "author" (null or "" means known to have none),
// "author_verified", "published" (YYYY-MM-DD or RFC 3339), "references" (a
// count) and "text". Errors name the file, the line and the field.
func DecodeSources(name string, data []byte) ([]Source, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, &InputError{File: name, Msg: "empty input: expected a JSON array of sources, or an object with sources"}
	}
	var recs []sourceRecord
	var err error
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var wrap struct {
			Validated []sourceRecord `json:"validated_citations"`
			Sources   []sourceRecord `json:"sources"`
		}
		err = strictDecode(data, &wrap)
		recs = append(wrap.Validated, wrap.Sources...)
	} else {
		err = strictDecode(data, &recs)
	}
	if err != nil {
		return nil, jsonInputError(name, data, err)
	}
	out := make([]Source, 0, len(recs))
	for i, r := range recs {
		field := func(f string) string { return fmt.Sprintf("sources[%d].%s", i, f) }
		bad := func(f, msg string) error {
			return &InputError{File: name, Line: lineOfIndex(data, i), Field: field(f), Msg: msg}
		}
		if strings.TrimSpace(r.URL) == "" {
			return nil, bad("url", "missing")
		}
		s := Source{URL: r.URL, Title: r.Title, AuthorVerified: r.AuthorVerified, References: r.References, Text: r.Text}
		if r.Author != nil {
			s.Author, s.AuthorKnown = *r.Author, true
		}
		if r.References != nil && *r.References < 0 {
			return nil, bad("references", fmt.Sprintf("must be a count >= 0, got %d", *r.References))
		}
		c, cField := r.CredibilityScore, "credibility_score"
		if c == nil {
			c, cField = r.Credibility, "credibility" // name the field as the file spells it
		}
		if c != nil {
			if math.IsNaN(*c) || *c < 1 || *c > 10 {
				return nil, bad(cField, fmt.Sprintf("must be between 1 and 10, got %v", *c))
			}
			s.Credibility = c
		}
		if r.Published != "" {
			t, err := parseTime(r.Published)
			if err != nil {
				return nil, bad("published", err.Error())
			}
			s.Published = t
		}
		out = append(out, s)
	}
	return out, nil
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("want YYYY-MM-DD or RFC 3339, got %q", s)
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// jsonInputError turns an encoding/json error into an InputError with the
// line and field.
func jsonInputError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &InputError{File: name, Line: lineAt(data, int(min(se.Offset, int64(len(data))))), Msg: "invalid JSON: " + se.Error()}
	case errors.As(err, &te):
		return &InputError{File: name, Line: lineAt(data, int(min(te.Offset, int64(len(data))))), Field: te.Field,
			Msg: fmt.Sprintf("must be %s, got %s", JSONType(te.Type), te.Value)}
	}
	// encoding/json reports an unknown field by name only: find its key.
	if q, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if key, uerr := strconv.Unquote(q); uerr == nil {
			return &InputError{File: name, Line: keyLine(data, key), Field: key, Msg: "unknown field"}
		}
	}
	return &InputError{File: name, Msg: err.Error()}
}

// JSONType names what a Go type decodes from, in JSON's terms ("a
// string", "a whole number"): the want of an error about a value of the
// wrong kind (json.UnmarshalTypeError's Type).
func JSONType(t reflect.Type) string {
	if t == nil {
		return "a value of another kind"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

// keyLine is the line of the first object key named key in data; 0 when
// there is none.
func keyLine(data []byte, key string) int {
	quoted, _ := json.Marshal(key)
	for off := 0; ; {
		i := bytes.Index(data[off:], quoted)
		if i < 0 {
			return 0
		}
		off += i + len(quoted)
		if rest := bytes.TrimLeft(data[off:], " \t\r\n"); len(rest) > 0 && rest[0] == ':' {
			return lineAt(data, off)
		}
	}
}

// lineOfIndex finds the line where the i-th object of the first array in
// data starts; 0 when it cannot tell.
func lineOfIndex(data []byte, i int) int {
	depth, n, arr := 0, -1, -1
	inStr, esc := false, false
	for off, b := range data {
		switch {
		case esc:
			esc = false
		case inStr && b == '\\':
			esc = true
		case b == '"':
			inStr = !inStr
		case inStr:
		case b == '[' || b == '{':
			depth++
			if b == '[' && arr < 0 {
				arr = depth
			}
			if b == '{' && arr > 0 && depth == arr+1 {
				n++
				if n == i {
					return lineAt(data, off)
				}
			}
		case b == ']' || b == '}':
			depth--
		}
	}
	return 0
}
