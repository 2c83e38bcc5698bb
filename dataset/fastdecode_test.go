package dataset

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowFields are a record's fields as encoding/json and duplicateKey read
// them, false where they refuse it.
func slowFields(b []byte) (map[string]json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) != nil || fields == nil {
		return nil, false
	}
	if _, _, _, dup := duplicateKey(b); dup {
		return nil, false
	}
	return fields, true
}

// checkFastFields fails t when fieldsFast reads b otherwise than the
// slow reader: where it accepts b, the slow reader must accept it with
// the same fields.
func checkFastFields(t *testing.T, b []byte) bool {
	t.Helper()
	fast, ok := fieldsFast(b)
	if !ok {
		return false
	}
	slow, slowOK := slowFields(b)
	require.True(t, slowOK, "fieldsFast accepts %q, which encoding/json and duplicateKey refuse", b)
	require.Equal(t, len(slow), len(fast), "%q", b)
	for k, v := range slow {
		require.Equal(t, string(v), string(fast[k]), "%q: field %q", b, k)
	}
	return true
}

// checkStrings fails t when unquote or stringsFast read raw, a valid JSON
// value, otherwise than json.Unmarshal.
func checkStrings(t *testing.T, raw []byte) {
	t.Helper()
	var want string
	if json.Unmarshal(raw, &want) == nil {
		got, err := unquote(raw)
		require.NoError(t, err)
		require.Equal(t, want, got, "%q", raw)
	}
	if got, ok := stringsFast(raw); ok {
		var all []string
		require.NoError(t, json.Unmarshal(raw, &all), "stringsFast accepts %q", raw)
		if all == nil {
			all = []string{}
		}
		require.Equal(t, all, got, "%q", raw)
	}
}

func TestFastFieldsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		line string
		fast bool // read in one pass; otherwise by the slow reader
	}{
		"a record":                       {`{"id":"s1","question":"Q?","answer":"A.","contexts":["c1","c2"]}`, true},
		"spaces everywhere":              {" { \"id\" : 7 , \"human\" : { \"faithful\" : true } }\t", true},
		"escaped names and values":       {`{"q\u0075estion":"a \"quoted\" \u00e9 \ud83d\ude00 text","answer":"x\ny"}`, true},
		"an empty object":                {`{}`, true},
		"a name twice":                   {`{"id":"a","id":"b"}`, false},
		"a name twice, escaped the once": {`{"id":"a","\u0069d":"b"}`, false},
		"a nested name twice":            {`{"human":{"x":1,"x":2}}`, false},
		"bytes that are not UTF-8":       {"{\"answer\":\"\xff\"}", false},
		"a lone surrogate":               {`{"answer":"\ud800"}`, false},
		"something after the object":     {`{"id":1} x`, false},
		"two objects":                    {`{"id":1}{"id":2}`, false},
		"null":                           {`null`, false},
		"an array":                       {`[{"id":1}]`, false},
		"a syntax error":                 {`{"id":1,}`, false},
		"cut short":                      {`{"id":"s1"`, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.fast, checkFastFields(t, []byte(tc.line)))
		})
	}
}

func TestFastStringsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`"plain"`, `""`, `"a \"b\" \\ \/ \b\f\n\r\t"`, `"\u00e9\ud83d\ude00"`, `"\ud800 lone"`, "\"\xff\xfe bad\"", `"ผลตอบแทน"`,
		`[]`, ` [ ] `, `["a","b"]`, ` [ "a" , "b\"c" ] `, `["a",1]`, `[null]`, `["a",["b"]]`, `[{"a":"b"}]`, "[\"\xff\"]", `["\u0000"]`,
	} {
		checkStrings(t, []byte(raw))
	}
	got, ok := stringsFast([]byte(`["a","b\"c"]`))
	require.True(t, ok)
	assert.Equal(t, []string{"a", `b"c`}, got)
	_, ok = stringsFast([]byte(`["a",1]`))
	assert.False(t, ok, "an array with a number is worded by the slow reader")
}

func FuzzFastFields(f *testing.F) {
	for _, s := range []string{
		`{"id":"s1","question":"Q?","contexts":["a","b"]}`, `{"a":{"b":[1,{"c":null}]},"d":"\u0041"}`, `{"id":"a","\u0069d":"b"}`,
		`{"human":{"x":1,"x":2}}`, "{\"a\":\"\xff\"}", `{"a":"\ud800"}`, ` {"a" : 1e3 , "b":-0.5e-2}`, `{"a":[]} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if checkFastFields(t, b) {
			fields, _ := fieldsFast(b)
			for _, v := range fields {
				checkStrings(t, v)
			}
		}
	})
}

func FuzzFastStrings(f *testing.F) {
	for _, s := range []string{`["a","b"]`, `[ "x\"y" , "\u00e9" ]`, `"s"`, `[1]`, "[\"\xff\"]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) {
			checkStrings(t, raw)
		}
	})
}
