package judges_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
)

// A nil registry is an empty one: Extend and ReadDefinitions take the
// judges of the file alone, rather than panicking.
func TestNilRegistryIsEmpty(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../examples/judges.yaml")
	require.NoError(t, err)
	want := []string{"polite_and_cites", "helpfulness", "matches_reference"}
	tests := map[string]func() ([]string, error){
		"Extend": func() ([]string, error) {
			reg, err := judges.Extend(nil, "../examples/judges.yaml")
			if err != nil {
				return nil, err
			}
			return reg.Metrics(), nil
		},
		"ReadDefinitions": func() ([]string, error) {
			defs, err := judges.ReadDefinitions("judges.yaml", data, nil)
			names := make([]string, len(defs))
			for i, d := range defs {
				names[i] = d.Name
			}
			return names, err
		},
		"Extend of an empty registry": func() ([]string, error) {
			reg, err := judges.Extend(&metric.Registry{}, "../examples/judges.yaml")
			if err != nil {
				return nil, err
			}
			return reg.Metrics(), nil
		},
	}
	for name, f := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := f()
			require.NoError(t, err)
			assert.ElementsMatch(t, want, got)
		})
	}
}

// TestExtendTwiceNamesTheEarlierJudge: a judge whose name an earlier
// judges file took is refused as such, not called a built-in metric; a
// built-in's name still is.
func TestExtendTwiceNamesTheEarlierJudge(t *testing.T) {
	t.Parallel()
	once, err := judges.Extend(nil, "../examples/judges.yaml")
	require.NoError(t, err)
	_, err = judges.Extend(once, "../examples/judges.yaml")
	require.ErrorContains(t, err, `judges[0].name: "polite_and_cites" is the name of a judge already defined (by a judges file read before)`)

	reg := &metric.Registry{}
	require.NoError(t, reg.Add(metric.Entry{Name: "polite_and_cites", Kind: metric.KindJudge,
		Build: func(metric.Model) eval.Scorer { return judges.Faithfulness{} }}))
	_, err = judges.Extend(reg, "../examples/judges.yaml")
	require.ErrorContains(t, err, `judges[0].name: "polite_and_cites" is the name of a built-in metric`)
}
