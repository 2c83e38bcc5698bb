package judges_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
)

// TestJudgesFileSize: a judges file past judges.MaxFile (a wrong file, or
// one made to exhaust memory: 50 MB of steps took 41 s and 1.1 GB before
// it was read whole into one judge's prompt) is an input error naming the
// file and the limit, read no further; one within it is read.
func TestJudgesFileSize(t *testing.T) {
	t.Parallel()
	head := "judges:\n  - name: courtesy\n    criterion: The reply thanks the customer.\n    scale: 1-5\n    steps:\n"
	step := "      - Check that the reply says thank you somewhere in its text.\n"
	tests := map[string]struct {
		size int // bytes of the file, at least
		want string
	}{
		"a file a step past the limit":   {size: judges.MaxFile + 1, want: "larger than the 10 MB limit of a judges file"},
		"a file of five times the limit": {size: 5 * judges.MaxFile, want: "larger than the 10 MB limit of a judges file"},
		"a file with a few steps":        {size: 2000},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "judges.yaml")
			n := max(0, (tc.size-len(head))/len(step)+1)
			require.NoError(t, os.WriteFile(path, []byte(head+strings.Repeat(step, n)), 0o644))
			reg := agent.Builtins()
			for what, read := range map[string]func() error{
				"judges.Extend": func() error { _, err := judges.Extend(reg, path); return err },
				"agent.Judges":  func() error { _, err := agent.Judges(reg, path); return err },
			} {
				err := read()
				if tc.want == "" {
					require.NoError(t, err, what)
					continue
				}
				var ie *eval.InputError
				require.True(t, errors.As(err, &ie), "%s: want an input error, got %v", what, err)
				assert.Equal(t, path, ie.File, what)
				assert.Contains(t, ie.Msg, tc.want, what)
			}
		})
	}
}
