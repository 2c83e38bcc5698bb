package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestResumeNamesTheLineAndFieldOfABadConfig: a config.json that does
// not decode (empty after a crash of the machine, edited by hand) is bad
// input naming the file, the line and the field on --resume, as runs show
// names them; before, a resume named the file alone, and the field as Go
// spells it (Config.metrics).
func TestResumeNamesTheLineAndFieldOfABadConfig(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		config string
		line   int
		field  string
		msg    string
	}{
		"empty":                     {config: "", line: 1, msg: "not JSON: unexpected end of JSON input"},
		"a value of the wrong kind": {config: "{\n  \"run_id\": \"x\",\n  \"metrics\": \"m1\"\n}\n", line: 3, field: "metrics", msg: "want an array, got string"},
		"a syntax error":            {config: "{\n  \"run_id\": \"x\",\n  \"metrics\": [\"m1\",]\n}\n", line: 3, msg: "not JSON: invalid character ']'"},
		"a number where text is":    {config: "{\n  \"run_id\": 7\n}\n", line: 2, field: "run_id", msg: "want a string, got number"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			r, err := Create(dir, testConfig())
			require.NoError(t, err)
			require.NoError(t, r.Close())
			path := filepath.Join(dir, FileConfig)
			require.NoError(t, os.WriteFile(path, []byte(tc.config), 0o644))
			_, err = Resume(dir, testConfig())
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, path, ie.File)
			assert.Equal(t, tc.line, ie.Line)
			assert.Equal(t, tc.field, ie.Field)
			assert.Contains(t, ie.Msg, tc.msg)
			assert.Contains(t, ie.Msg, "another --out")
		})
	}
}
