package live_test

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/serve/live"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// step is one thing a test does to a monitor: advance the clock, then
// observe values (n of them when repeat is above 1) or defaults, then
// take a snapshot.
type step struct {
	advance   time.Duration
	value     float64
	repeat    int
	defaulted bool
	snapshot  bool
}

func obs(v float64, n int) step { return step{value: v, repeat: n} }

// want is an expected event.
type want struct {
	kind, severity string
	mean           float64
}

const metricF = "faithfulness"

func TestRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		cfg    live.Config
		steps  []step
		events []want
		check  func(t *testing.T, s live.MetricSnapshot)
	}{{
		name: "warning against a run's baseline, then recovery",
		cfg:  live.Config{Window: 10, MinScores: 10, ClearAfter: 1, Baseline: map[string]float64{metricF: 0.9}, BaselineFrom: "run r1"},
		// Limit 0.765: the fourth 0.5 in a window of 0.9s gives 0.74.
		// Then 0.9s push out the four 0.9s first, then one 0.5 each:
		// the seventh gives 0.78.
		steps:  []step{obs(0.9, 10), obs(0.5, 6), obs(0.9, 7)},
		events: []want{{live.EventOpen, run.SeverityWarning, 0.74}, {live.EventResolve, "", 0.78}},
		check: func(t *testing.T, s live.MetricSnapshot) {
			assert.Equal(t, "run r1", s.BaselineFrom)
			assert.Nil(t, s.Alert)
		},
	}, {
		name: "the seed's comparisons are strict: a mean at the limit raises nothing",
		cfg:  live.Config{Window: 4, MinScores: 4, WarnRatio: 0.5, Critical: 0.25, Baseline: map[string]float64{metricF: 1}},
		// 0.5 = 0.5 x 1 and 0.25 are exact in binary.
		steps: []step{obs(0.5, 8), obs(0.25, 4), obs(0.125, 1)},
		events: []want{
			{live.EventOpen, run.SeverityWarning, 0.4375},
			{live.EventEscalate, run.SeverityCritical, 0.21875},
		},
	}, {
		name: "a mean on the floor but for rounding is not critical",
		// (0.1 + 0.7) / 2 is 0.39999999999999997 in floating point: 0.4,
		// which is not under 0.4.
		cfg:   live.Config{Window: 2, MinScores: 2},
		steps: []step{obs(0.1, 1), obs(0.7, 1)},
	}, {
		name: "a window of scores at 0.85 x the baseline is no degradation",
		// Ten 0.68s sum to 6.799999999999999: their mean is 0.68, the
		// limit 0.85 x 0.8, but for rounding.
		cfg:   live.Config{Window: 10, MinScores: 10, Baseline: map[string]float64{metricF: 0.8}},
		steps: []step{obs(0.68, 10)},
	}, {
		name: "an alert resolves when the mean comes back to the limit",
		// 0.5s open a warning (under 0.68, over 0.4) at the tenth; the
		// tenth 0.68 brings the mean back to 0.68 = 0.85 x 0.8.
		cfg:    live.Config{Window: 10, MinScores: 10, ClearAfter: 1, Baseline: map[string]float64{metricF: 0.8}},
		steps:  []step{obs(0.5, 10), obs(0.68, 10)},
		events: []want{{live.EventOpen, run.SeverityWarning, 0.5}, {live.EventResolve, "", 0.68}},
	}, {
		name:  "warning, critical, back to warning, resolved",
		cfg:   live.Config{Window: 10, MinScores: 10, ClearAfter: 1, Baseline: map[string]float64{metricF: 0.9}},
		steps: []step{obs(0.9, 10), obs(0.6, 10), obs(0.2, 10), obs(0.65, 10), obs(0.9, 5)},
		events: []want{
			{live.EventOpen, run.SeverityWarning, 0.75},
			{live.EventEscalate, run.SeverityCritical, 0.36},
			{live.EventDeescalate, run.SeverityWarning, 0.425},
			{live.EventResolve, "", 0.775},
		},
	}, {
		name: "a mean hovering at the limit opens one alert, not one per score",
		// Limit 0.68. Each 0.58 that pushes out a 0.68 makes the mean
		// 0.67, each 0.78 brings it back to 0.68: with ClearAfter 1 that
		// is ten events. With the default (MinScores), the alert opens
		// once and resolves once the window, all 0.58s and 0.78s, has
		// held 0.68 for ten scores in a row.
		cfg:    live.Config{Window: 10, MinScores: 10, Baseline: map[string]float64{metricF: 0.8}},
		steps:  []step{obs(0.68, 10), obs(0.58, 1), obs(0.78, 1), obs(0.58, 1), obs(0.78, 1), obs(0.58, 1), obs(0.78, 1), obs(0.58, 1), obs(0.78, 1), obs(0.58, 1), obs(0.78, 1), obs(0.58, 1), obs(0.78, 1), obs(0.58, 1), obs(0.78, 1), obs(0.58, 1), obs(0.78, 1), obs(0.58, 1), obs(0.78, 1), obs(0.58, 1)},
		events: []want{{live.EventOpen, run.SeverityWarning, 0.67}, {live.EventResolve, "", 0.68}},
	}, {
		name: "a critical alert hovering at the floor is not lowered each score",
		// 0.3 and 0.5 in turn: the mean goes 0.39, 0.4, 0.39... Under
		// 0.4 it is critical; at 0.4 it would be a warning (0.4 < 0.68).
		cfg:    live.Config{Window: 10, MinScores: 10, Baseline: map[string]float64{metricF: 0.8}},
		steps:  []step{obs(0.4, 10), obs(0.3, 1), obs(0.5, 1), obs(0.3, 1), obs(0.5, 1), obs(0.3, 1), obs(0.5, 1)},
		events: []want{{live.EventOpen, run.SeverityWarning, 0.4}, {live.EventEscalate, run.SeverityCritical, 0.39}},
	}, {
		name: "a snapshot of the same window does not count towards clearing",
		// Limit 0.68: the fifth 0.9 after ten 0.5s makes the mean 0.7, the
		// first of three in a row (ClearAfter); snapshots then see the
		// same window and count nothing; the seventh 0.9 (0.78) resolves.
		cfg:    live.Config{Window: 10, MinScores: 10, ClearAfter: 3, Baseline: map[string]float64{metricF: 0.8}},
		steps:  []step{obs(0.5, 10), obs(0.9, 5), {snapshot: true}, {snapshot: true}, {snapshot: true}, obs(0.9, 2)},
		events: []want{{live.EventOpen, run.SeverityWarning, 0.5}, {live.EventResolve, "", 0.78}},
	}, {
		name: "critical is the absolute floor 0.4, not 0.4 x baseline",
		// 0.39 is over 0.85 x 0.45 = 0.3825 and over 0.4 x 0.45, under 0.4.
		cfg:    live.Config{Window: 5, MinScores: 5, Baseline: map[string]float64{metricF: 0.45}},
		steps:  []step{obs(0.39, 5)},
		events: []want{{live.EventOpen, run.SeverityCritical, 0.39}},
		check: func(t *testing.T, s live.MetricSnapshot) {
			require.NotNil(t, s.Alert)
			require.Len(t, s.Alert.Alerts, 1, "only the floor holds")
			assert.Equal(t, run.AlertThreshold, s.Alert.Alerts[0].Type)
			assert.InDelta(t, 0.4, s.Alert.Alerts[0].Threshold, 1e-12)
		},
	}, {
		name: "baseline from the first full window",
		cfg:  live.Config{Window: 10, MinScores: 10},
		// 0.8 - 0.035k < 0.68 from k = 4 (0.66).
		steps:  []step{obs(0.8, 9), {snapshot: true}, obs(0.8, 1), obs(0.45, 4)},
		events: []want{{live.EventOpen, run.SeverityWarning, 0.66}},
		check: func(t *testing.T, s live.MetricSnapshot) {
			assert.InDelta(t, 0.8, float64(s.Baseline), 1e-12)
			assert.Equal(t, live.BaselineFirstWindow, s.BaselineFrom)
		},
	}, {
		name:   "critical needs no baseline: the floor holds before the first window is full",
		cfg:    live.Config{Window: 20, MinScores: 5},
		steps:  []step{obs(0.2, 5)},
		events: []want{{live.EventOpen, run.SeverityCritical, 0.2}},
		check: func(t *testing.T, s live.MetricSnapshot) {
			assert.True(t, math.IsNaN(float64(s.Baseline)))
			require.NotNil(t, s.Alert)
			assert.Len(t, s.Alert.Alerts, 1)
		},
	}, {
		name:  "defaults count in the rate, never in the mean",
		cfg:   live.Config{Window: 10, MinScores: 4, StallDefaults: -1, Baseline: map[string]float64{metricF: 0.8}},
		steps: []step{obs(0.8, 4), {defaulted: true, repeat: 6}},
		check: func(t *testing.T, s live.MetricSnapshot) {
			assert.Equal(t, 10, s.N)
			assert.Equal(t, 4, s.Scored)
			assert.InDelta(t, 0.6, float64(s.DefaultRate), 1e-12)
			assert.InDelta(t, 0.8, float64(s.Mean), 1e-12)
			assert.False(t, s.Stalled, "the default check is off")
		},
	}, {
		name:   "too few scores change nothing: an open alert stays while the judge defaults",
		cfg:    live.Config{Window: 5, MinScores: 3, StallDefaults: -1, Baseline: map[string]float64{metricF: 0.8}},
		steps:  []step{obs(0.3, 5), {defaulted: true, repeat: 5}},
		events: []want{{live.EventOpen, run.SeverityCritical, 0.3}},
		check: func(t *testing.T, s live.MetricSnapshot) {
			require.NotNil(t, s.Alert)
			assert.Equal(t, 0, s.Scored)
		},
	}, {
		name: "old scores leave the window by age",
		cfg:  live.Config{Window: 100, MinScores: 3, ClearAfter: 1, MaxAge: time.Hour, Baseline: map[string]float64{metricF: 0.9}},
		// Without eviction the 0.9s would average 0.525 with the 0.3s:
		// still a warning.
		steps:  []step{obs(0.3, 5), {advance: 61 * time.Minute, snapshot: true}, obs(0.9, 3)},
		events: []want{{live.EventOpen, run.SeverityCritical, 0.3}, {live.EventResolve, "", 0.9}},
		check: func(t *testing.T, s live.MetricSnapshot) {
			assert.Equal(t, 3, s.N)
			assert.Equal(t, 8, s.Observed)
		},
	}, {
		name:  "values that are not scores are rejected and counted",
		cfg:   live.Config{Window: 5, MinScores: 1},
		steps: []step{obs(math.NaN(), 1), obs(1.5, 1), obs(-0.1, 1), obs(0.7, 1)},
		check: func(t *testing.T, s live.MetricSnapshot) {
			assert.Equal(t, 3, s.Rejected)
			assert.Equal(t, 1, s.Observed)
			assert.InDelta(t, 0.7, float64(s.Mean), 1e-12)
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			tc.cfg.Now = clk.Now
			m, err := live.New(tc.cfg)
			require.NoError(t, err)
			t.Cleanup(func() { _ = m.Close() })
			play(m, clk, tc.steps)
			snap := m.Snapshot()
			got := make([]want, 0, len(snap.Events))
			for _, e := range snap.Events {
				got = append(got, want{e.Kind, e.Severity, math.Round(float64(e.Mean)*1e9) / 1e9})
			}
			assert.Equal(t, wantOrEmpty(tc.events), got)
			require.Len(t, snap.Metrics, 1)
			if tc.check != nil {
				tc.check(t, snap.Metrics[0])
			}
		})
	}
}

func wantOrEmpty(w []want) []want {
	if w == nil {
		return []want{}
	}
	return w
}

func play(m *live.Monitor, clk *clock, steps []step) {
	for _, s := range steps {
		clk.advance(s.advance)
		for range max(s.repeat, 0) {
			m.Observe(metricF, s.value, s.defaulted, map[string]string{"trace_id": "t"}, clk.Now())
		}
		if s.snapshot {
			m.Snapshot()
		}
	}
}

func TestStalledJudge(t *testing.T) {
	t.Parallel()
	clk := newClock()
	start := clk.Now()
	m, err := live.New(live.Config{
		Metrics: []string{metricF}, StallAfter: 2 * time.Minute, StallDefaults: 3, Now: clk.Now,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	state := func() live.MetricSnapshot {
		t.Helper()
		s := m.Snapshot()
		require.Len(t, s.Metrics, 1)
		return s.Metrics[0]
	}
	for _, tc := range []struct {
		name        string
		advance     time.Duration
		observe     []bool // defaulted, one per observation
		stalled     bool
		reason      string
		lastSuccess time.Time
	}{
		{name: "an expected metric is watched from the start", stalled: false},
		{name: "within the time nothing is wrong", advance: 2 * time.Minute, stalled: false},
		{name: "a judge that never answered", advance: time.Minute, stalled: true, reason: "no judgement for 3m0s"},
		{name: "an answer recovers it", observe: []bool{false}, stalled: false, lastSuccess: start.Add(3 * time.Minute)},
		{name: "two defaults are not yet a stall", advance: time.Second, observe: []bool{true, true}, stalled: false, lastSuccess: start.Add(3 * time.Minute)},
		{name: "three defaults in a row are", observe: []bool{true}, stalled: true, reason: "the last 3 judgements defaulted", lastSuccess: start.Add(3 * time.Minute)},
		{name: "a success ends the run of defaults", advance: time.Second, observe: []bool{false}, stalled: false, lastSuccess: start.Add(3*time.Minute + 2*time.Second)},
		{name: "silence longer than StallAfter", advance: 2*time.Minute + time.Second, stalled: true, reason: "no successful judgement for 2m1s", lastSuccess: start.Add(3*time.Minute + 2*time.Second)},
	} {
		clk.advance(tc.advance)
		for _, d := range tc.observe {
			m.Observe(metricF, 0.9, d, nil, clk.Now())
		}
		s := state()
		assert.Equal(t, tc.stalled, s.Stalled, tc.name)
		assert.Equal(t, tc.reason, s.StallReason, tc.name)
		assert.Equal(t, tc.lastSuccess, s.LastSuccess, tc.name)
	}
	var kinds []string
	for _, e := range m.Snapshot().Events {
		kinds = append(kinds, e.Kind)
	}
	assert.Equal(t, []string{
		live.EventStalled, live.EventRecovered, live.EventStalled, live.EventRecovered, live.EventStalled,
	}, kinds)
}

func TestSnapshotFigures(t *testing.T) {
	t.Parallel()
	clk := newClock()
	m, err := live.New(live.Config{Window: 8, MinScores: 1, Reps: 2000, Now: clk.Now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	// Two days: 0.2 and 0.4 on the first, 0.6, 0.8 and a default on the
	// second.
	for _, o := range []struct {
		v   float64
		def bool
		at  time.Duration
	}{{0.2, false, 0}, {0.4, false, time.Hour}, {0.6, false, 24 * time.Hour}, {0.8, false, 25 * time.Hour}, {0.5, true, 26 * time.Hour}} {
		m.Observe(metricF, o.v, o.def, nil, clk.Now().Add(o.at))
	}
	s := m.Snapshot().Metrics[0]
	assert.InDelta(t, 0.5, float64(s.Mean), 1e-12)
	assert.InDelta(t, 0.2, float64(s.DefaultRate), 1e-12)
	// The bootstrap interval of four values lies within their range and
	// holds the mean.
	assert.GreaterOrEqual(t, float64(s.Low), 0.2)
	assert.Less(t, float64(s.Low), 0.5)
	assert.Greater(t, float64(s.High), 0.5)
	assert.LessOrEqual(t, float64(s.High), 0.8)
	assert.Equal(t, []live.Day{
		{Day: "2026-03-02", N: 2, Scored: 2, Mean: 0.30000000000000004},
		{Day: "2026-03-03", N: 3, Scored: 2, Defaulted: 1, Mean: 0.7},
	}, s.Days)
	assert.Equal(t, clk.Now().Add(25*time.Hour), s.LastSuccess)
	assert.Equal(t, clk.Now().Add(26*time.Hour), s.LastObserved)
	again := m.Snapshot().Metrics[0]
	assert.Equal(t, s.Low, again.Low, "the same window gives the same interval")
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg  live.Config
		want string
	}{
		{live.Config{Window: -1}, "Window -1"},
		{live.Config{Window: live.MaxWindow + 1}, "Window 10001: must be at most 10000"},
		{live.Config{Window: 100_000_000_000}, "Window 100000000000"},
		{live.Config{WarnRatio: 1.5}, "WarnRatio 1.5"},
		{live.Config{Critical: math.NaN()}, "Critical NaN"},
		{live.Config{Baseline: map[string]float64{"x": 2}}, "Baseline[x] 2"},
		{live.Config{Webhook: live.Webhook{URL: "ftp://h/x"}}, "Webhook.URL ftp://h/x"},
		{live.Config{StallAfter: -time.Second}, "StallAfter -1s"},
	} {
		_, err := live.New(tc.cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
}

func TestBaselineOf(t *testing.T) {
	t.Parallel()
	got := live.BaselineOf(run.Summary{Metrics: []run.MetricStats{
		{Metric: "faithfulness", Scored: 10, Mean: 0.82},
		{Metric: "relevancy", Scored: 0, Mean: run.Num(math.NaN())},
	}})
	assert.Equal(t, map[string]float64{"faithfulness": 0.82}, got)
}

func TestConcurrentObserve(t *testing.T) {
	t.Parallel()
	clk := newClock()
	m, err := live.New(live.Config{Window: 1000, Now: clk.Now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	// The mean of what each goroutine observes, defaults left out.
	var sum float64
	var n int
	for i := range 250 {
		if i%10 != 0 {
			sum += float64(i%5) / 4
			n++
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 250 {
				m.Observe([]string{"a", "b"}[g%2], float64(i%5)/4, i%10 == 0, nil, clk.Now())
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			m.Snapshot()
		}
	})
	wg.Wait()
	for _, s := range m.Snapshot().Metrics {
		assert.Equal(t, 500, s.Observed, s.Metric)
		assert.Equal(t, 50, s.TotalDefaulted, s.Metric)
		assert.InDelta(t, sum/float64(n), float64(s.Mean), 1e-12, s.Metric)
	}
}

func TestAnnouncedJudgementsStallOnlyWhileUnderWay(t *testing.T) {
	t.Parallel()
	clk := newClock()
	m, err := live.New(live.Config{Metrics: []string{metricF}, StallAfter: 2 * time.Minute, Announced: true, Now: clk.Now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	state := func(metric string) live.MetricSnapshot {
		t.Helper()
		for _, s := range m.Snapshot().Metrics {
			if s.Metric == metric {
				return s
			}
		}
		t.Fatalf("no metric %s", metric)
		return live.MetricSnapshot{}
	}
	var end func()
	for _, tc := range []struct {
		name    string
		advance time.Duration
		do      func()
		stalled bool
		judging int
		reason  string
	}{
		{name: "an idle expected metric is not stalled", advance: time.Hour},
		{name: "a judgement begins", do: func() { end = m.Begin(metricF) }, judging: 1},
		{name: "within two minutes nothing is wrong", advance: 2 * time.Minute, judging: 1},
		{name: "past them the judge is stalled", advance: time.Second, stalled: true, judging: 1, reason: "a judgement has waited 2m1s for an answer"},
		{name: "it ends with a default: still stalled", do: func() { m.Observe(metricF, 0, true, nil, clk.Now()); end() }, stalled: true, reason: "a judgement has waited 2m1s for an answer"},
		{name: "idle, it stays stalled", advance: time.Hour, stalled: true, reason: "a judgement has waited 2m1s for an answer"},
		{name: "an answer recovers it", do: func() {
			e := m.Begin(metricF)
			m.Observe(metricF, 0.9, false, nil, clk.Now())
			e()
		}},
		{name: "a slow judgement begins", do: func() { end = m.Begin(metricF) }, judging: 1},
		{name: "others answer meanwhile", advance: time.Minute, do: func() {
			e := m.Begin(metricF)
			m.Observe(metricF, 0.9, false, nil, clk.Now())
			e()
		}, judging: 1},
		{name: "busy with no answer since the last is stalled", advance: 130 * time.Second, stalled: true, judging: 1, reason: "no successful judgement for 2m10s"},
	} {
		clk.advance(tc.advance)
		if tc.do != nil {
			tc.do()
		}
		s := state(metricF)
		assert.Equal(t, tc.stalled, s.Stalled, tc.name)
		assert.Equal(t, tc.judging, s.Judging, tc.name)
		assert.Equal(t, tc.reason, s.StallReason, tc.name)
	}
	end()
	end() // a second end does nothing
	assert.Zero(t, state(metricF).Judging)

	// A metric never begun (a score no model makes) never stalls by time.
	m.Observe("context_quality", 0.8, false, nil, clk.Now())
	clk.advance(time.Hour)
	assert.False(t, state("context_quality").Stalled)
}

// TestEventMetaIsBounded: an event keeps the metadata of the observation
// that caused it, which comes from a request (any keys, values up to its
// size): it is kept, queued, stored and posted within MaxMetaKeys keys of
// MaxMetaKey and MaxMetaValue bytes, trace_id and source first.
func TestEventMetaIsBounded(t *testing.T) {
	t.Parallel()
	many := map[string]string{"trace_id": "t1", "source": "traces"}
	for i := range 1000 {
		many[fmt.Sprintf("k%04d", i)] = strings.Repeat("v", 100_000)
	}
	for name, tc := range map[string]struct {
		meta    map[string]string
		keys    int
		omitted string
		check   func(t *testing.T, meta map[string]string)
	}{
		"small metadata is kept whole": {meta: map[string]string{"trace_id": "t1", "user": "u"}, keys: 2,
			check: func(t *testing.T, meta map[string]string) { assert.Equal(t, "u", meta["user"]) }},
		"many long values": {meta: many, keys: live.MaxMetaKeys + 1, omitted: "986",
			check: func(t *testing.T, meta map[string]string) {
				assert.Equal(t, "t1", meta["trace_id"])
				assert.Equal(t, "traces", meta["source"])
				assert.Contains(t, meta["k0000"], eval.CutMarker)
				assert.NotContains(t, meta, "k0014", "past the first keys in name order")
			}},
		"a long key": {meta: map[string]string{strings.Repeat("k", 10_000): "x"}, keys: 1},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			m, err := live.New(alerting(clk, live.Webhook{}))
			require.NoError(t, err)
			t.Cleanup(func() { _ = m.Close() })
			m.Observe(metricF, 0.3, false, tc.meta, clk.Now())
			events := m.Snapshot().Events
			require.Len(t, events, 1)
			meta := events[0].Meta
			assert.Len(t, meta, tc.keys)
			assert.Equal(t, tc.omitted, meta[live.MetaOmitted])
			for k, v := range meta {
				assert.LessOrEqual(t, len(k), live.MaxMetaKey)
				assert.LessOrEqual(t, len(v), live.MaxMetaValue)
			}
			if tc.check != nil {
				tc.check(t, meta)
			}
		})
	}
}
