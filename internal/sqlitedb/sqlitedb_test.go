package sqlitedb_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/sqlitedb"
)

// TestOpenNamesTheFileItIsGiven: a path holding the characters a DSN or
// a URI gives a meaning to ('?', '#', '%', an escape already written,
// a leading "//") opens the file of that very name, and a second Open
// of the same path reads what the first wrote.
func TestOpenNamesTheFileItIsGiven(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		rel    string // under the test's folder
		double bool   // the folder written with a leading "//"
	}{
		"a question mark":        {rel: "runs?mode=ro.db"},
		"a question mark folder": {rel: "data?x/runs.db"},
		"a hash":                 {rel: "a#b/runs.db"},
		"a percent":              {rel: "100%.db"},
		"an escape as written":   {rel: "a%3Fb.db"},
		"spaces and letters":     {rel: "ré sumé/runs.db"},
		"a leading double slash": {rel: "runs.db", double: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, tc.rel)
			open := path
			if tc.double {
				open = "/" + path
			}
			db, err := sqlitedb.Open(open)
			require.NoError(t, err)
			require.NoError(t, sqlitedb.Exec(t.Context(), db, "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('kept')"))
			require.NoError(t, db.Close())

			_, err = os.Stat(path)
			require.NoError(t, err, "the file has the name it was given")
			db, err = sqlitedb.Open(open)
			require.NoError(t, err)
			defer func() { _ = db.Close() }()
			var v string
			require.NoError(t, db.QueryRowContext(t.Context(), "SELECT v FROM t").Scan(&v))
			assert.Equal(t, "kept", v)
		})
	}
}
