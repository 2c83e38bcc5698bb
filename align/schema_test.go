package align

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/internal/golden"
	"github.com/assaylabs/assay/llm"
)

var updateSchemas = flag.Bool("update", false, "rewrite the reply schemas' golden files")

// TestReplySchemasMatchGolden holds the aligner's reply schemas to their
// golden files byte for byte: each is part of its request's cache key.
func TestReplySchemasMatchGolden(t *testing.T) {
	t.Parallel()
	tests := map[string]*llm.Schema{
		criteriaSchema: llm.SchemaFor[criteriaReply](criteriaSchema),
		rubricSchema:   llm.SchemaFor[rubricReply](rubricSchema),
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, name, s.Name)
			golden.Equal(t, filepath.Join("testdata", "schemas", name+".json"), append(append([]byte(nil), s.JSON...), '\n'), *updateSchemas)
		})
	}
}
