package main

import (
	"io"

	"github.com/assaylabs/assay/internal/pretty"
)

// writeJSON writes v as indented JSON (pretty.JSON).
func writeJSON(w io.Writer, v any) error { return pretty.JSON(w, v) }

// writeYAML writes v as YAML indented by two spaces (pretty.YAML).
func writeYAML(w io.Writer, v any) error { return pretty.YAML(w, v) }
