package main

import (
	"io"

	"github.com/assaylabs/assay/internal/encode"
)

// writeJSON writes v as indented JSON (encode.JSON).
func writeJSON(w io.Writer, v any) error { return encode.JSON(w, v) }
