package annotate

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckLabelQuotesTheValue: a value that is no label is answered
// with its text quoted as every error answer quotes what it was sent
// (httpjson.Echo): a bidirectional override or a byte cut out of a
// character shows as its escape, and a long value is cut and counted.
func TestCheckLabelQuotesTheValue(t *testing.T) {
	t.Parallel()
	qs := &Queues{Now: func() time.Time { return time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) }}
	tests := map[string]struct {
		value string
		want  string
	}{
		"a word":                {value: `"yes"`, want: `value: want true or false, or a grade from 1 to 5, got "yes"`},
		"a bidi override":       {value: "\"\u202eeslaf\"", want: `value: want true or false, or a grade from 1 to 5, got "\u202eeslaf"`},
		"a number out of range": {value: `1e999`, want: `value: want true or false, or a grade from 1 to 5, got "1e999"`},
		"a long value": {value: `"` + strings.Repeat("é", 80) + `"`,
			want: `value: want true or false, or a grade from 1 to 5, got "` + strings.Repeat("é", 64) + `"… (160 bytes)`},
		"an object": {value: `{"a": 1}`, want: `value: want true or false, or a grade from 1 to 5, got "{\"a\": 1}"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := qs.checkLabel(LabelRequest{Item: "q1", Value: json.RawMessage(tc.value)}, "anonymous")
			he, ok := err.(*httpError)
			require.True(t, ok, "%v", err)
			assert.Equal(t, http.StatusBadRequest, he.Status)
			assert.Equal(t, "value", he.Body.Field)
			assert.Equal(t, tc.want, he.Body.Error)
		})
	}
}
