package run

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
)

// TestFloorNotices: a mean under the critical floor with no fall through
// it is a notice, the same with no baseline as against one under the
// floor; a metric with a critical alert, or at or over the floor, has none.
func TestFloorNotices(t *testing.T) {
	t.Parallel()
	ms := []MetricStats{{Metric: "low", Mean: 0.3}, {Metric: "fell", Mean: 0.35}, {Metric: "ok", Mean: 0.4}, {Metric: "none", Mean: Num(math.NaN())}}
	alone := FloorNotices(ms, nil)
	withBase := FloorNotices(ms, MeanAlerts("fell", 0.35, 0.5))
	sameBase := FloorNotices(ms, MeanAlerts("low", 0.3, 0.3))
	names := func(as []QualityAlert) []string {
		var out []string
		for _, a := range as {
			assert.Equal(t, SeverityNotice, a.Severity)
			out = append(out, a.Metric)
		}
		return out
	}
	assert.Equal(t, []string{"low", "fell"}, names(alone), "no baseline")
	assert.Equal(t, []string{"low"}, names(withBase), "fell through the floor: an alert, not a notice")
	assert.Equal(t, names(alone), names(sameBase), "against a baseline as low: as with none")
	assert.Contains(t, alone[0].Message, "--gate 'low.mean>=0.4'")
}

// TestDefaultsByTheCheckerAdviseTheChecker: a default a fact checker
// caused keeps its checker through results.jsonl, so that the advice
// after the run's defaults, resumed or not, names the checker's
// variables, not the judging model's.
func TestDefaultsByTheCheckerAdviseTheChecker(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		want string
	}{
		"the checker failed": {&judges.CheckerError{Checker: "openai:minicheck", Err: errors.New("claim 1: connection refused")}, "$ASSAY_CHECKER_BASE_URL"},
		"the judge failed":   {errors.New("extract claims: connection refused"), "(--llm, $OPENAI_BASE_URL, $OPENAI_API_KEY)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			cfg := testConfig()
			run, err := Create(dir, cfg)
			require.NoError(t, err)
			res := ResultOf("a", eval.Score{Metric: "m1", Value: 0.5, Defaulted: true, Err: fmt.Errorf("faithfulness: verify claims: %w", tc.err)})
			require.NoError(t, run.Append(res))
			require.NoError(t, run.Close())
			run, err = Resume(dir, cfg) // read back from results.jsonl
			require.NoError(t, err)
			defer func() { require.NoError(t, run.Close()) }()
			d := run.Defaults()
			require.Equal(t, 1, d.Defaulted)
			f, failed := judging.Config{}.DefaultRate(d)
			require.True(t, failed)
			assert.Contains(t, f.Err.Error(), tc.want)
			assert.Contains(t, f.Err.Error(), "record a: m1: faithfulness: verify claims: ", "the cause as written")
		})
	}
}
