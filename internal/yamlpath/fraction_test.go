package yamlpath

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestFractionFindsANumberTruncatedToAnInteger: the YAML decoder reads
// 4.9 into an int as 4 without a word; Fraction names such a number,
// wherever the struct holds it, and lets whole numbers through.
func TestFractionFindsANumberTruncatedToAnInteger(t *testing.T) {
	t.Parallel()
	type inner struct {
		Stages []int   `yaml:"stages"`
		Cutoff *int    `yaml:"cutoff"`
		Ratio  float64 `yaml:"ratio"`
	}
	type base struct {
		Lines int `yaml:"lines"`
	}
	type doc struct {
		Count  int              `yaml:"count"`
		Items  []inner          `yaml:"items"`
		Limits map[string]int   `yaml:"limits"`
		Named  map[string]inner `yaml:"named"`
		Base   base             `yaml:",inline"`
		Note   string           `yaml:"note"`
	}
	tests := map[string]struct {
		yaml, want string // want "" finds none
	}{
		"whole numbers":               {"count: 5\nitems:\n  - {stages: [1, 2], cutoff: 3, ratio: 0.5}\nnote: 4.9\n", ""},
		"a whole float":               {"count: 5.0\n", ""},
		"a top-level fraction":        {"count: 4.9\n", "doc.yaml:1: count: must be a whole number, got 4.9"},
		"in a list of a list":         {"items:\n  - {stages: [1, 2]}\n  - stages: [5, 5.5]\n", "doc.yaml:3: items[1].stages[1]: must be a whole number, got 5.5"},
		"behind a pointer":            {"items:\n  - cutoff: 2.5\n", "doc.yaml:2: items[0].cutoff: must be a whole number, got 2.5"},
		"a map's value":               {"limits:\n  th: 90\n  en: 40.5\n", "doc.yaml:3: limits.en: must be a whole number, got 40.5"},
		"a map of structs":            {"named:\n  a: {cutoff: 1e-1}\n", "doc.yaml:2: named.a.cutoff: must be a whole number, got 1e-1"},
		"an inline field":             {"lines: 15.5\n", "doc.yaml:1: lines: must be a whole number, got 15.5"},
		"through an alias":            {"items:\n  - &x {cutoff: 2.5}\n  - *x\n", "doc.yaml:2: items[0].cutoff: must be a whole number, got 2.5"},
		"a fraction in a float field": {"items:\n  - ratio: 2.5\n", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var root yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte(tc.yaml), &root))
			err := Fraction("doc.yaml", &root, &doc{})
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
