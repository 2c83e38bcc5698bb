package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// ErrorBody is every error answer: what went wrong, and where in the
// request when the request is at fault (see httpjson.ErrorBody).
type ErrorBody = httpjson.ErrorBody

// httpError is an error with its status and body.
type httpError = httpjson.StatusError

// badRequest is a 400 naming field.
func badRequest(field, format string, args ...any) *httpError {
	return httpjson.BadRequest(field, format, args...)
}

// inputError is an *eval.InputError as a 400, its field under prefix
// (the path of the document it is about: "traces[2].sample").
func inputError(prefix string, ie *eval.InputError) *httpError {
	field := joinField(prefix, strings.TrimPrefix(ie.Field, "--"))
	msg := ie.Msg
	if ie.Field != "" && !strings.HasPrefix(ie.Field, "--") {
		msg = ie.Field + ": " + msg
	}
	if prefix != "" {
		msg = prefix + ": " + msg
	}
	return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: msg, Field: field, Line: ie.Line, Column: ie.Col}}
}

func joinField(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "":
		return prefix
	case strings.HasPrefix(field, "["):
		return prefix + field
	}
	return prefix + "." + field
}

// asHTTP maps an error of a handler to its answer: a request error as
// it is, an input error 400, a body over the limit 413, a deadline 504,
// anything else 500.
func asHTTP(err error, prefix string) *httpError {
	if he, ok := errors.AsType[*httpError](err); ok {
		return he
	}
	if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &httpError{Status: http.StatusRequestEntityTooLarge, Body: ErrorBody{Error: fmt.Sprintf("request body larger than %d bytes", mb.Limit)}}
	}
	if ie, ok := errors.AsType[*eval.InputError](err); ok {
		return inputError(prefix, ie)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &httpError{Status: http.StatusGatewayTimeout, Body: ErrorBody{Error: "timed out: " + err.Error()}}
	}
	return &httpError{Status: http.StatusInternalServerError, Body: ErrorBody{Error: err.Error()}}
}

// writeError answers err (asHTTP).
func writeError(w http.ResponseWriter, err error, prefix string) {
	he := asHTTP(err, prefix)
	httpjson.Write(w, he.Status, he.Body)
}

// decodeBody decodes the request's JSON body into v, strictly: an unknown
// field, a wrong type, a syntax error or anything after the value is a
// 400 naming the field or the offset; a body over the limit a 413.
//
// A string holding bytes that are not UTF-8 is a 400 naming its field:
// encoding/json would read each such byte as U+FFFD, silently, and the
// text judged, journaled or stored would not be the text sent.
func decodeBody(r *http.Request, v any) error {
	body, err := bodyBytes(r)
	if err != nil {
		return err
	}
	if !utf8.Valid(body) {
		return notUTF8(body)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return bodyError(err, dec.InputOffset())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return mb
		}
		return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: "invalid JSON: more after the request's object", Offset: dec.InputOffset()}}
	}
	return nil
}

// bodyError is a decoding error as a 400 (or the 413 of a body too large).
func bodyError(err error, offset int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, new(*http.MaxBytesError)):
		return err
	case errors.Is(err, io.EOF):
		return badRequest("", "empty body: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: "invalid JSON: the body ends inside a value", Offset: offset}}
	case errors.As(err, &se):
		return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: "invalid JSON: " + se.Error(), Offset: se.Offset}}
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: "want a JSON object, got " + te.Value, Offset: te.Offset}}
		}
		return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: fmt.Sprintf("%s: want %s, got %s", field, eval.JSONType(te.Type), te.Value), Field: field, Offset: te.Offset}}
	}
	// DisallowUnknownFields reports `json: unknown field "name"`, untyped.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if u, err := strconv.Unquote(name); err == nil {
			name = u
		}
		field := name
		if len(field) > httpjson.MaxEcho {
			field = "" // no field of this API is as long: the message quotes its start
		}
		return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: fmt.Sprintf("unknown field %s (see /openapi.json for the fields)", httpjson.Echo(name)), Field: field, Offset: offset}}
	}
	return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: "invalid JSON: " + err.Error(), Offset: offset}}
}

// notUTF8 is the 400 of a JSON body whose first bytes that are not UTF-8
// are in the string at field (the body's syntax is checked after).
func notUTF8(body []byte) error {
	off := 0
	for off < len(body) {
		r, n := utf8.DecodeRune(body[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	field := pathAt(body, int64(off))
	msg := "invalid UTF-8: send text as UTF-8"
	if field != "" {
		msg = field + ": " + msg
	}
	return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: msg, Field: field, Offset: int64(off)}}
}

// pathAt is the path ("traces[1].sample.question") of the value that
// holds byte off of a JSON document, the object's for a byte in a key;
// "" for the top level, or past a syntax error.
func pathAt(doc []byte, off int64) string {
	type frame struct {
		array bool
		index int    // an array's: the value being read
		key   string // an object's: the member being read
		inKey bool   // an object's: the next string is a key
	}
	var stack []frame
	path := func(stack []frame) string {
		var b strings.Builder
		for _, f := range stack {
			if f.array {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && !stack[len(stack)-1].array {
				stack[len(stack)-1].inKey = true
			}
			continue
		}
		if key, ok := tok.(string); ok && top != nil && top.inKey {
			if dec.InputOffset() > off {
				return path(stack[:len(stack)-1]) // the object's: a key is no field
			}
			top.key, top.inKey = key, false
			continue
		}
		if top != nil && top.array {
			top.index++
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{array: d == '[', index: -1, inKey: d == '{'})
			continue
		}
		if dec.InputOffset() > off {
			return path(stack)
		}
		if top != nil && !top.array {
			top.inKey = true
		}
	}
}
