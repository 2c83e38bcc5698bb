// Package encode writes values as the JSON and YAML that Assay prints:
// JSON indented by two spaces with <, > and & as they are (the output is
// read by people and programs, never pasted into HTML), YAML indented by
// two spaces.
package encode

import (
	"bytes"
	"encoding/json"
	"io"

	"go.yaml.in/yaml/v3"
)

// JSON writes v as indented JSON.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// YAML writes v as YAML indented by two spaces.
func YAML(w io.Writer, v any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}

// YAMLOfJSON writes v's JSON form as YAML: the keys its JSON tags give,
// and numbers as JSON has them, so that an integer (a duration in
// nanoseconds) is never written as a float with an exponent.
func YAMLOfJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var m any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return err
	}
	return YAML(w, numbers(m))
}

// numbers replaces the json.Numbers of a decoded JSON value with int64
// (when whole) or float64, which the YAML encoder writes as plain numbers.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = numbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = numbers(x)
		}
	}
	return v
}
