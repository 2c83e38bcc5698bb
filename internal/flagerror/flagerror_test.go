package flagerror_test

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/flagerror"
)

func flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int("concurrency", 8, "")
	fs.Float64("max-cost", 0, "")
	fs.Duration("timeout", time.Minute, "")
	fs.Bool("strict", false, "")
	fs.String("profile", "research", "")
	fs.StringSlice("metric", nil, "")
	fs.StringSlice("trace-metric", []string{"faithfulness", "answer_relevancy_grade"}, "")
	return fs
}

// TestExplain: a value a flag cannot take is named with the flag and what
// it takes, without the parser's own text.
func TestExplain(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		want string
	}{
		"a fraction for a whole number":  {[]string{"--concurrency", "1.5"}, `--concurrency: "1.5" is not a whole number`},
		"an exponent for a whole number": {[]string{"--concurrency=1e18"}, `--concurrency: "1e18" is not a whole number`},
		"empty for a whole number":       {[]string{"--concurrency", ""}, `--concurrency: "" is not a whole number`},
		"too large a whole number":       {[]string{"--concurrency", "99999999999999999999"}, `--concurrency: "99999999999999999999" is out of range: want a whole number`},
		"a word for a number":            {[]string{"--max-cost", "lots"}, `--max-cost: "lots" is not a number, such as 0.5`},
		"too large a number":             {[]string{"--max-cost", "1e400"}, `--max-cost: "1e400" is out of range: want a number, such as 0.5`},
		"a duration without its unit":    {[]string{"--timeout", "5"}, `--timeout: "5" is not a duration with its unit, such as 90s, 5m or 1h30m`},
		"a word for a bool":              {[]string{"--strict=maybe"}, `--strict: "maybe" is not true or false`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := flagerror.Explain(flags().Parse(tc.args))
			require.Error(t, err)
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "%T", err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
	other := errors.New("unknown flag: --nope")
	assert.Equal(t, other, flagerror.Explain(other), "other errors pass as they are")
}

// TestEmpty: a string flag given an empty or blank value is reported;
// one left out, one given a value, and a list flag are not.
func TestEmpty(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		want string
	}{
		"empty":                                 {[]string{"--profile", ""}, "--profile: empty value: give one, or leave the flag out"},
		"only space":                            {[]string{"--profile= \t"}, "--profile: empty value: give one, or leave the flag out"},
		"left out":                              {nil, ""},
		"given a value":                         {[]string{"--profile", "daily"}, ""},
		"a list flag":                           {[]string{"--metric", ""}, ""},
		"a list flag with a default, empty":     {[]string{"--trace-metric", ""}, "--trace-metric: empty value: give one, or leave the flag out"},
		"a list flag with a default, blank":     {[]string{"--trace-metric= , "}, "--trace-metric: empty value: give one, or leave the flag out"},
		"a list flag with a default, given":     {[]string{"--trace-metric", "faithfulness"}, ""},
		"a list flag with a default, one blank": {[]string{"--trace-metric", "faithfulness,"}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fs := flags()
			require.NoError(t, fs.Parse(tc.args))
			err := flagerror.Empty(fs)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.want)
		})
	}
}
