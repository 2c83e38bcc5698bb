package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCorpusSkippedNamesTheFolderEscaped: the notice of a corpus file
// left out names the --corpus folder with its escape sequences and bidi
// overrides written as escapes, as it names the file.
func TestCorpusSkippedNamesTheFolderEscaped(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		folder, want string
	}{
		"an escape sequence": {folder: "c\x1b[2Jorpus", want: `c\x1b[2Jorpus`},
		"a bidi override":    {folder: "c\u202eorpus", want: `c\u202eorpus`},
		"a line break":       {folder: "c\norpus", want: `c\norpus`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), tc.folder)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.md"), []byte("---\nurl: https://example.org/a\ntitle: A\n---\nHeat pumps work in the cold.\n"), 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "bare.md"), []byte("no front matter\n"), 0o600))
			var log bytes.Buffer
			env := map[string]string{"ASSAY_CACHE_DIR": t.TempDir()}
			_, closeFn, err := openSearcher(t.Context(), ResearchJob{Search: "local", Corpus: dir, Log: &log, Env: func(k string) string { return env[k] }})
			require.NoError(t, err)
			defer closeFn()
			assert.Contains(t, log.String(), "assay: --corpus "+filepath.Dir(dir)+"/"+tc.want+": skipped ")
			assert.NotContains(t, log.String(), tc.folder)
		})
	}
}
