package serve

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestATraceIDIsBoundedAndPrintable: a trace id is stored, used as a
// key and echoed, so one that is longer than 256 bytes, not UTF-8, or
// holds a control, format or bidirectional character is a 400 naming
// the field, whether it is posted or asked for; any other is data, path
// characters too. Such ids used to be taken, a megabyte of one among
// them, journaled and echoed as they came.
func TestATraceIDIsBoundedAndPrintable(t *testing.T) {
	t.Parallel()
	s := start(t, Config{SampleRate: new(1.0)})
	tests := map[string]struct {
		id  string
		msg string // "" when the id is taken
	}{
		"a W3C trace id":           {id: "4bf92f3577b34da6a3ce929d0e0e4736"},
		"256 bytes":                {id: strings.Repeat("é", 128)},
		"path characters":          {id: "../../etc/passwd"},
		"letters and a space":      {id: "été 42"},
		"257 bytes":                {id: strings.Repeat("a", 257), msg: "257 bytes: a trace id has at most 256"},
		"a megabyte":               {id: strings.Repeat("a", 1<<20), msg: "1048576 bytes: a trace id has at most 256"},
		"a NUL":                    {id: "a\x00b", msg: "holds U+0000 at byte 1"},
		"a line break":             {id: "a\nb", msg: "holds U+000A at byte 1"},
		"an escape sequence":       {id: "\x1b[31mred", msg: "holds U+001B at byte 0"},
		"a right-to-left override": {id: "abc\u202egpj.exe", msg: "holds U+202E at byte 3"},
		"a zero-width space":       {id: "a\u200bb", msg: "holds U+200B at byte 1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			body := mustJSON(t, map[string]any{"traces": []any{map[string]any{"trace_id": tc.id,
				"sample": map[string]any{"question": "q", "answer": "a", "contexts": []string{"c"}}}}})
			code, got := call(t, http.MethodPost, s.URL+"/v1/traces", body)
			getCode, gotOne := call(t, http.MethodGet, s.URL+"/v1/traces/"+url.PathEscape(tc.id), "")
			if tc.msg == "" {
				require.Equal(t, http.StatusAccepted, code, got)
				require.Equal(t, http.StatusOK, getCode, gotOne)
				var tr Trace
				require.NoError(t, json.Unmarshal([]byte(gotOne), &tr))
				assert.Equal(t, tc.id, tr.TraceID)
				return
			}
			for _, c := range []struct {
				code        int
				body, field string
			}{{code, got, "traces[0].trace_id"}, {getCode, gotOne, "id"}} {
				require.Equal(t, http.StatusBadRequest, c.code, c.body)
				var eb ErrorBody
				require.NoError(t, json.Unmarshal([]byte(c.body), &eb), c.body)
				assert.Equal(t, c.field, eb.Field)
				assert.Equal(t, c.field+": "+tc.msg, eb.Error[:min(len(eb.Error), len(c.field)+2+len(tc.msg))])
				assert.Less(t, len(c.body), 512, "the id is not echoed")
			}
		})
	}
	t.Run("not UTF-8, asked for", func(t *testing.T) {
		t.Parallel()
		code, body := call(t, http.MethodGet, s.URL+"/v1/traces/a%FFb", "")
		require.Equal(t, http.StatusBadRequest, code, body)
		assert.JSONEq(t, `{"error": "id: not UTF-8: a trace id is printable text", "field": "id"}`, body)
	})
}
