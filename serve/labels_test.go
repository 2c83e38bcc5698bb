package serve

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLabelsStore puts labels in serve.db one after another, as the
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
			st, err := openStore(path)
			require.NoError(t, err)
			for _, p := range tc.puts {
				err := st.putLabel(t.Context(), p.queue, p.metric, p.label)
				if p.err != "" {
					assert.EqualError(t, err, p.err)
					continue
				}
				require.NoError(t, err)
			}
			require.NoError(t, st.Close())
			st, err = openStore(path)
			require.NoError(t, err)
			defer func() { _ = st.Close() }()
			got, err := st.labels(t.Context(), "run:a", "faithfulness")
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
