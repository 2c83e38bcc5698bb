package agent

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/internal/golden"
	"github.com/assaylabs/assay/llm"
)

var updateSchemas = flag.Bool("update", false, "rewrite the reply schemas' golden files")

// TestReplySchemasMatchGolden holds the research workflow's reply schemas
// to their golden files byte for byte: each is part of its request's
// cache key.
func TestReplySchemasMatchGolden(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		schema func() *llm.Schema
		name   string
	}{
		"explanation": {explanationSchema, "explanation"},
		"summary":     {summarySchema, "summary"},
		"report":      {reportSchema, "report"},
	}
	for file, tt := range tests {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			s := tt.schema()
			assert.Equal(t, tt.name, s.Name)
			golden.Equal(t, filepath.Join("testdata", "schemas", file+".json"), append(append([]byte(nil), s.JSON...), '\n'), *updateSchemas)
		})
	}
}
