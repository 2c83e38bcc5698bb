// Package golden holds a test's output to a file kept beside the test:
// byte for byte, the file rewritten first when the test is run with its
// package's -update flag.
package golden

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Equal fails t unless got is the content of the file at path; with
// update it writes got there first.
func Equal(t *testing.T, path string, got []byte, update bool) {
	t.Helper()
	if update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to write it")
	assert.Equal(t, string(want), string(got))
}
