package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestRunFolderIsLocked: while a run folder is open for writing, a second
// writer (a second resume, or a new run in the same folder) is refused as
// an input error naming the holder; once closed, the folder can be resumed.
func TestRunFolderIsLocked(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	first, err := Create(dir, testConfig())
	require.NoError(t, err)

	for name, open := range map[string]func() (*Run, error){
		"a resume":        func() (*Run, error) { return Resume(dir, testConfig()) },
		"a new run in it": func() (*Run, error) { return Create(dir, testConfig()) },
	} {
		_, err := open()
		require.Error(t, err, name)
		var locked *LockedError
		require.ErrorAs(t, err, &locked, name)
		var ie *eval.InputError
		assert.ErrorAs(t, err, &ie, "%s: an input error, exit 2", name)
		assert.Contains(t, locked.Holder, "pid ", name)
	}
	require.NoError(t, first.Append(Result{ID: "s1", Metric: "m1", Value: 1}))
	require.NoError(t, first.Close())
	require.NoError(t, first.Close(), "Close twice is no error")

	second, err := Resume(dir, testConfig())
	require.NoError(t, err, "closed, the folder is free")
	assert.Equal(t, 1, second.Resumed())
	require.NoError(t, second.Close())
}

// TestResumeSetsAsideTornLines: lines torn in the middle of results.jsonl
// (not only at its end) are moved to results.bad.jsonl, their pairs judged
// again; the good lines around them are kept, and temporary files of an
// attempt killed between write and rename are removed.
func TestResumeSetsAsideTornLines(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	run, err := Create(dir, testConfig())
	require.NoError(t, err)
	require.NoError(t, run.Close())
	line := func(id, metric string) string {
		b, err := json.Marshal(Result{ID: id, Metric: metric, Value: 0.5})
		require.NoError(t, err)
		return string(b) + "\n"
	}
	torn := line("s1", "m1") +
		`{"id":"s2","metric":"m1","val` + line("s3", "m1")[:20] + "\n" + // two writers' lines interleaved
		line("s4", "m1") +
		"garbage\n" +
		line("s5", "m1") +
		`{"id":"s6","me` // a torn last line
	results := filepath.Join(dir, FileResults)
	require.NoError(t, os.WriteFile(results, []byte(torn), 0o644))
	stale := filepath.Join(dir, "."+FileReport+".123456")
	require.NoError(t, os.WriteFile(stale, []byte("half a report"), 0o600))

	r, err := Resume(dir, testConfig())
	require.NoError(t, err)
	assert.Equal(t, 2, r.SetAside())
	for _, id := range []string{"s1", "s4", "s5"} {
		assert.True(t, r.Done(Key{id, "m1"}), id)
	}
	for _, id := range []string{"s2", "s3", "s6"} {
		assert.False(t, r.Done(Key{id, "m1"}), "%s is judged again", id)
	}
	require.NoError(t, r.Append(Result{ID: "s2", Metric: "m1", Value: 1}))
	require.NoError(t, r.Close())

	bad, err := os.ReadFile(filepath.Join(dir, FileBad))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(bad), "\n"))
	assert.Contains(t, string(bad), "garbage")
	rf, err := ReadResults(results)
	require.NoError(t, err, "the repaired file reads whole")
	assert.Len(t, rf.Results, 4)
	assert.False(t, rf.Torn)
	_, err = os.Stat(stale)
	assert.True(t, errors.Is(err, os.ErrNotExist), "the stale temporary file is removed")
}

// TestLockHolderIsShownSafely: the holder a second writer is told of is
// read from the lock file, which the first writer fills with its command
// line: control characters there (an escape sequence in a file name) are
// shown as escapes, never sent raw to the terminal, and a very long
// command line is cut.
func TestLockHolderIsShownSafely(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		holder, want string
	}{
		"an escape sequence": {holder: "pid 7, assay bench \x1b[2J\x1b]0;owned\x07 data.jsonl\n", want: `pid 7, assay bench \x1b[2J\x1b]0;owned\a data.jsonl`},
		"a line break":       {holder: "pid 7, assay bench a\nb\rc", want: `pid 7, assay bench a\nb\rc`},
		"plain":              {holder: "pid 7, assay bench --out runs/x data.jsonl", want: "pid 7, assay bench --out runs/x data.jsonl"},
		"very long":          {holder: "pid 7, " + strings.Repeat("x", 1000), want: "pid 7, " + strings.Repeat("x", maxHolder-len("pid 7, ")) + "..."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			first, err := Create(dir, testConfig())
			require.NoError(t, err)
			defer func() { require.NoError(t, first.Close()) }()
			// The lock is on the file, not its bytes: rewrite them as the
			// first writer's command line would have.
			require.NoError(t, os.WriteFile(filepath.Join(dir, FileLock), []byte(tc.holder), 0o600))
			_, err = Resume(dir, testConfig())
			var locked *LockedError
			require.ErrorAs(t, err, &locked)
			assert.Equal(t, tc.want, locked.Holder)
			assert.False(t, strings.ContainsFunc(err.Error(), func(r rune) bool { return r < 0x20 }), "no control character in %q", err.Error())
		})
	}
}

// TestLockHolderNamesTheMachine: the holder a second writer is told of
// names the machine the first runs on beside its pid, for a run folder
// on a disk several machines share, where the pid alone names another
// process (one the advice to stop it would have the user kill).
func TestLockHolderNamesTheMachine(t *testing.T) {
	t.Parallel()
	host, err := os.Hostname()
	require.NoError(t, err)
	tests := map[string]struct {
		first func(dir string) (*Run, error)
	}{
		"a new run holds it": {first: func(dir string) (*Run, error) { return Create(dir, testConfig()) }},
		"a resume holds it": {first: func(dir string) (*Run, error) {
			r, err := Create(dir, testConfig())
			if err != nil {
				return nil, err
			}
			if err := r.Close(); err != nil {
				return nil, err
			}
			return Resume(dir, testConfig())
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			first, err := tc.first(dir)
			require.NoError(t, err)
			defer func() { require.NoError(t, first.Close()) }()
			_, err = Resume(dir, testConfig())
			var locked *LockedError
			require.ErrorAs(t, err, &locked)
			assert.True(t, strings.HasPrefix(locked.Holder, fmt.Sprintf("pid %d on %s, ", os.Getpid(), host)), locked.Holder)
		})
	}
}
