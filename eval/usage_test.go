package eval_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/eval"
)

func TestMergeSet(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ a, b, want string }{
		"both empty":       {"", "", ""},
		"into empty":       {"", "fp_2", "fp_2"},
		"nothing added":    {"fp_2", "", "fp_2"},
		"the same":         {"fp_2", "fp_2", "fp_2"},
		"sorted":           {"fp_2", "fp_1", "fp_1 fp_2"},
		"distinct":         {"0 1", "1 2", "0 1 2"},
		"a set into a set": {"fp_b", "fp_a fp_c", "fp_a fp_b fp_c"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, eval.MergeSet(tc.a, tc.b))
		})
	}
}

func TestUsageAddMergesFingerprintsAndSeeds(t *testing.T) {
	t.Parallel()
	u := eval.Usage{Calls: 1, Fingerprints: "fp_1", Seeds: "0"}.Add(eval.Usage{Calls: 1, Fingerprints: "fp_1", Seeds: "1"})
	assert.Equal(t, eval.Usage{Calls: 2, Fingerprints: "fp_1", Seeds: "0 1"}, u)
}
