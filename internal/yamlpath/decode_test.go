package yamlpath

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
)

// TestDecodeErrorNamesTheUnknownKey: an unknown key is named as written,
// with its path, even when its value stands on the same line (a flow list
// or mapping) and so holds keys or items deeper on that line.
func TestDecodeErrorNamesTheUnknownKey(t *testing.T) {
	t.Parallel()
	type judge struct {
		Name  string `yaml:"name"`
		Scale string `yaml:"scale"`
	}
	type file struct {
		Judges []judge `yaml:"judges"`
	}
	tests := map[string]struct {
		doc   string
		line  int
		field string
	}{
		"a misspelt key with a flow list": {
			doc: "judges:\n  - name: tone\n    scale: 1-5\n    tresholds: [3, 4, 5]\n", line: 4, field: "judges[0].tresholds",
		},
		"a misspelt key with a flow mapping": {
			doc: "judges:\n  - name: tone\n    scale: 1-5\n    rubrik: {1: rude, 5: kind}\n", line: 4, field: "judges[0].rubrik",
		},
		"an unknown top-level key holding a list": {
			doc: "notes: [\"first\", \"second\", \"third\"]\njudges:\n  - name: tone\n    scale: 1-5\n", line: 1, field: "notes",
		},
		"a misspelt key with a plain value": {
			doc: "judges:\n  - name: tone\n    sacle: 1-5\n", line: 3, field: "judges[0].sacle",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var root yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte(tc.doc), &root))
			var f file
			dec := yaml.NewDecoder(strings.NewReader(tc.doc))
			dec.KnownFields(true)
			err := dec.Decode(&f)
			var te *yaml.TypeError
			require.True(t, errors.As(err, &te), "got %v", err)
			var ie *eval.InputError
			require.True(t, errors.As(DecodeError("judges.yaml", root.Content[0], te.Errors[0]), &ie))
			assert.Equal(t, tc.line, ie.Line)
			assert.Equal(t, tc.field, ie.Field)
			assert.Equal(t, "unknown field", ie.Msg)
		})
	}
}
