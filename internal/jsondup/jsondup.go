// Package jsondup finds a key given twice in one object of a JSON value,
// which encoding/json reads as its last value in silence: a dataset record
// and a model's reply are both refused for one.
package jsondup

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Find finds the first key given twice in one object of the JSON
// value b (at any depth), which encoding/json would read as its last
// value in silence: it returns the key's path ("human.faithful") and the
// byte offsets of its two uses. b must be valid JSON.
func Find(b []byte) (path string, first, second int64, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object bool
		seen   map[string]int64
		key    string // the key whose value is being read (objects), or the index (arrays)
		index  int
		expect bool // an object expects a key next
	}
	var stack []*frame
	name := func() string {
		var parts []string
		for _, f := range stack {
			if f.object {
				parts = append(parts, f.key)
			} else {
				parts = append(parts, "["+strconv.Itoa(f.index)+"]")
			}
		}
		out := ""
		for i, p := range parts {
			if i > 0 && p[0] != '[' {
				out += "."
			}
			out += p
		}
		return out
	}
	// value notes that a value ended in the frame on top.
	value := func() {
		if n := len(stack); n > 0 {
			if top := stack[n-1]; top.object {
				top.expect = true
			} else {
				top.index++
			}
		}
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return "", 0, 0, false
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expect {
			if key, isKey := tok.(string); isKey {
				top := stack[n-1]
				at := before + int64(bytes.IndexByte(b[before:], '"'))
				if was, dup := top.seen[key]; dup {
					top.key = key
					return name(), was, at, true
				}
				top.seen[key], top.key, top.expect = at, key, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, seen: map[string]int64{}, expect: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			value()
		default:
			value()
		}
		if len(stack) == 0 {
			return "", 0, 0, false
		}
	}
}
