package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestProfileFileSize: a profile file past MaxInput (it may define
// judges, whose steps and examples a wrong or hostile file can make as
// long as it likes) is an input error naming the file and the limit,
// read no further, as a judges file is; one within it is read.
func TestProfileFileSize(t *testing.T) {
	t.Parallel()
	head := profileWithJudge + "    steps:\n"
	step := "      - Check that each term of art in the report is explained where it first appears.\n"
	tests := map[string]struct {
		size int
		want string
	}{
		"a byte past the limit":      {size: MaxInput + 1, want: "larger than the 10 MB limit of a profile"},
		"three times the limit":      {size: 3 * MaxInput, want: "larger than the 10 MB limit of a profile"},
		"a profile with a few steps": {size: 1000},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "cited.yaml")
			n := max(1, (tc.size-len(head))/len(step)+1)
			require.NoError(t, os.WriteFile(path, []byte(head+strings.Repeat(step, n)), 0o644))
			_, err := Profiles{Metrics: Builtins()}.Load(path)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "want an input error, got %v", err)
			assert.Equal(t, path, ie.File)
			assert.Contains(t, ie.Msg, tc.want)
		})
	}
}
