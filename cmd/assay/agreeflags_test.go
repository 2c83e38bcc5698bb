package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAgreeRefusesModelFlagsOutOfRangeWithoutAModel holds that values
// judged already (--score, a stored run) do not let a model flag out of
// range through: it is refused with exit 2 naming the flag, as with
// --metric, not ignored.
func TestAgreeRefusesModelFlagsOutOfRangeWithoutAModel(t *testing.T) {
	t.Parallel()
	const file = "../../fixtures/rag/graded.jsonl"
	dir := writeRun(t, file, []string{"faithfulness"}, map[string]float64{"g01": 0.9, "g02": 0.7})
	tests := map[string]struct {
		flags []string
		want  string
	}{
		"no concurrency":       {[]string{"--concurrency", "0"}, "assay: --concurrency: want 1 to 4096 calls in flight, got 0"},
		"too much concurrency": {[]string{"--concurrency", "5000"}, "assay: --concurrency: want 1 to 4096 calls in flight, got 5000"},
		"samples below 1":      {[]string{"--samples", "0"}, "assay: --samples 0: ask the model at least once"},
		"a negative rpm":       {[]string{"--rpm", "-1"}, "assay: --rpm: must not be negative"},
		"a negative tpm":       {[]string{"--tpm", "-5"}, "assay: --tpm: must not be negative"},
		"a negative budget":    {[]string{"--max-cost", "-1"}, "assay: --max-cost: want US dollars, 0 or more"},
		"a budget of NaN":      {[]string{"--max-cost", "NaN"}, "assay: --max-cost: want US dollars, 0 or more"},
		"no call time":         {[]string{"--call-timeout", "0s"}, "assay: --call-timeout: must be positive, got 0s"},
		"no retry time":        {[]string{"--max-retry-time", "-1s"}, "assay: --max-retry-time: must be positive, got -1s"},
	}
	sources := map[string][]string{
		"--score": {"--score", "meta.judge_score", "--label", "relevant", file},
		"a run":   {"--label", "relevant", "--dataset", file, dir},
	}
	for name, tc := range tests {
		for src, args := range sources {
			t.Run(name+", "+src, func(t *testing.T) {
				t.Parallel()
				code, out, errOut := runEnv(t, tempEnv(t), slices.Concat([]string{"agree"}, tc.flags, args)...)
				assert.Equal(t, exitInput, code, errOut)
				assert.Empty(t, out)
				assert.True(t, strings.HasPrefix(errOut, tc.want), errOut)
			})
		}
	}
	// In range, the same sources pass.
	for src, args := range sources {
		code, _, errOut := runEnv(t, tempEnv(t), slices.Concat([]string{"agree", "--concurrency", "4096", "--rpm", "0", "--max-cost", "2"}, args)...)
		assert.Equal(t, 0, code, "%s: %s", src, errOut)
	}
}
