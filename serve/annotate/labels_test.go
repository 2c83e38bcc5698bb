package annotate

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/sqlitedb"
)

// testDB is a DB of its own SQLite file, with the labels' table.
type testDB struct {
	*sql.DB
	path string
}

func openTestDB(t *testing.T, path string) *testDB {
	t.Helper()
	db, err := sqlitedb.OpenSynced(path)
	require.NoError(t, err)
	require.NoError(t, sqlitedb.Exec(t.Context(), db, LabelsSchema))
	return &testDB{DB: db, path: path}
}

func (d *testDB) InTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return sqlitedb.InTx(ctx, d.DB, fn)
}

func (d *testDB) Path() string { return d.path }

// TestLabelsStore puts labels in a database one after another, as the
// queue does, and reads them back: a relabel replaces, a queue's labels
// keep one scale (but an item alone may change its own), and queues and
// metrics are apart. The file is reopened to read them, as after a
// restart.
func TestLabelsStore(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	type put struct {
		queue, metric string
		label         Label
		err           string
	}
	tests := map[string]struct {
		puts []put
		// want are the labels of queue run:a, metric faithfulness.
		want map[string]Label
	}{
		"a relabel replaces the label, its note, who and when": {
			puts: []put{
				{queue: "run:a", metric: "faithfulness", label: Label{Item: "q1", Scale: "binary", Value: 1, Note: "cites the page", Who: "ana", At: at}},
				{queue: "run:a", metric: "faithfulness", label: Label{Item: "q1", Scale: "binary", Value: 0, Who: "bo", At: at.Add(time.Minute)}},
				{queue: "run:a", metric: "faithfulness", label: Label{Item: "q2", Scale: "binary", Value: 1, Who: "ana", At: at}},
			},
			want: map[string]Label{
				"q1": {Item: "q1", Scale: "binary", Value: 0, Who: "bo", At: at.Add(time.Minute)},
				"q2": {Item: "q2", Scale: "binary", Value: 1, Who: "ana", At: at},
			},
		},
		"a queue keeps one scale": {
			puts: []put{
				{queue: "run:a", metric: "faithfulness", label: Label{Item: "q1", Scale: "binary", Value: 1, Who: "ana", At: at}},
				{queue: "run:a", metric: "faithfulness", label: Label{Item: "q2", Scale: "graded", Value: 4, Who: "ana", At: at}, err: "this queue's labels are binary: give every label on that scale"},
			},
			want: map[string]Label{"q1": {Item: "q1", Scale: "binary", Value: 1, Who: "ana", At: at}},
		},
		"the only label may change its scale": {
			puts: []put{
				{queue: "run:a", metric: "faithfulness", label: Label{Item: "q1", Scale: "binary", Value: 1, Who: "ana", At: at}},
				{queue: "run:a", metric: "faithfulness", label: Label{Item: "q1", Scale: "graded", Value: 2, Who: "ana", At: at}},
			},
			want: map[string]Label{"q1": {Item: "q1", Scale: "graded", Value: 2, Who: "ana", At: at}},
		},
		"other queues and metrics are apart": {
			puts: []put{
				{queue: "traces", metric: "faithfulness", label: Label{Item: "q1", Scale: "graded", Value: 5, Who: "ana", At: at}},
				{queue: "run:a", metric: "answer_relevancy", label: Label{Item: "q1", Scale: "graded", Value: 3, Who: "ana", At: at}},
				{queue: "run:a", metric: "faithfulness", label: Label{Item: "q1", Scale: "binary", Value: 1, Who: "ana", At: at}},
			},
			want: map[string]Label{"q1": {Item: "q1", Scale: "binary", Value: 1, Who: "ana", At: at}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "serve.db")
			db := openTestDB(t, path)
			st := &Queues{DB: db}
			for _, p := range tc.puts {
				err := st.putLabel(t.Context(), p.queue, p.metric, p.label)
				if p.err != "" {
					assert.EqualError(t, err, p.err)
					continue
				}
				require.NoError(t, err)
			}
			require.NoError(t, db.Close())
			db = openTestDB(t, path)
			defer func() { _ = db.Close() }()
			st = &Queues{DB: db}
			got, err := st.Labels(t.Context(), "run:a", "faithfulness")
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
