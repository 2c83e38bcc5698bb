package annotate

import (
	"cmp"
	"encoding/json"
	"errors"
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
			he, ok := errors.AsType[*httpError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, http.StatusBadRequest, he.Status)
			assert.Equal(t, "value", he.Body.Field)
			assert.Equal(t, tc.want, he.Body.Error)
		})
	}
}

// TestCheckLabelBoundsInCharacters: a note and a labeler's name are
// bounded in characters, as the page's fields (maxlength) bound them: a
// note of 4,000 Thai characters, which the page lets a person type, is
// kept, not refused for its 12,000 bytes.
func TestCheckLabelBoundsInCharacters(t *testing.T) {
	t.Parallel()
	qs := &Queues{Now: func() time.Time { return time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) }}
	tests := map[string]struct {
		note, labeler string
		field, err    string
	}{
		"4000 Thai characters of note":  {note: strings.Repeat("ก", 4000)},
		"4001 Thai characters of note":  {note: strings.Repeat("ก", 4001), field: "note", err: "note: longer than 4000 characters"},
		"4001 ASCII characters of note": {note: strings.Repeat("x", 4001), field: "note", err: "note: longer than 4000 characters"},
		"a name of 100 Thai characters": {labeler: strings.Repeat("ส", 100)},
		"a name of 101 characters":      {labeler: strings.Repeat("ส", 101), field: "labeler", err: "labeler: a name of at most 100 characters, printable characters only"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, err := qs.checkLabel(LabelRequest{Item: "q1", Value: json.RawMessage("true"), Note: tc.note, Labeler: tc.labeler}, "anonymous")
			if tc.err == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.note, l.Note)
				assert.Equal(t, cmp.Or(tc.labeler, "anonymous"), l.Who)
				return
			}
			he, ok := errors.AsType[*httpError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, tc.field, he.Body.Field)
			assert.Equal(t, tc.err, he.Body.Error)
		})
	}
}
