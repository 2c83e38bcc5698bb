package serve

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/sqlitedb"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/serve/dashboard"
)

// TestDashboardListsRunsPastAnUnreadableRow: a row of the run store whose
// summary no longer decodes is named on the dashboard, and the other
// runs are listed; it used to leave the dashboard with no run at all.
func TestDashboardListsRunsPastAnUnreadableRow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.db")
	st, err := runstore.OpenStore(path)
	require.NoError(t, err)
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i, id := range []string{"r1", "r2\n<script>", "r3"} {
		cfg := run.Config{RunID: id, Started: t0.AddDate(0, 0, i), DatasetSHA256: "aaa", Metrics: []string{"faithfulness"}}
		sum := run.Summary{RunID: id, Complete: true, Metrics: []run.MetricStats{{Metric: "faithfulness", N: 1, Scored: 1, Mean: 0.5}}}
		require.NoError(t, st.Record(cfg, sum, t.TempDir()))
	}
	require.NoError(t, st.Close())
	db, err := sqlitedb.Open(path)
	require.NoError(t, err)
	require.NoError(t, sqlitedb.Exec(t.Context(), db, `UPDATE runs SET summary = '{"metrics": [' WHERE id = ?`, "r2\n<script>"))
	require.NoError(t, db.Close())

	s := start(t, Config{DataDir: filepath.Join(dir, "serve"), Store: path})
	code, body := call(t, http.MethodGet, s.URL+"/v1/dashboard", "")
	require.Equal(t, http.StatusOK, code, body)
	var d dashboard.Data
	require.NoError(t, json.Unmarshal([]byte(body), &d))
	var ids []string
	for _, r := range d.Runs {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"r3", "r1"}, ids, "newest first, the unreadable one left out")
	assert.Equal(t, []string{`runs: 1 run(s) of the run store do not read back and are not listed: r2\n<script> (assay runs list says why; record them again or delete their rows)`}, d.Problems)
}
