// Package httpjson writes the JSON answers of the service and its
// pages: a value, or an error as {"error": "..."} (ErrorBody, which
// serve.ErrorBody names), the shape of every error answer.
package httpjson

import (
	"bytes"
	"net/http"

	"github.com/assaylabs/assay/internal/encode"
)

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

// Write answers v as JSON with status, as the CLI prints it
// (encode.JSON). A v that does not encode is a 500 saying so.
func Write(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	if err := encode.JSON(&b, v); err != nil {
		status = http.StatusInternalServerError
		b.Reset()
		_ = encode.JSON(&b, ErrorBody{Error: "encoding the answer: " + err.Error()}) // a string always encodes
	}
	Encoded(w, status, b.Bytes())
}

// Error answers {"error": msg} with status.
func Error(w http.ResponseWriter, status int, msg string) {
	Write(w, status, ErrorBody{Error: msg})
}

// Encoded answers b, JSON already encoded (a card as `assay score
// --format json` prints it, the OpenAPI document), with status.
func Encoded(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b) // the client went away: nothing to do
}
