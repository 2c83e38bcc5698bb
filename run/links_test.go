package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestRunFolderLinksAreNotWrittenThrough: a run folder that brings a
// symbolic link in place of a file a run writes into (the lock, in which
// it writes its holder; results.jsonl, which a resume cuts and appends
// to; results.bad.jsonl, to which it appends unreadable lines) is refused
// as bad input naming the file, and the file the link points to is left
// as it was. Before, the lock's target was replaced by the holder's
// command line, a target of results.jsonl ending without a newline was cut
// to nothing and filled with results, and a line of results.jsonl was
// appended to the target of results.bad.jsonl (a shell's start-up file).
func TestRunFolderLinksAreNotWrittenThrough(t *testing.T) {
	t.Parallel()
	line := func(id string) string {
		b, err := json.Marshal(Result{ID: id, Metric: "m1", Value: 0.5})
		require.NoError(t, err)
		return string(b) + "\n"
	}
	tests := map[string]struct {
		link    string // the file of the folder that is a link to the victim
		victim  string
		results string // results.jsonl, when it is not the link
		create  bool   // a new run in the folder, not a resume
	}{
		"the lock of a resumed run":   {link: FileLock, victim: "precious\n", results: line("s1")},
		"the lock of a new run":       {link: FileLock, victim: "precious\n", create: true},
		"results.jsonl":               {link: FileResults, victim: "precious, with no newline"},
		"results.bad.jsonl":           {link: FileBad, victim: "# a shell's start-up file\n", results: line("s1") + "echo owned\n" + line("s2")},
		"results.jsonl, a whole line": {link: FileResults, victim: line("s1")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			if !tc.create {
				r, err := Create(dir, testConfig())
				require.NoError(t, err)
				require.NoError(t, r.Close())
				require.NoError(t, os.WriteFile(filepath.Join(dir, FileResults), []byte(tc.results), 0o644))
			} else {
				require.NoError(t, os.MkdirAll(dir, 0o755))
			}
			victim := filepath.Join(t.TempDir(), "victim")
			require.NoError(t, os.WriteFile(victim, []byte(tc.victim), 0o644))
			link := filepath.Join(dir, tc.link)
			if err := os.Remove(link); !os.IsNotExist(err) {
				require.NoError(t, err) // the folder's own file, when it has one
			}
			require.NoError(t, os.Symlink(victim, link))

			var err error
			if tc.create {
				_, err = Create(dir, testConfig())
			} else {
				var r *Run
				if r, err = Resume(dir, testConfig()); err == nil {
					_ = r.Append(Result{ID: "s9", Metric: "m1", Value: 1})
					require.NoError(t, r.Close())
				}
			}
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, link, ie.File)
			assert.Contains(t, err.Error(), "a symbolic link")
			got, rerr := os.ReadFile(victim)
			require.NoError(t, rerr)
			assert.Equal(t, tc.victim, string(got), "the link's target is left as it was")
		})
	}
}
