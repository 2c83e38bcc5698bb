// Package encode writes values as the JSON and YAML that Assay prints:
// JSON indented by two spaces with <, > and & as they are (the output is
// read by people and programs, never pasted into HTML), YAML indented by
// two spaces.
package encode

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// JSON writes v as indented JSON.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// YAML writes v as YAML indented by two spaces. A number with an exponent
// is written with a decimal point ("8.0e-05", where the yaml package
// writes "8e-05"): both are floats in YAML 1.2, but YAML 1.1 readers,
// PyYAML among them, read the second as a string.
func YAML(w io.Writer, v any) error {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return err
	}
	pointFloats(&n)
	quoteHidden(&n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := w.Write(Escaped(b.Bytes()))
	return err
}

// pointFloats gives every float of n written with an exponent and no
// decimal point one, before the exponent.
func pointFloats(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!float" {
		if i := strings.IndexAny(n.Value, "eE"); i > 0 && !strings.ContainsRune(n.Value[:i], '.') {
			n.Value = n.Value[:i] + ".0" + n.Value[i:]
		}
	}
	for _, c := range n.Content {
		pointFloats(c)
	}
}

// Object is the JSON object of n members in order, member(i) giving the
// i-th key and value: for a MarshalJSON whose keys keep an order that a
// map would lose.
func Object(n int, member func(i int) (key string, value any)) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := range n {
		key, value := member(i)
		k, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(value)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
