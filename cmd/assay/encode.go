package main

import (
	"io"

	"github.com/assaylabs/assay/internal/encode"
)

// writeJSON writes v as indented JSON (encode.JSON).
func writeJSON(w io.Writer, v any) error { return encode.JSON(w, v) }

// writeYAML writes v as YAML indented by two spaces (encode.YAML).
func writeYAML(w io.Writer, v any) error { return encode.YAML(w, v) }
