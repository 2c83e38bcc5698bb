// Package httpjson writes the JSON answers of the service and its
// pages: a value, or an error as {"error": "..."}, the shape of every
// error answer (serve.ErrorBody adds where in the request it lies).
package httpjson

import (
	"bytes"
	"net/http"

	"github.com/assaylabs/assay/internal/encode"
)

// errorBody is an error answer's least: what went wrong.
type errorBody struct {
	Error string `json:"error"`
}

// Write answers v as JSON with status, as the CLI prints it
// (encode.JSON). A v that does not encode is a 500 saying so.
func Write(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	if err := encode.JSON(&b, v); err != nil {
		status = http.StatusInternalServerError
		b.Reset()
		_ = encode.JSON(&b, errorBody{Error: "encoding the answer: " + err.Error()}) // a string always encodes
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes()) // the client went away: nothing to do
}

// Error answers {"error": msg} with status.
func Error(w http.ResponseWriter, status int, msg string) {
	Write(w, status, errorBody{Error: msg})
}
