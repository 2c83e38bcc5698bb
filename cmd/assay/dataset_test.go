package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
)

// TestOpenDatasetChecksAsLoadRecords: the first pass of `assay judge` and
// `assay agree` finds the errors loadRecords finds, in the same order and
// words, and counts the records; reading again gives loadRecords' records.
func TestOpenDatasetChecksAsLoadRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := `{"id":"a","question":"q","answer":"a","contexts":["c"]}`
	tests := map[string]struct {
		name, data string
	}{
		"jsonl":                       {"d.jsonl", ok + "\n" + `{"question":"q2"}` + "\n"},
		"json array":                  {"d.json", "[\n" + ok + ",\n" + `{"question":"q2"}` + "\n]"},
		"csv":                         {"d.csv", "question,answer\nq,a\nq2,\n"},
		"a bad record":                {"d.jsonl", ok + "\n" + `{"question":"q","contexts":7}` + "\n"},
		"blank":                       {"d.jsonl", " \n\n"},
		"empty":                       {"d.jsonl", ""},
		"a NUL after a bad record":    {"d.jsonl", ok + "\n" + `{"question":1}` + "\n" + `{"question":"\u0000` + "\x00" + `"}`},
		"bad UTF-8 after a bad line":  {"d.jsonl", `{"question":` + "\n" + `{"question":"caf` + "\xe9" + `"}`},
		"no records":                  {"d.csv", "question,answer\n"},
		"a duplicate id, late":        {"d.jsonl", strings.Repeat(`{"question":"q"}`+"\n", 3) + ok + "\n" + ok + "\n"},
		"a syntax error in the array": {"d.json", "[\n" + ok + ",\n" + ok + "\n" + ok + "]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+"-"+tc.name)
			require.NoError(t, os.WriteFile(path, []byte(tc.data), 0o600))
			recs, wantErr := loadRecords(path, nil)
			d, err := openDataset(path, nil, nil)
			if wantErr != nil {
				require.Error(t, err)
				assert.Equal(t, wantErr.Error(), err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(recs), d.n)
			var got []bench.Record
			for rec, err := range d.records() {
				require.NoError(t, err)
				got = append(got, rec)
			}
			assert.Equal(t, recs, got)
		})
	}
	t.Run("standard input is read once and named <stdin>", func(t *testing.T) {
		t.Parallel()
		_, err := openDataset("-", strings.NewReader(ok+"\n"+ok), nil)
		require.Error(t, err)
		assert.Equal(t, `<stdin>:2: id: duplicate id "a" (first on line 1)`, err.Error())
		d, err := openDataset("-", strings.NewReader("[\n"+ok+"\n]"), nil)
		require.NoError(t, err)
		for range 2 { // held in memory: it can be read again
			n := 0
			for rec, err := range d.records() {
				require.NoError(t, err)
				assert.Equal(t, 2, rec.Line)
				n++
			}
			assert.Equal(t, 1, n)
		}
	})
	t.Run("a missing file and a directory", func(t *testing.T) {
		t.Parallel()
		for _, path := range []string{filepath.Join(dir, "nope.jsonl"), dir} {
			_, wantErr := loadRecords(path, nil)
			_, err := openDataset(path, nil, nil)
			require.Error(t, wantErr)
			assert.Equal(t, wantErr.Error(), err.Error())
		}
	})
}

// loadRecords reads a dataset file ("-" is standard input) of at most
// maxDataset bytes whole, as the commands did before openDataset: the
// reference its first pass is checked against.
func loadRecords(file string, stdin io.Reader) ([]bench.Record, error) {
	data, err := readInput(file, stdin, maxDataset)
	if err != nil {
		return nil, err
	}
	var recs []bench.Record
	for rec, err := range recordsFrom(file, bytes.NewReader(data)) {
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
}
