// Package encode writes values as the JSON and YAML that Assay prints:
// JSON indented by two spaces with <, > and & as they are (the output is
// read by people and programs, never pasted into HTML), YAML indented by
// two spaces.
package encode

import (
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
