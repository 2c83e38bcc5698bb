package dataset_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
)

const okRecord = `{"id":"a","question":"q","answer":"a","contexts":["c"]}`

// readWhole reads a dataset file whole, checks its text and then reads its
// records: the reference Open's single pass is checked against.
func readWhole(path string) ([]dataset.Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, &eval.InputError{File: path, Msg: "empty input: nothing to score"}
	}
	if err := eval.CheckText(path, data); err != nil {
		return nil, err
	}
	return dataset.Read(path, bytes.NewReader(data))
}

func collect(t *testing.T, d *dataset.Dataset) []dataset.Record {
	t.Helper()
	var got []dataset.Record
	for rec, err := range d.Records() {
		require.NoError(t, err)
		got = append(got, rec)
	}
	return got
}

// TestOpenDatasetChecksAsAWholeRead: the check pass finds the errors a
// whole read finds, in the same order and words, and counts the records;
// reading again gives the whole read's records.
func TestOpenDatasetChecksAsAWholeRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := map[string]struct {
		name, data string
		n          int
		err        string // the words, besides matching the whole read
	}{
		"jsonl":                       {name: "d.jsonl", data: okRecord + "\n" + `{"question":"q2"}` + "\n", n: 2},
		"json array":                  {name: "d.json", data: "[\n" + okRecord + ",\n" + `{"question":"q2"}` + "\n]", n: 2},
		"csv":                         {name: "d.csv", data: "question,answer\nq,a\nq2,\n", n: 2},
		"a bad record":                {name: "d.jsonl", data: okRecord + "\n" + `{"question":"q","contexts":7}` + "\n", err: ":2: contexts: want an array of strings, got number"},
		"blank":                       {name: "d.jsonl", data: " \n\n", err: ": empty input: nothing to score"},
		"empty":                       {name: "d.jsonl", err: ": empty input: nothing to score"},
		"a NUL after a bad record":    {name: "d.jsonl", data: okRecord + "\n" + `{"question":1}` + "\n" + `{"question":"\u0000` + "\x00" + `"}`},
		"bad UTF-8 after a bad line":  {name: "d.jsonl", data: `{"question":` + "\n" + `{"question":"caf` + "\xe9" + `"}`},
		"no records":                  {name: "d.csv", data: "question,answer\n", err: ": empty dataset: no records"},
		"a duplicate id, late":        {name: "d.jsonl", data: strings.Repeat(`{"question":"q"}`+"\n", 3) + okRecord + "\n" + okRecord + "\n", err: `:5: id: duplicate id "a" (first on line 4)`},
		"a syntax error in the array": {name: "d.json", data: "[\n" + okRecord + ",\n" + okRecord + "\n" + okRecord + "]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+"-"+tc.name)
			require.NoError(t, os.WriteFile(path, []byte(tc.data), 0o600))
			want, wantErr := readWhole(path)
			d, err := dataset.Open(path, dataset.Options{})
			if wantErr != nil {
				require.Error(t, err)
				assert.Equal(t, wantErr.Error(), err.Error())
				assert.ErrorAs(t, err, new(*eval.InputError))
				if tc.err != "" {
					assert.Equal(t, path+tc.err, err.Error())
				}
				return
			}
			require.NoError(t, err)
			require.Empty(t, tc.err, "the whole read found no error")
			assert.Equal(t, tc.n, d.Len())
			assert.Equal(t, dataset.FormatOf(tc.name), d.Format())
			assert.Equal(t, path, d.Name())
			assert.Equal(t, want, collect(t, d))
		})
	}
}

func TestOpenDatasetRefusesWhatIsNotAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := map[string]struct {
		path string
		opts dataset.Options
		want string
	}{
		"a missing file":            {path: filepath.Join(dir, "nope.jsonl"), want: filepath.Join(dir, "nope.jsonl") + ": cannot read: no such file or directory"},
		"a directory":               {path: dir, want: dir + ": is a directory, not a file"},
		"standard input, used":      {path: dataset.Stdin, want: "<stdin>: standard input is already used"},
		"standard input, empty":     {path: dataset.Stdin, opts: dataset.Options{Stdin: strings.NewReader(" \n")}, want: "<stdin>: empty input: nothing to score"},
		"standard input, UTF-16":    {path: dataset.Stdin, opts: dataset.Options{Stdin: strings.NewReader("\xff\xfe{\x00}\x00")}, want: "<stdin>:1: UTF-16 text (little-endian, byte order mark FF FE): save it as UTF-8"},
		"standard input, not text":  {path: dataset.Stdin, opts: dataset.Options{Stdin: strings.NewReader(okRecord + "\n\x00")}, want: "<stdin>:2: binary data (NUL byte): expected UTF-8 text"},
		"standard input, read fail": {path: dataset.Stdin, opts: dataset.Options{Stdin: iotest.ErrReader(errors.New("reset by peer"))}, want: "<stdin>: cannot read: reset by peer"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := dataset.Open(tc.path, tc.opts)
			assert.Nil(t, d)
			require.Error(t, err)
			assert.ErrorAs(t, err, new(*eval.InputError))
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// TestOpenDatasetReadsStandardInputOnce: standard input is read once, held
// and read again; it is named <stdin>, JSON by default (an object, an array
// or JSON Lines, told by content) and in the format the caller gives.
func TestOpenDatasetReadsStandardInputOnce(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in     string
		format dataset.Format
		n      int
		lines  []int
		err    string
	}{
		"JSON Lines":                {in: okRecord + "\n" + `{"question":"q2"}`, n: 2, lines: []int{1, 2}},
		"an array":                  {in: "[\n" + okRecord + "\n]", n: 1, lines: []int{2}},
		"one object over lines":     {in: "{\n" + `"question": "q"` + "\n}", n: 1, lines: []int{1}},
		"CSV, said by the caller":   {in: "question,answer\nq,a\n", format: dataset.FormatCSV, n: 1, lines: []int{2}},
		"CSV, not said, is no JSON": {in: "question,answer\nq,a\n", err: "<stdin>:1:1: invalid JSON: invalid character 'q' looking for beginning of value"},
		"a duplicate id":            {in: okRecord + "\n" + okRecord, err: `<stdin>:2: id: duplicate id "a" (first on line 1)`},
		"an unknown format":         {in: okRecord, format: "yaml", err: `dataset: read <stdin>: unknown dataset format "yaml": want json, jsonl, csv or tsv`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := dataset.Open(dataset.Stdin, dataset.Options{Stdin: strings.NewReader(tc.in), Format: tc.format})
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "<stdin>", d.Name())
			assert.Equal(t, tc.n, d.Len())
			for range 2 { // held in memory: it can be read again
				var lines []int
				for _, rec := range collect(t, d) {
					lines = append(lines, rec.Line)
				}
				assert.Equal(t, tc.lines, lines)
			}
		})
	}
}

// TestOpenDatasetChecksWhatScorersNeed: a record without what a scorer
// needs is an input error naming the file, line and field, found by the
// check pass before anything runs; Visit sees each record after the
// scorers' check, and its error ends the pass.
func TestOpenDatasetChecksWhatScorersNeed(t *testing.T) {
	t.Parallel()
	recall, err := judges.New(judges.MetricContextRecall, nil)
	require.NoError(t, err)
	precision, err := judges.New(judges.MetricContextPrecision, nil)
	require.NoError(t, err)
	noRef := `{"question":"q","answer":"a","contexts":["c"]}`
	withRef := `{"question":"q","answer":"a","contexts":["c"],"reference":"ref"}`
	noCtx := `{"question":"q","answer":"a","reference":"ref"}`
	stop := errors.New("stop here")
	tests := map[string]struct {
		data    string
		scorers []eval.Scorer
		visit   func(dataset.Record) error
		visited int
		err     string
		field   string
	}{
		"every record has what recall needs": {data: withRef + "\n" + withRef, scorers: []eval.Scorer{recall}, visited: 2},
		"no reference, on line 2": {data: withRef + "\n" + noRef, scorers: []eval.Scorer{recall}, visited: 1, field: "reference",
			err: "FILE:2: reference: context_recall: sample has no reference answer"},
		"no contexts, on line 1": {data: noCtx, scorers: []eval.Scorer{recall, precision}, field: "contexts",
			err: "FILE:1: contexts: context_precision: sample has no contexts or sources"},
		"no reference, in a json array on one line": {data: "[" + withRef + "," + noRef + "]", scorers: []eval.Scorer{recall}, visited: 1, field: "[1].reference",
			err: "FILE:1: [1].reference: context_recall: sample has no reference answer"},
		"a scorer without needs checks nothing": {data: noCtx, scorers: []eval.Scorer{judges.TokenOverlap{}}, visited: 1},
		"visit stops the pass": {data: withRef + "\n" + withRef, visit: func(r dataset.Record) error {
			return fmt.Errorf("record %s: %w", r.ID, stop)
		}, visited: 1, err: "record line-1: stop here"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			visited := 0
			opts := dataset.Options{Scorers: tc.scorers,
				Visit: func(r dataset.Record) error {
					visited++
					if tc.visit != nil {
						return tc.visit(r)
					}
					return nil
				}}
			path := filepath.Join(t.TempDir(), "d.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tc.data), 0o600))
			d, err := dataset.Open(path, opts)
			assert.Equal(t, tc.visited, visited)
			if tc.err == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.visited, d.Len())
				return
			}
			require.Error(t, err)
			assert.Equal(t, strings.ReplaceAll(tc.err, "FILE", path), err.Error())
			var ie *eval.InputError
			if tc.field == "" {
				assert.ErrorIs(t, err, stop)
				return
			}
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.field, ie.Field)
		})
	}
}

// TestDatasetErr: an error of a run over the records says which dataset;
// one that already says where is left as it is.
func TestDatasetErr(t *testing.T) {
	t.Parallel()
	d, err := dataset.Open(dataset.Stdin, dataset.Options{Stdin: strings.NewReader(okRecord)})
	require.NoError(t, err)
	cause := errors.New("scorer broke")
	ie := &eval.InputError{File: "other.jsonl", Line: 3, Msg: "changed"}
	tests := map[string]struct {
		err  error
		want string
	}{
		"nil":              {},
		"a plain error":    {err: cause, want: "<stdin>: scorer broke"},
		"an input error":   {err: ie, want: "other.jsonl:3: changed"},
		"one wrapped deep": {err: fmt.Errorf("run: %w", ie), want: "run: other.jsonl:3: changed"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := d.Err(tc.err)
			if tc.want == "" {
				assert.NoError(t, got)
				return
			}
			assert.EqualError(t, got, tc.want)
			assert.ErrorIs(t, got, tc.err)
		})
	}
}

func TestFormatOf(t *testing.T) {
	t.Parallel()
	tests := map[string]dataset.Format{
		"d.csv": dataset.FormatCSV, "D.CSV": dataset.FormatCSV, "d.tsv": dataset.FormatTSV, "D.Tsv": dataset.FormatTSV, "d.json": dataset.FormatJSON, "dir.json/d.Json": dataset.FormatJSON,
		"d.jsonl": dataset.FormatJSONL, "d.ndjson": dataset.FormatJSONL, "d": dataset.FormatJSONL, "-": dataset.FormatJSONL,
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, want, dataset.FormatOf(name))
		})
	}
}

// TestFormatRecordsIgnoresTheName: the format given wins over the name's
// extension, which only names the file in errors.
func TestFormatRecordsIgnoresTheName(t *testing.T) {
	t.Parallel()
	var ids []string
	for rec, err := range dataset.FormatCSV.Records("data.json", strings.NewReader("id,question\nx,q\ny,q2\n")) {
		require.NoError(t, err)
		ids = append(ids, rec.ID)
	}
	assert.Equal(t, []string{"x", "y"}, ids)
	for _, err := range dataset.FormatJSONL.Records("data.csv", strings.NewReader("question,answer\n")) {
		assert.EqualError(t, err, "data.csv:1:1: invalid JSON: invalid character 'q' looking for beginning of value")
	}
}

// TestDatasetReadAgainIsTheCheckedOne changes a file between the check
// pass and the read again: records whose ids stand where the check met
// them are read as they now are; an id that is not the one checked at its
// place (a duplicate added, one renamed, one appended) ends the read with
// an error naming the line and the id.
func TestDatasetReadAgainIsTheCheckedOne(t *testing.T) {
	t.Parallel()
	checked := `{"id":"a","question":"q1"}` + "\n" + `{"id":"b","question":"q2"}` + "\n"
	tests := map[string]struct {
		now   string
		ids   []string // read before the error
		query string   // the last record's question, as it now is
		err   string
	}{
		"unchanged":      {now: checked, ids: []string{"a", "b"}, query: "q2"},
		"a text changed": {now: `{"id":"a","question":"q1"}` + "\n" + `{"id":"b","question":"new"}` + "\n", ids: []string{"a", "b"}, query: "new"},
		"a duplicate now": {now: `{"id":"a","question":"q1"}` + "\n" + `{"id":"a","question":"q2"}` + "\n", ids: []string{"a"}, query: "q1",
			err: `FILE:2: id: id "a" is not the record checked at its place: the file changed since it was checked; run again on a file that stays put`},
		"an id renamed": {now: `{"id":"z","question":"q1"}` + "\n" + `{"id":"b","question":"q2"}` + "\n",
			err: `FILE:1: id: id "z" is not the record checked at its place: the file changed since it was checked; run again on a file that stays put`},
		"a record appended": {now: checked + `{"id":"c","question":"q3"}` + "\n", ids: []string{"a", "b"}, query: "q2",
			err: `FILE:3: id: id "c" is not the record checked at its place: the file changed since it was checked; run again on a file that stays put`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "d.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(checked), 0o600))
			d, err := dataset.Open(path, dataset.Options{})
			require.NoError(t, err)
			require.Equal(t, 2, d.Len())
			require.NoError(t, os.WriteFile(path, []byte(tc.now), 0o600))
			var ids []string
			var last dataset.Record
			var rerr error
			for rec, err := range d.Records() {
				if err != nil {
					rerr = err
					break
				}
				ids, last = append(ids, rec.ID), rec
			}
			assert.Equal(t, tc.ids, ids)
			if tc.query != "" {
				assert.Equal(t, tc.query, last.Sample.Query)
			}
			if tc.err == "" {
				require.NoError(t, rerr)
				return
			}
			require.EqualError(t, rerr, strings.ReplaceAll(tc.err, "FILE", path))
			var ie *eval.InputError
			require.ErrorAs(t, rerr, &ie)
			assert.Equal(t, "id", ie.Field)
		})
	}
}
