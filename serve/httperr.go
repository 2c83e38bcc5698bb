package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// ErrorBody is every error answer: what went wrong, and where in the
// request when the request is at fault (see httpjson.ErrorBody).
type ErrorBody = httpjson.ErrorBody

// httpError is an error with its status and body.
type httpError struct {
	status int
	body   ErrorBody
}

func (e *httpError) Error() string { return e.body.Error }

func badRequest(field, format string, args ...any) *httpError {
	return &httpError{status: http.StatusBadRequest, body: ErrorBody{Error: fmt.Sprintf(format, args...), Field: field}}
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
	return &httpError{status: http.StatusBadRequest, body: ErrorBody{Error: msg, Field: field, Line: ie.Line, Column: ie.Col}}
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
		return &httpError{status: http.StatusRequestEntityTooLarge, body: ErrorBody{Error: fmt.Sprintf("request body larger than %d bytes", mb.Limit)}}
	}
	if ie, ok := errors.AsType[*eval.InputError](err); ok {
		return inputError(prefix, ie)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &httpError{status: http.StatusGatewayTimeout, body: ErrorBody{Error: "timed out: " + err.Error()}}
	}
	return &httpError{status: http.StatusInternalServerError, body: ErrorBody{Error: err.Error()}}
}

// writeError answers err (asHTTP).
func writeError(w http.ResponseWriter, err error, prefix string) {
	he := asHTTP(err, prefix)
	httpjson.Write(w, he.status, he.body)
}

// decodeBody decodes the request's JSON body into v, strictly: an unknown
// field, a wrong type, a syntax error or anything after the value is a
// 400 naming the field or the offset; a body over the limit a 413.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return bodyError(err, dec.InputOffset())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return mb
		}
		return &httpError{status: http.StatusBadRequest, body: ErrorBody{Error: "invalid JSON: more after the request's object", Offset: dec.InputOffset()}}
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
		return &httpError{status: http.StatusBadRequest, body: ErrorBody{Error: "invalid JSON: the body ends inside a value", Offset: offset}}
	case errors.As(err, &se):
		return &httpError{status: http.StatusBadRequest, body: ErrorBody{Error: "invalid JSON: " + se.Error(), Offset: se.Offset}}
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return &httpError{status: http.StatusBadRequest, body: ErrorBody{Error: "want a JSON object, got " + te.Value, Offset: te.Offset}}
		}
		return &httpError{status: http.StatusBadRequest, body: ErrorBody{Error: fmt.Sprintf("%s: want %s, got %s", field, jsonType(te.Type.Kind().String()), te.Value), Field: field, Offset: te.Offset}}
	}
	// DisallowUnknownFields reports `json: unknown field "name"`, untyped.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return &httpError{status: http.StatusBadRequest, body: ErrorBody{Error: fmt.Sprintf("unknown field %q (see /openapi.json for the fields)", name), Field: name, Offset: offset}}
	}
	return &httpError{status: http.StatusBadRequest, body: ErrorBody{Error: "invalid JSON: " + err.Error(), Offset: offset}}
}

// jsonType names a Go kind as JSON does.
func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "float32", "float64", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "a number"
	}
	return kind
}
