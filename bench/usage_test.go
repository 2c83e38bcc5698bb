package bench

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

// TestRunSummaryCountsModelCalls: a run's summary, its report and the run
// store say how many model calls its results made and the tokens they
// paid for, the results an earlier attempt wrote included; a reply from
// the cache is no call and is not paid, its tokens counted apart (here a
// result written before results counted cache hits).
func TestRunSummaryCountsModelCalls(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	cfg := evalConfig()
	folder, err := run.Create(dir, cfg)
	require.NoError(t, err)
	for _, r := range []run.Result{
		{ID: "a", Metric: "m1", Value: 1, Usage: eval.Usage{Calls: 2, TokensIn: 300, TokensOut: 40, CostUSD: 0.002}},
		{ID: "a", Metric: "m2", Value: 0.5, Usage: eval.Usage{Calls: 1, TokensIn: 100, TokensOut: 10, CostUSD: 0.001}},
		{ID: "b", Metric: "m1", Value: 0.5, Usage: eval.Usage{TokensIn: 300, TokensOut: 40}}, // from the cache
	} {
		require.NoError(t, folder.Append(r))
	}
	require.NoError(t, folder.Close())
	folder, err = run.Resume(dir, cfg)
	require.NoError(t, err)
	require.NoError(t, folder.Append(run.Result{ID: "b", Metric: "m2", Value: 0.25, Usage: eval.Usage{Calls: 4, TokensIn: 500, TokensOut: 50, CostUSD: 0.003}}))
	s := folder.Summary(2, cfg.Started.Add(time.Minute), nil)
	require.NoError(t, folder.Close())

	assert.Equal(t, 7, s.Usage.Calls)
	assert.Equal(t, 900, s.Usage.TokensIn)
	assert.Equal(t, 100, s.Usage.TokensOut)
	assert.InDelta(t, 0.006, s.Usage.CostUSD, 1e-12)
	assert.Equal(t, 1, s.Usage.CacheHits)
	assert.Equal(t, 300, s.Usage.CachedTokensIn)
	assert.Equal(t, 40, s.Usage.CachedTokensOut)
	assert.Equal(t, 2, s.Metrics[0].Calls)
	assert.Equal(t, 5, s.Metrics[1].Calls)

	rf, err := run.ReadResults(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, report.WriteHTML(&page, cfg, s, rf, report.Data{}))
	calls := regexp.MustCompile(`<dt>Calls</dt><dd>([^<]*)</dd>`).FindStringSubmatch(page.String())
	require.Len(t, calls, 2)
	assert.Equal(t, "7 model calls · 900 tokens in · 100 out (paid)", calls[1])
	cached := regexp.MustCompile(`<dt>Cached</dt><dd>([^<]*)</dd>`).FindStringSubmatch(page.String())
	require.Len(t, cached, 2)
	assert.Equal(t, "1 reply from the cache, not paid · 300 tokens in · 40 out", cached[1])

	st, err := runstore.OpenStore(filepath.Join(t.TempDir(), "runs.db"))
	require.NoError(t, err)
	defer func() { _ = st.Close() }() // read in this test only
	require.NoError(t, st.Record(cfg, s, dir))
	row, err := st.Get(t.Context(), cfg.RunID)
	require.NoError(t, err)
	assert.Equal(t, 7, row.Summary.Usage.Calls)
	assert.Equal(t, 300, row.Summary.Usage.CachedTokensIn)
}
