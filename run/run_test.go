package run

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResumeRefusesAnotherRun(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		change func(*Config)
		want   string
	}{
		"another dataset":  {func(c *Config) { c.DatasetSHA256 = "def" }, `dataset sha256 was "abc", now "def"`},
		"other metrics":    {func(c *Config) { c.Metrics = []string{"m1"} }, `metrics was "m1,m2", now "m1"`},
		"another model":    {func(c *Config) { c.Model = "llm:openai:gpt-4o" }, `model was "offline (approximate)", now "llm:openai:gpt-4o"`},
		"another profile":  {func(c *Config) { c.Profile = "context" }, `profile was (none), now "context"`},
		"another setting":  {func(c *Config) { c.Settings = map[string]string{"--strict": "true"} }, `--strict was "false", now "true"`},
		"a prompt changed": {func(c *Config) { c.Prompts = map[string]string{"faithfulness.claims": "3"} }, `prompt faithfulness.claims was "2", now "3"`},
		"another price": {func(c *Config) {
			c.Prices = map[string]string{"openai:m": "in $1, out $2 per million tokens, batch share 0.5"}
		},
			`price of openai:m was "in $0.15, out $0.6 per million tokens, batch share 0.5", now "in $1, out $2 per million tokens, batch share 0.5"`},
		"a price dropped": {func(c *Config) { c.Prices = map[string]string{"openai:m": "no price"} },
			`price of openai:m was "in $0.15, out $0.6 per million tokens, batch share 0.5", now "no price"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			run, err := Create(dir, testConfig())
			require.NoError(t, err)
			require.NoError(t, run.Close())
			cfg := testConfig()
			tc.change(&cfg)
			_, err = Resume(dir, cfg)
			var me *ConfigMismatchError
			require.True(t, errors.As(err, &me), "got %v", err)
			require.Len(t, me.Diffs, 1)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "start a new run in another --out")
		})
	}
	_, err := Resume(t.TempDir(), testConfig())
	require.ErrorIs(t, err, ErrNoRun)
}

func TestNewRunIDSortsByTime(t *testing.T) {
	t.Parallel()
	a := NewID(time.Date(2026, 11, 24, 22, 15, 0, 0, time.UTC))
	b := NewID(time.Date(2026, 11, 24, 22, 15, 1, 0, time.FixedZone("x", 3600)))
	assert.Regexp(t, `^20261124T221500Z-[0-9a-f]{4}$`, a)
	assert.Regexp(t, `^20261124T211501Z-[0-9a-f]{4}$`, b, "UTC")
}

// testConfig is a run's configuration as a test writes it.
func testConfig() Config {
	return Config{RunID: "20261124T221500Z-3f9a", Started: time.Date(2026, 11, 24, 22, 15, 0, 0, time.UTC),
		Dataset: "data.jsonl", DatasetSHA256: "abc", Metrics: []string{"m1", "m2"}, Model: "offline (approximate)",
		Prompts: map[string]string{"faithfulness.claims": "2"}, Settings: map[string]string{"--strict": "false"},
		Prices: map[string]string{"openai:m": "in $0.15, out $0.6 per million tokens, batch share 0.5"}}
}

// TestResumeOfARunWithoutPrices: a run written before prices were kept
// in config.json resumes whatever the prices now.
func TestResumeOfARunWithoutPrices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := testConfig()
	old.Prices = nil
	r, err := Create(dir, old)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	r, err = Resume(dir, testConfig())
	require.NoError(t, err)
	require.NoError(t, r.Close())
}

// TestSyncBeforeClose: a run synced before it closes keeps every line,
// those appended after the sync too, and Sync after Close does nothing.
func TestSyncBeforeClose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := Create(dir, testConfig())
	require.NoError(t, err)
	require.NoError(t, r.Append(Result{ID: "s1", Metric: "m1", Value: 0.5}))
	require.NoError(t, r.Sync())
	assert.True(t, r.synced)
	require.NoError(t, r.Append(Result{ID: "s2", Metric: "m1", Value: 0.25}))
	assert.False(t, r.synced, "a line appended after the sync is synced by Close")
	require.NoError(t, r.Close())
	require.NoError(t, r.Sync())
	rf, err := ReadResults(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	assert.Len(t, rf.Results, 2)
}

// TestSummaryAndSyncWhileAppending: Summary and Sync may run while
// results are still appended (neither holds the run's lock through its
// slow part); every line is kept, and the last summary counts them all.
func TestSummaryAndSyncWhileAppending(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := Create(dir, testConfig())
	require.NoError(t, err)
	const n = 200
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			assert.NoError(t, r.Append(Result{ID: fmt.Sprintf("s%d", i), Metric: "m1", Value: float64(i%4) / 4}))
		}
	})
	for range 20 {
		s := r.Summary(n, time.Time{}, func(string) float64 { return 0.5 })
		assert.LessOrEqual(t, s.Metrics[0].N, n)
		require.NoError(t, r.Sync())
	}
	wg.Wait()
	s := r.Summary(n, time.Time{}, func(string) float64 { return 0.5 })
	assert.Equal(t, n, s.Metrics[0].N)
	assert.InDelta(t, 0.375, float64(s.Metrics[0].Mean), 1e-12)
	require.NoError(t, r.Close())
	rf, err := ReadResults(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	assert.Len(t, rf.Results, n)
}
