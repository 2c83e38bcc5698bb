package jsondup

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFind(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		json          string
		path          string
		first, second int64
	}{
		"none":                         {json: `{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}`},
		"top level":                    {json: `{"a":1,"b":2,"a":3}`, path: "a", first: 1, second: 13},
		"nested":                       {json: `{"human":{"faithful":true,"faithful":false}}`, path: "human.faithful", first: 10, second: 26},
		"in an array's object":         {json: `{"c":[{"x":1},{"y":1,"y":2}]}`, path: "c[1].y", first: 15, second: 21},
		"same key in sibling objects":  {json: `{"a":{"k":1},"b":{"k":1}}`},
		"a key that is also a value":   {json: `{"a":"a","b":"a"}`},
		"spaces before a repeated key": {json: "{\"a\": 1,\n  \"a\": 2}", path: "a", first: 1, second: 11},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path, first, second, ok := Find([]byte(tc.json))
			assert.Equal(t, tc.path != "", ok)
			assert.Equal(t, tc.path, path)
			assert.Equal(t, [2]int64{tc.first, tc.second}, [2]int64{first, second})
		})
	}
}

func FuzzDuplicateKey(f *testing.F) {
	f.Add(`{"a":1,"a":2}`)
	f.Add(`{"a":[{"b":1,"c":{"b":2}}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return // duplicateKey reads valid JSON only
		}
		path, first, second, ok := Find([]byte(s))
		if ok && (first >= second || second >= int64(len(s)) || s[first] != '"' || s[second] != '"') {
			t.Fatalf("%q: path %q at %d and %d", s, path, first, second)
		}
	})
}
