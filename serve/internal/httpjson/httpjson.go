// Package httpjson writes the JSON answers of the service and its
// pages: a value, or an error as {"error": "..."} (ErrorBody, which
// serve.ErrorBody names), the shape of every error answer.
package httpjson

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/assaylabs/assay/internal/encode"
)

// PagePolicy is the Content-Security-Policy of the service's pages (the
// dashboard, the annotation queue): everything they need is inline or
// from the server itself, and no other site may show them in a frame
// (frame-ancestors, which default-src does not cover), where a person
// could be led to click or press keys on them unawares.
const PagePolicy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// ErrorBody is every error answer: what went wrong, and where in the
// request when the request is at fault.
type ErrorBody struct {
	// Error says what went wrong and what to do.
	Error string `json:"error"`
	// Field is the JSON path of the field at fault ("traces[2].sample.contexts").
	Field string `json:"field,omitempty"`
	// Offset is the byte offset in the body of a JSON syntax error, or
	// Line and Column those of an error in a document embedded in the
	// request (a dataset, a retrieval sample).
	Offset int64 `json:"offset,omitempty"`
	Line   int   `json:"line,omitempty"`
	Column int   `json:"column,omitempty"`
}

// Appender is a value that writes its own JSON: the bytes encode.JSON
// writes of it, appended to b, without reflection (agent.ContextView, the
// answer of every /v1/context-score).
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// Write answers v as JSON with status, as the CLI prints it
// (encode.JSON, or v's own AppendJSON when it is an Appender), in one
// Write from a buffer kept for the next answer. A v that does not encode
// is a 500 saying so.
func Write(w http.ResponseWriter, status int, v any) {
	bp := buffers.Get().(*[]byte)
	b, err := appendJSON((*bp)[:0], v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = appendJSON(b[:0], ErrorBody{Error: "encoding the answer: " + err.Error()}) // a string always encodes
	}
	Encoded(w, status, b)
	if cap(b) <= maxKept {
		*bp = b
		buffers.Put(bp)
	}
}

// appendJSON appends v's JSON to b.
func appendJSON(b []byte, v any) ([]byte, error) {
	if a, ok := v.(Appender); ok {
		return a.AppendJSON(b)
	}
	buf := bytes.NewBuffer(b)
	err := encode.JSON(buf, v)
	return buf.Bytes(), err
}

// buffers hold the answers' bytes between requests: a ResponseWriter
// keeps none of what it was given once Write returns. One that grew past
// maxKept (a large listing) is left to the collector.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxKept = 64 << 10

// Error answers {"error": msg} with status.
func Error(w http.ResponseWriter, status int, msg string) {
	Write(w, status, ErrorBody{Error: msg})
}

// Encoded answers b, JSON already encoded (a card as `assay score
// --format json` prints it, the OpenAPI document), with status.
func Encoded(w http.ResponseWriter, status int, b []byte) {
	// Set under its canonical key, as Header.Set would, without
	// canonicalising it on every answer; the value is shared and only
	// read (Set replaces it, Add grows a copy).
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(status)
	_, _ = w.Write(b) // the client went away: nothing to do
}

var jsonType = []string{"application/json"}

// StatusError is an error answered with its status and body: what a
// handler, or a package under serve, returns for the request's fault.
type StatusError struct {
	Status int
	Body   ErrorBody
}

func (e *StatusError) Error() string { return e.Body.Error }

// BadRequest is a 400 naming field.
func BadRequest(field, format string, args ...any) *StatusError {
	return &StatusError{Status: http.StatusBadRequest, Body: ErrorBody{Error: fmt.Sprintf(format, args...), Field: field}}
}

// MaxEcho is the most characters of a value the client sent that an
// error answer quotes.
const MaxEcho = 64

// Echo is how an error answer quotes a value the client sent (an id, a
// name, a header): Go-quoted, so that a control, format or
// bidirectional character, a line break or a byte that is not UTF-8
// shows as its escape and cannot change how the answer reads; and at
// most its first MaxEcho characters, then an ellipsis and its length,
// so that a megabyte of id is not sent back.
func Echo(s string) string {
	n := 0
	for i := range s {
		if n == MaxEcho {
			return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:i]), len(s))
		}
		n++
	}
	return strconv.Quote(s)
}
