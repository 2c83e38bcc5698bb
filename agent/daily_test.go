package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/metric"
)

func TestDailyMetricsAreRegistered(t *testing.T) {
	t.Parallel()
	reg := Builtins()
	assert.Equal(t, daily.Metrics(), reg.InProfile(KindDaily))
	m, ok := reg.Lookup("faithfulness_numeric_accuracy")
	require.True(t, ok)
	assert.Equal(t, metric.KindValue, m.Kind)
	assert.Equal(t, daily.MetricFaithfulness, m.Of)
	assert.InDelta(t, 0.8, reg.DefaultThreshold(daily.MetricFaithfulness, nil), 1e-9)
}

// TestDailyScorersReadAJSONLRecord scores a sample as bench builds it from
// a JSONL line {id, report, truth, telemetry}: the truth and telemetry as
// decoded JSON in the metadata.
func TestDailyScorersReadAJSONLRecord(t *testing.T) {
	t.Parallel()
	report, err := os.ReadFile("../fixtures/daily/en-swap.md")
	require.NoError(t, err)
	var truth, tel map[string]any
	for f, v := range map[string]*map[string]any{"truth.json": &truth, "run.json": &tel} {
		b, err := os.ReadFile("../fixtures/daily/" + f)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, v))
	}
	// 11 of the 12 numbers are right (the volume ratio the report waits
	// for, "until the volume ratio rises above 1.0x", is supposed, not
	// claimed): numeric accuracy 91.7, faithfulness
	// 0.3*91.67 + 0.25*100 + 0.2*100 + 0.25*100 = 97.5.
	sample := eval.Sample{Answer: string(report), Metadata: map[string]any{eval.MetaTruth: truth, eval.MetaTelemetry: tel}}
	tests := map[string]struct {
		points float64
		count  string
		value  float64
		issue  string
	}{
		daily.MetricFaithfulness: {points: 97.5, count: "faithfulness_numeric_accuracy", value: 91.7, issue: "vwap_pct mismatch: narrative claims 3.03, actual is 43.79"},
		daily.MetricQoS:          {points: 89.5, count: "qos_latency", value: 70, issue: "Acceptable total latency: 14.00s"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m, ok := Builtins().Lookup(name)
			require.True(t, ok)
			sc, err := m.Build(nil).Score(context.Background(), sample)
			require.NoError(t, err)
			assert.Equal(t, name, sc.Metric)
			assert.InDelta(t, tc.points, sc.Points, 1e-9)
			assert.InDelta(t, tc.points/100, sc.Value, 1e-9)
			assert.InDelta(t, tc.value, sc.Evidence.Counts[tc.count], 1e-9)
			assert.Contains(t, sc.Evidence.Issues, tc.issue)
		})
	}
	t.Run("no telemetry skips qos", func(t *testing.T) {
		t.Parallel()
		s := eval.Sample{Answer: string(report), Metadata: map[string]any{eval.MetaTruth: truth}}
		sc, err := daily.Scorer{Metric: daily.MetricQoS}.Score(context.Background(), s)
		require.NoError(t, err)
		assert.True(t, sc.Skipped)
		assert.ErrorIs(t, sc.Err, daily.ErrNoTelemetry)
	})
	t.Run("no truth is an error", func(t *testing.T) {
		t.Parallel()
		_, err := daily.Scorer{Metric: daily.MetricFaithfulness}.Score(context.Background(), eval.Sample{Answer: "x"})
		assert.True(t, errors.Is(err, daily.ErrNoTruth), err)
	})
}
