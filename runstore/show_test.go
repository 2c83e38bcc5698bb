package runstore_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

// TestRunShowAccountsForEveryResult: the table of assay runs show adds up
// to N: what was scored, defaulted and skipped, the column of skipped
// results there when some were.
func TestRunShowAccountsForEveryResult(t *testing.T) {
	t.Parallel()
	stats := func(metric string, n, scored, defaulted, skipped int) run.MetricStats {
		return run.MetricStats{Metric: metric, N: n, Scored: scored, Defaulted: defaulted, Skipped: skipped,
			DefaultedRate: float64(defaulted) / float64(n), Mean: 0.5, Std: 0, Median: 0.5, Min: 0.5, Max: 0.5, P10: 0.5,
			CILow: 0.5, CIHigh: 0.5, PassRate: 1, Threshold: 0.5}
	}
	tests := map[string]struct {
		metrics    []run.MetricStats
		format     string
		head, rows []string
	}{
		"one skipped, text": {
			[]run.MetricStats{stats("context_recall", 9, 6, 1, 2), stats("answer_relevancy", 9, 9, 0, 0)}, report.OutputText,
			[]string{"METRIC", "N", "SCORED", "DEFAULTED", "SKIPPED", "ERRORS"},
			[]string{"context_recall 9 6 1 (11.1%) 2 0 ", "answer_relevancy 9 9 0 (0.0%) 0 0 "},
		},
		"one skipped, markdown": {
			[]run.MetricStats{stats("context_recall", 4, 3, 0, 1)}, report.OutputMD,
			[]string{"METRIC", "N", "SCORED", "DEFAULTED", "SKIPPED", "ERRORS"},
			[]string{"| context\\_recall | 4 | 3 | 0 (0.0%) | 1 | 0 |"},
		},
		"none skipped: no column": {
			[]run.MetricStats{stats("context_recall", 4, 4, 0, 0)}, report.OutputText,
			[]string{"METRIC", "N", "SCORED", "DEFAULTED", "ERRORS", "MEAN"},
			[]string{"context_recall 4 4 0 (0.0%) 0 0.5000"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := runstore.RunView{ID: "r1", Summary: run.Summary{RunID: "r1", Samples: tc.metrics[0].N, Metrics: tc.metrics}}
			var b bytes.Buffer
			require.NoError(t, v.Write(&b, tc.format))
			out := b.String()
			// The table's header: the line that starts with METRIC.
			i := strings.Index(out, "METRIC")
			require.GreaterOrEqual(t, i, 0, out)
			head := strings.Fields(strings.ReplaceAll(strings.SplitN(out[i:], "\n", 2)[0], "|", " "))
			assert.Equal(t, tc.head, head[:len(tc.head)])
			squeezed := strings.Join(strings.Fields(out), " ")
			for _, row := range tc.rows {
				if tc.format == report.OutputMD {
					assert.Contains(t, out, row)
					continue
				}
				assert.Contains(t, squeezed, row)
			}
		})
	}
}
