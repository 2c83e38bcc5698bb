package judging

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestOpenNamesTheFlagOnce: a model setting that is wrong is an input
// error naming its own flag, once ("--llm: --llm: ...", "--llm:
// --prices: ..." and "--samples: --samples 0: ..." were printed).
func TestOpenNamesTheFlagOnce(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		edit func(*Config)
		want string // the message begins so
	}{
		"an unknown backend":     {func(c *Config) { c.LLM.Spec = "nosuch:x" }, `--llm: unknown backend "nosuch" in "nosuch:x"`},
		"a jury":                 {func(c *Config) { c.LLM.Spec = "offline,offline" }, "--llm: one model here"},
		"a price file not there": {func(c *Config) { c.LLM.PricesFile = "/does/not/exist.yaml" }, "--prices: /does/not/exist.yaml: cannot read: no such file or directory"},
		"no calls in flight":     {func(c *Config) { c.LLM.Concurrency = -1 }, "--concurrency: want 1 to 4096 calls in flight, got -1"},
		"no sample":              {func(c *Config) { c.Samples = 0 }, "--samples 0: ask the model at least once"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := Default()
			c.LLM.Spec = "offline"
			tc.edit(&c)
			s, err := c.Open(&strings.Builder{}, func(string) string { return "" })
			assert.Nil(t, s)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
			assert.Equal(t, 1, strings.Count(err.Error(), "--"), "one flag, named once: %s", err)
		})
	}
}

// TestOpenReadsTheBatchPoll: $ASSAY_BATCH_POLL is a positive duration.
func TestOpenReadsTheBatchPoll(t *testing.T) {
	t.Parallel()
	c := Default()
	c.LLM.Spec, c.LLM.Batch = "offline", true
	_, err := c.Open(&strings.Builder{}, func(k string) string { return map[string]string{"ASSAY_BATCH_POLL": "soon"}[k] })
	require.EqualError(t, err, `$ASSAY_BATCH_POLL: want a positive duration such as 30s (the first wait between two polls of a batch), got "soon"`)
}

// TestCheckClientBoundsSamples: a run that opens no model (its values
// were judged already) still refuses a count of samples no run could ask.
func TestCheckClientBoundsSamples(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		samples int
		want    string
	}{
		"one":            {1, ""},
		"the most":       {100, ""},
		"none":           {0, "--samples 0: ask the model at least once per judgement"},
		"past the most":  {101, "--samples 101: want at most 100 asks per judgement"},
		"a huge integer": {99999999999, "--samples 99999999999: want at most 100 asks per judgement"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := Default()
			c.Samples = tc.samples
			err := c.CheckClient()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
		})
	}
}
