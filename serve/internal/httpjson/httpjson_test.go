package httpjson_test

import (
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/serve/internal/httpjson"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		write  func(w http.ResponseWriter)
		status int
		body   string
	}{
		"a value": {
			write:  func(w http.ResponseWriter) { httpjson.Write(w, http.StatusCreated, map[string]int{"n": 1}) },
			status: http.StatusCreated, body: "{\n  \"n\": 1\n}\n",
		},
		"html stays as it is": {
			write:  func(w http.ResponseWriter) { httpjson.Write(w, http.StatusOK, []string{"<b>&"}) },
			status: http.StatusOK, body: "[\n  \"<b>&\"\n]\n",
		},
		"an error": {
			write:  func(w http.ResponseWriter) { httpjson.Error(w, http.StatusForbidden, "not yours") },
			status: http.StatusForbidden, body: "{\n  \"error\": \"not yours\"\n}\n",
		},
		"an error naming where in the request": {
			write: func(w http.ResponseWriter) {
				httpjson.Write(w, http.StatusBadRequest, httpjson.ErrorBody{Error: "want a number", Field: "chunks[0].score", Offset: 41})
			},
			status: http.StatusBadRequest, body: "{\n  \"error\": \"want a number\",\n  \"field\": \"chunks[0].score\",\n  \"offset\": 41\n}\n",
		},
		"JSON already encoded, as it is": {
			write:  func(w http.ResponseWriter) { httpjson.Encoded(w, http.StatusOK, []byte(`{"total":8}`)) },
			status: http.StatusOK, body: `{"total":8}`,
		},
		"a value that does not encode is a 500": {
			write:  func(w http.ResponseWriter) { httpjson.Write(w, http.StatusOK, math.NaN()) },
			status: http.StatusInternalServerError, body: "{\n  \"error\": \"encoding the answer: json: unsupported value: NaN\"\n}\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			tc.write(rec)
			assert.Equal(t, tc.status, rec.Code)
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			assert.Equal(t, tc.body, rec.Body.String())
		})
	}
}

func TestEcho(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", httpjson.MaxEcho)
	tests := map[string]struct{ in, want string }{
		"empty":                         {"", `""`},
		"short, as it is":               {"run-1", `"run-1"`},
		"at the bound, whole":           {long, strconv.Quote(long)},
		"past it, cut with its length":  {long + "x", strconv.Quote(long) + "… (129 bytes)"},
		"a megabyte":                    {strings.Repeat("y", 1<<20), `"` + strings.Repeat("y", 64) + `"… (1048576 bytes)`},
		"control and format characters": {"a\n\x1b[31m\u202eb", `"a\n\x1b[31m\u202eb"`},
		"not UTF-8":                     {"a\xffb", `"a\xffb"`},
		"markup stays text":             {"<script>", `"<script>"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, httpjson.Echo(tc.in))
		})
	}
}
