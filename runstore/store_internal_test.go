package runstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/sqlitedb"
	"github.com/assaylabs/assay/run"
)

func TestDataDir(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		goos string
		env  map[string]string
		want string
		err  string
	}{
		"linux: XDG_DATA_HOME":                       {goos: "linux", env: map[string]string{"XDG_DATA_HOME": "/x/data", "HOME": "/home/u"}, want: "/x/data"},
		"linux: a relative XDG_DATA_HOME is ignored": {goos: "linux", env: map[string]string{"XDG_DATA_HOME": "rel", "HOME": "/home/u"}, want: filepath.Join("/home/u", ".local", "share")},
		"freebsd: ~/.local/share":                    {goos: "freebsd", env: map[string]string{"HOME": "/home/u"}, want: filepath.Join("/home/u", ".local", "share")},
		"linux: nothing set":                         {goos: "linux", err: "neither $XDG_DATA_HOME nor $HOME is set"},
		"macOS: Application Support":                 {goos: "darwin", env: map[string]string{"HOME": "/Users/u", "XDG_DATA_HOME": "/ignored"}, want: filepath.Join("/Users/u", "Library", "Application Support")},
		"windows: LOCALAPPDATA":                      {goos: "windows", env: map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`, "APPDATA": "roaming"}, want: `C:\Users\u\AppData\Local`},
		"windows: APPDATA when no LOCALAPPDATA":      {goos: "windows", env: map[string]string{"APPDATA": "roaming"}, want: "roaming"},
		"windows: nothing set":                       {goos: "windows", err: "neither %LOCALAPPDATA% nor %APPDATA% is set"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := dataDir(tc.goos, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestUnreadableRowHidesNoOther: a row of the run store that no longer
// reads back (its summary damaged in the file) is named by runs list and
// runs trend, which list and plot every other run all the same.
func TestUnreadableRowHidesNoOther(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	st, err := OpenStore(path)
	require.NoError(t, err)
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i, id := range []string{"r1", "r2", "r3"} {
		cfg := run.Config{RunID: id, Started: t0.AddDate(0, 0, i), DatasetSHA256: "aaa", Metrics: []string{"faithfulness"}}
		s := run.Summary{RunID: id, Complete: true, Metrics: []run.MetricStats{{Metric: "faithfulness", N: 2, Scored: 2, Mean: run.Num(0.25 * float64(i+1))}}}
		require.NoError(t, st.Record(cfg, s, t.TempDir()))
	}
	require.NoError(t, sqlitedb.Exec(ctx, st.db, `UPDATE runs SET summary = '{"metrics": [' WHERE id = 'r2'`))
	require.NoError(t, st.Close())
	runs := Runs{Store: path}

	tests := map[string]struct {
		ids        func() ([]string, []string, error)
		want       []string
		unreadable string
	}{
		"list": {ids: func() ([]string, []string, error) {
			l, err := runs.List(ctx)
			if err != nil {
				return nil, nil, err
			}
			var ids []string
			for _, r := range l.Runs {
				ids = append(ids, r.ID)
			}
			return ids, l.Unreadable, nil
		}, want: []string{"r1", "r3"}},
		"trend": {ids: func() ([]string, []string, error) {
			tr, err := runs.Trend(ctx, "faithfulness", "")
			if err != nil {
				return nil, nil, err
			}
			var ids []string
			for _, p := range tr.Points {
				ids = append(ids, p.RunID+"="+strconv.FormatFloat(float64(p.Mean), 'f', 2, 64))
			}
			return ids, tr.Unreadable, nil
		}, want: []string{"r1=0.25", "r3=0.75"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ids, bad, err := tc.ids()
			require.NoError(t, err)
			assert.Equal(t, tc.want, ids)
			require.Len(t, bad, 1)
			assert.Contains(t, bad[0], "run r2 does not read back")
		})
	}
	var out bytes.Buffer
	l, err := runs.List(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Write(&out, "text"))
	assert.Contains(t, out.String(), "not listed: 1 run that does not read back:\n  run store "+path+": run r2 does not read back")

	// The machine-readable listings left the row out without a word; now
	// it follows the runs, its id and what is wrong with it.
	const reason = "does not read back (unexpected end of JSON input): record it again or delete its row"
	for format, want := range map[string][]string{
		"json":  {`"id":"r1"`, `"id":"r3"`, `{"id":"r2","unreadable":"` + reason + `"}`},
		"jsonl": {`"id":"r1"`, `"id":"r3"`, `{"id":"r2","unreadable":"` + reason + `"}`},
		"yaml":  {"id: r1", "id: r3", "- id: r2\n  unreadable: '" + reason + "'"},
	} {
		var out bytes.Buffer
		require.NoError(t, l.Write(&out, format))
		got := out.String()
		if format == "json" {
			var compact bytes.Buffer
			require.NoError(t, json.Compact(&compact, out.Bytes()))
			got = compact.String()
			var rows []map[string]any
			require.NoError(t, json.Unmarshal(out.Bytes(), &rows), "still an array")
			require.Len(t, rows, 3)
			assert.Equal(t, map[string]any{"id": "r2", "unreadable": reason}, rows[2])
		}
		for _, w := range want {
			assert.Contains(t, got, w, format)
		}
		assert.Less(t, strings.Index(got, want[1]), strings.Index(got, want[2]), "%s: after the runs", format)
	}
}

// TestSetupErrorAdvice: a run store that another process holds locked, or
// that may not be written, is sound, and its error says so; only a file
// that is no run store is to be moved away.
func TestSetupErrorAdvice(t *testing.T) {
	t.Parallel()
	const moveAway = "move it away"
	tests := map[string]struct {
		err      func(t *testing.T, path string) error
		want     string
		moveAway bool
	}{
		"not a database": {
			err: func(t *testing.T, path string) error {
				require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not sqlite ", 100)), 0o600))
				_, err := OpenStore(path)
				return err
			},
			want: "not a usable run store", moveAway: true,
		},
		"locked by another process": {
			err: func(t *testing.T, path string) error {
				st, err := OpenStore(path)
				require.NoError(t, err)
				require.NoError(t, st.Close())
				db, err := sqlitedb.Open(path)
				require.NoError(t, err)
				t.Cleanup(func() { _ = db.Close() })
				tx, err := db.BeginTx(context.Background(), nil) // IMMEDIATE: the write lock
				require.NoError(t, err)
				t.Cleanup(func() { _ = tx.Rollback() })
				_, err = tx.ExecContext(context.Background(), `CREATE TABLE other (a)`)
				require.NoError(t, err)
				_, err = OpenStore(path)
				return err
			},
			want: "another process kept it locked",
		},
		"read-only": {
			err: func(t *testing.T, path string) error {
				st, err := OpenStore(path)
				require.NoError(t, err)
				require.NoError(t, st.Close())
				db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
				require.NoError(t, err)
				t.Cleanup(func() { _ = db.Close() })
				_, err = db.ExecContext(context.Background(), `CREATE TABLE other (a)`)
				require.Error(t, err)
				return setupError(path, err)
			},
			want: "it cannot be written",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "runs.db")
			err := tc.err(t, path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "run store "+path+": "+tc.want)
			assert.Equal(t, tc.moveAway, strings.Contains(err.Error(), moveAway), err.Error())
		})
	}
}

// TestMetadataColumnsNameEachValueOnce: metadata flattens to a column per
// leaf, named by its path; two paths that would share a name (a key with
// a dot beside an object) get a column each, with the dots of their keys
// escaped, so that no value of a record is lost or chosen at random.
func TestMetadataColumnsNameEachValueOnce(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		metadata []map[string]any
		cols     []string
		rows     []map[string]any
	}{
		"plain keys and objects": {
			metadata: []map[string]any{{"split": "dev", "src": map[string]any{"site": "wiki"}, "empty": map[string]any{}, "none": nil}},
			cols:     []string{"metadata.empty", "metadata.split", "metadata.src.site"},
			rows:     []map[string]any{{"metadata.empty": map[string]any{}, "metadata.split": "dev", "metadata.src.site": "wiki"}},
		},
		"a dotted key alone keeps its plain name": {
			metadata: []map[string]any{{"a.b": "flat"}},
			cols:     []string{"metadata.a.b"},
			rows:     []map[string]any{{"metadata.a.b": "flat"}},
		},
		"a dotted key beside an object with the same path": {
			metadata: []map[string]any{{"a.b": "flat", "a": map[string]any{"b": "nested"}}, {"a": map[string]any{"b": "nested2"}}},
			cols:     []string{"metadata.a.b", `metadata.a\.b`},
			rows:     []map[string]any{{"metadata.a.b": "nested", `metadata.a\.b`: "flat"}, {"metadata.a.b": "nested2"}},
		},
		"the two in different records": {
			metadata: []map[string]any{{"a.b": 1.0}, {"a": map[string]any{"b": true}}},
			cols:     []string{"metadata.a.b", `metadata.a\.b`},
			rows:     []map[string]any{{`metadata.a\.b`: 1.0}, {"metadata.a.b": true}},
		},
		"an escaped name another key spells plainly": {
			metadata: []map[string]any{{"a.b": "flat", "a": map[string]any{"b": "nested"}, `a\`: map[string]any{"b": "slash"}}},
			cols:     []string{"metadata.a.b", `metadata.a\.b`, `metadata.a\\.b`},
			rows:     []map[string]any{{"metadata.a.b": "nested", `metadata.a\.b`: "flat", `metadata.a\\.b`: "slash"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			records := func(yield func(dataset.Record, error) bool) {
				for i, m := range tc.metadata {
					if !yield(dataset.Record{ID: strconv.Itoa(i), Sample: eval.Sample{Metadata: m}}, nil) {
						return
					}
				}
			}
			for range 20 { // the same every time, whatever the maps' order
				cols, names, err := metadataColumns(records)
				require.NoError(t, err)
				var got []string
				for _, c := range cols {
					got = append(got, c.name)
				}
				assert.Equal(t, tc.cols, got)
				for i, m := range tc.metadata {
					assert.Equal(t, tc.rows[i], names.flat(m), "record %d", i)
				}
			}
		})
	}
}
