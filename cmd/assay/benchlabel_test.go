package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	runpkg "github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

// fixtureLabels reads human.faithful of each record of a JSON Lines file
// by id, as the file states it (booleans).
func fixtureLabels(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			ID    string `json:"id"`
			Human struct {
				Faithful bool `json:"faithful"`
			} `json:"human"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		out[rec.ID] = rec.Human.Faithful
	}
	require.NoError(t, sc.Err())
	return out
}

// TestBenchLabelCalibration runs a labelled bench and checks that
// summary.json holds each metric's calibration with the stats package's
// figures over the run's own values joined with the dataset's labels, and
// that report.html draws it.
func TestBenchLabelCalibration(t *testing.T) {
	t.Parallel()
	const data = "../../fixtures/rag/labelled.jsonl"
	labels := fixtureLabels(t, data)
	tests := map[string]struct {
		label string
		// negate reads the labels negated.
		negate bool
	}{
		"a label":         {label: "faithful"},
		"a negated label": {label: "!faithful", negate: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			code, _, errOut := runEnv(t, nil, "bench", "-q", "--metric", "faithfulness,answer_relevancy", "--label", tc.label, "--out", dir, data)
			require.Equal(t, exitPass, code, errOut)
			assert.Contains(t, errOut, "bench: faithfulness against "+tc.label+": Brier ")

			var s runpkg.Summary
			raw, err := os.ReadFile(filepath.Join(dir, runpkg.FileSummary))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &s))
			assert.Equal(t, tc.label, s.Label)

			// The expected figures, from results.jsonl and the file's labels.
			values, ys := map[string][]float64{}, map[string][]bool{}
			require.NoError(t, runpkg.EachResult(filepath.Join(dir, runpkg.FileResults), func(r runpkg.Result) {
				require.True(t, r.Counted(), "the offline judges never default")
				values[r.Metric] = append(values[r.Metric], r.Value)
				ys[r.Metric] = append(ys[r.Metric], labels[r.ID] != tc.negate)
			}))
			require.Len(t, s.Metrics, 2)
			for _, m := range s.Metrics {
				v, y := values[m.Metric], ys[m.Metric]
				require.Len(t, v, 6, m.Metric)
				c := m.Calibration
				require.NotNil(t, c, m.Metric)
				assert.InDelta(t, stats.Brier(v, y), c.Brier, 1e-12, m.Metric)
				assert.InDelta(t, stats.ECE(v, y, runpkg.CalibrationBins), c.ECE, 1e-12, m.Metric)
				table := stats.Reliability(v, y, runpkg.CalibrationBins)
				require.Len(t, c.Reliability, len(table), m.Metric)
				n := 0
				for i, b := range table {
					assert.Equal(t, b.N, c.Reliability[i].N, "%s bin %d", m.Metric, i)
					assert.InDelta(t, b.MeanPredicted, c.Reliability[i].MeanPredicted, 1e-12, "%s bin %d", m.Metric, i)
					assert.InDelta(t, b.FractionPositive, c.Reliability[i].FractionPositive, 1e-12, "%s bin %d", m.Metric, i)
					n += b.N
				}
				assert.Equal(t, 6, n, m.Metric)
			}

			page, err := os.ReadFile(filepath.Join(dir, runpkg.FileReport))
			require.NoError(t, err)
			assert.Equal(t, 2, strings.Count(string(page), `<svg class="rel"`), "a diagram per metric")
			assert.Equal(t, 2, strings.Count(string(page), `<line class="diag"`))
		})
	}
}

func TestBenchLabelRefusals(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		want string
	}{
		"a label no record carries": {[]string{"--label", "relevant"},
			"--label relevant: no record of ../../fixtures/rag/labelled.jsonl has a binary label relevant (true/false or 1/0 in its \"human\" object): name a label the records carry, or leave --label out"},
		"on a dry run too": {[]string{"--label", "relevant", "--dry-run"}, "--label relevant: no record of"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			args := append(append([]string{"bench", "-q", "--metric", "faithfulness", "--out", dir}, tc.args...), "../../fixtures/rag/labelled.jsonl")
			code, _, errOut := runEnv(t, nil, args...)
			assert.Equal(t, exitInput, code, errOut)
			assert.Contains(t, errOut, tc.want)
			_, err := os.Stat(filepath.Join(dir, runpkg.FileResults))
			assert.ErrorIs(t, err, os.ErrNotExist, "refused before the run starts")
		})
	}
}
