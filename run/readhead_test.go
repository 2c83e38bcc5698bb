package run_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

// TestReadHeadNamesTheFaultyLineAndField: a run folder's config.json or
// summary.json edited by hand into something that does not decode is bad
// input naming the file, the line and, for a value of the wrong kind,
// the field, wherever in the file it is.
func TestReadHeadNamesTheFaultyLineAndField(t *testing.T) {
	t.Parallel()
	const config = "{\n  \"run_id\": \"r1\",\n  \"metrics\": [\"m\", \"n\"]\n}\n"
	tests := map[string]struct {
		config, summary string // "" writes no summary
		file            string
		line            int
		field, msg      string
	}{
		"a statistic as text, second metric": {
			config:  config,
			summary: "{\n  \"run_id\": \"r1\",\n  \"metrics\": [\n    {\"metric\": \"m\", \"mean\": 0.5},\n    {\"metric\": \"n\",\n     \"mean\": \"high\"}\n  ]\n}\n",
			file:    run.FileSummary, line: 6, field: "metrics.mean", msg: "want a number, got string",
		},
		"a count as text": {
			config:  config,
			summary: "{\n  \"run_id\": \"r1\",\n  \"samples\": \"three\"\n}\n",
			file:    run.FileSummary, line: 3, field: "samples", msg: "want a whole number, got string",
		},
		"metrics as an object": {
			config:  config,
			summary: "{\"run_id\": \"r1\",\n\"metrics\": {\"m\": 1}}\n",
			file:    run.FileSummary, line: 2, field: "metrics", msg: "want an array, got object",
		},
		"a summary cut short": {
			config:  config,
			summary: "{\n  \"run_id\": \"r1\",\n  \"metrics\": [\n",
			file:    run.FileSummary, line: 4, msg: "not JSON: unexpected end of JSON input",
		},
		"a config's metrics as a number": {
			config: "{\n  \"run_id\": \"r1\",\n  \"metrics\": 5\n}\n",
			file:   run.FileConfig, line: 3, field: "metrics", msg: "want an array, got number",
		},
		"a config that is a list": {
			config: "[1, 2]\n",
			file:   run.FileConfig, line: 1, msg: "want an object, got array",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, run.FileConfig), []byte(tc.config), 0o644))
			if tc.summary != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, run.FileSummary), []byte(tc.summary), 0o644))
			}
			_, err := run.ReadHead(dir)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, filepath.Join(dir, tc.file), ie.File)
			assert.Equal(t, tc.line, ie.Line, err.Error())
			assert.Equal(t, tc.field, ie.Field)
			assert.Contains(t, ie.Msg, tc.msg)
		})
	}
}
