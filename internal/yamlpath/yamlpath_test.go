package yamlpath

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestLine(t *testing.T) {
	t.Parallel()
	doc := "name: mine\nscorers:\n  - metric: grounding\n    max: 5\n  - metric: clarity\n    max: -1\n"
	var root yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(doc), &root))
	tests := map[string]struct {
		field string
		line  int
	}{
		"a top field":                     {"name", 1},
		"a field of an item":              {"scorers[1].max", 6},
		"an item":                         {"scorers[0]", 3},
		"a missing field: its parent":     {"scorers[1].colour", 5},
		"an index past the end: the list": {"scorers[7].max", 3},
		"no field: the document":          {"", 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.line, Line(root.Content[0], tc.field))
		})
	}
}
