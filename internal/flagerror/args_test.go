package flagerror_test

import (
	"errors"
	"io"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/flagerror"
)

// TestExactArgs: an argument too many, when a flag of optional value
// was given without "=", names that flag and how to give its value; other
// counts are cobra's own message.
func TestExactArgs(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args  []string
		want  string
		input bool // an *eval.InputError
	}{
		"one argument":                {[]string{"data.jsonl"}, "", false},
		"the value after =":           {[]string{"--cluster=0.0.0.0:4222", "data.jsonl"}, "", false},
		"the flag alone":              {[]string{"--cluster", "data.jsonl"}, "", false},
		"the value after a space":     {[]string{"--cluster", "0.0.0.0:4222", "data.jsonl"}, "--cluster: takes its value only after =, as --cluster=VALUE (alone it means 127.0.0.1:4222); the word after it was read as an argument, so 2 arguments were given where 1 is wanted", true},
		"two arguments, no bare flag": {[]string{"a", "b"}, "accepts 1 arg(s), received 2", false},
		"two arguments, a bool given": {[]string{"--quiet", "a", "b"}, "accepts 1 arg(s), received 2", false},
		"no argument, the flag alone": {[]string{"--cluster"}, "accepts 1 arg(s), received 0", false},
		"the value after = and two":   {[]string{"--cluster=0.0.0.0:4222", "a", "b"}, "accepts 1 arg(s), received 2", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := &cobra.Command{Use: "bench", Args: flagerror.ExactArgs(1), RunE: func(*cobra.Command, []string) error { return nil }, SilenceErrors: true, SilenceUsage: true}
			cmd.SetOut(io.Discard)
			cmd.Flags().String("cluster", "", "")
			cmd.Flags().Lookup("cluster").NoOptDefVal = "127.0.0.1:4222"
			cmd.Flags().BoolP("quiet", "q", false, "")
			cmd.SetArgs(tc.args)
			err := cmd.Execute()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.want)
			var ie *eval.InputError
			assert.Equal(t, tc.input, errors.As(err, &ie))
		})
	}
}
