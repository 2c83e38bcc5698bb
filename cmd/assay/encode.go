package main

import (
	"encoding/json"
	"io"

	"go.yaml.in/yaml/v3"
)

// writeJSON writes v as indented JSON, with <, > and & as they are: the
// output is read by people and programs, never pasted into HTML.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeYAML writes v as YAML indented by two spaces.
func writeYAML(w io.Writer, v any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}
