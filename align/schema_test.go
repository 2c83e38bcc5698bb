package align

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			got := append(append([]byte(nil), s.JSON...), '\n')
			path := filepath.Join("testdata", "schemas", name+".json")
			if *updateSchemas {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to write it")
			assert.Equal(t, string(want), string(got))
		})
	}
}
