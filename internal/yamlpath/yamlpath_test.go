package yamlpath

import (
	"strings"
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

// TestExtraDocument: after a file's first document, only empty ones (a
// trailing --- with comments) may follow; another is found with its line.
func TestExtraDocument(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in    string
		line  int
		found bool
	}{
		"one document":                  {"a: 1\n", 0, false},
		"a trailing --- and comments":   {"a: 1\n---\n# nothing more\n", 0, false},
		"a second document":             {"a: 1\n---\nb: 2\n", 2, true},
		"a second after an empty one":   {"a: 1\n---\n---\nb: 2\n", 3, true},
		"a second that is not yaml":     {"a: 1\n---\nb: [\n", 0, true},
		"a second that is a plain text": {"a: 1\n---\nhello\n", 2, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dec := yaml.NewDecoder(strings.NewReader(tc.in))
			var first yaml.Node
			require.NoError(t, dec.Decode(&first))
			line, found := ExtraDocument(dec)
			assert.Equal(t, tc.found, found)
			assert.Equal(t, tc.line, line)
		})
	}
}
