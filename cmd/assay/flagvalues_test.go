package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFlagValues: a flag value that cannot be taken exits 2 with the flag
// named and what it takes, never the parser's own text; a value left
// empty is refused rather than standing for the default.
func TestFlagValues(t *testing.T) {
	t.Parallel()
	report := "../../fixtures/reports/pass.md"
	tests := map[string]struct {
		args   []string
		stderr string
	}{
		"a fraction for a count":    {[]string{"score", "--concurrency", "1.5", report}, "assay: --concurrency: \"1.5\" is not a whole number\n"},
		"too large a count":         {[]string{"judge", "--metric", "faithfulness", "--rpm", "99999999999999999999", report}, "assay: --rpm: \"99999999999999999999\" is out of range: want a whole number\n"},
		"a word for dollars":        {[]string{"score", "--max-cost", "ten", report}, "assay: --max-cost: \"ten\" is not a number, such as 0.5\n"},
		"a duration without unit":   {[]string{"research", "--timeout", "30", "q"}, "assay: --timeout: \"30\" is not a duration with its unit, such as 90s, 5m or 1h30m\n"},
		"an empty profile":          {[]string{"score", "--profile", "", report}, "assay: --profile: empty value: give one, or leave the flag out\n"},
		"a blank model":             {[]string{"judge", "--metric", "faithfulness", "--llm", " ", report}, "assay: --llm: empty value: give one, or leave the flag out\n"},
		"an empty format of runs":   {[]string{"runs", "list", "--format="}, "assay: --format: empty value: give one, or leave the flag out\n"},
		"an empty mode of research": {[]string{"research", "--mode", "", "q"}, "assay: --mode: empty value: give one, or leave the flag out\n"},
		"a cluster address after a space": {[]string{"bench", "--metric", "faithfulness", "--cluster", "0.0.0.0:4222", "../../fixtures/rag/labelled.jsonl"},
			"assay: --cluster: takes its value only after =, as --cluster=VALUE (alone it means 127.0.0.1:4222); the word after it was read as an argument, so 2 arguments were given where 1 is wanted\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runEnv(t, map[string]string{"ASSAY_DATA_DIR": t.TempDir()}, tc.args...)
			assert.Equal(t, exitInput, code)
			assert.Empty(t, stdout)
			assert.Equal(t, tc.stderr, stderr)
		})
	}
}
