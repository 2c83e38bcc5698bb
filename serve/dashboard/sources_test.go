package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/serve/dashboard"
	"github.com/assaylabs/assay/serve/live"
)

func judged(id string, value float64, latency time.Duration, defaulted bool) dashboard.Judged {
	return dashboard.Judged{
		SampleID: id, Question: "Q " + id, Answer: "A " + id, At: day0,
		Result: run.Result{ID: id, Metric: "faithfulness", Value: value, Defaulted: defaulted, Reason: "r " + id,
			Usage: eval.Usage{Latency: latency}},
	}
}

func TestSources(t *testing.T) {
	t.Parallel()
	now := day0
	m, err := live.New(live.Config{
		Window: 10, MinScores: 5, Baseline: map[string]float64{"faithfulness": 0.8}, BaselineFrom: "run r1",
		Now: func() time.Time { return now },
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	for range 5 {
		m.Observe("faithfulness", 0.3, false, nil, now)
	}
	m.Observe("faithfulness", 0.5, true, nil, now)

	long := judged("long", 0.7, time.Second, false)
	long.Answer = "word  \n" + strings.Repeat("é", 400) // an excerpt is on one line, cut by characters
	long.Result.Evidence = eval.Evidence{
		Claims: []eval.Claim{{Text: "supported one", Verdict: eval.VerdictSupported}, {Text: "made up", Verdict: eval.VerdictUnsupported}},
		Gaps:   []string{"the date"},
	}
	src := dashboard.Sources{
		Live: m,
		Judged: func(context.Context) ([]dashboard.Judged, error) {
			return []dashboard.Judged{
				judged("a", 0.9, 3*time.Second, false), judged("b", 0.1, 200*time.Millisecond, false),
				judged("d", 0.5, 9*time.Second, true), long, judged("c", 0.4, 0, false),
			}, nil
		},
		Runs: func(context.Context) ([]runstore.RunRow, []error, error) {
			return []runstore.RunRow{{ID: "r2", Started: day0, Dataset: "d.jsonl", Metrics: []string{"faithfulness"},
				Summary: run.Summary{Complete: true, Metrics: []run.MetricStats{{Metric: "faithfulness", Mean: 0.8}}}}}, nil, nil
		},
		Top: 3,
	}
	d, err := src.Dashboard(t.Context())
	require.NoError(t, err)

	require.Len(t, d.Metrics, 1)
	f := d.Metrics[0]
	assert.Equal(t, "faithfulness", f.Name)
	assert.InDelta(t, 0.3, float64(f.Mean), 1e-12)
	assert.Equal(t, "critical", f.Severity)
	assert.Equal(t, 6, f.N)
	assert.InDelta(t, 1.0/6, float64(f.DefaultRate), 1e-12)
	assert.Equal(t, "run r1", f.BaselineFrom)
	require.Len(t, d.Alerts, 1)
	assert.Equal(t, "faithfulness degraded from baseline: 0.300 < 0.680; Average faithfulness critically low: 0.300 < 0.400", d.Alerts[0].Message)
	assert.InDelta(t, 0.4, d.Critical, 1e-12)
	assert.Contains(t, d.Rule, "under 0.85 × its baseline, critical under 0.40")

	ids := func(ss []dashboard.Sample) (out []string) {
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	assert.Equal(t, []string{"b", "c", "long"}, ids(d.Lowest), "lowest values, defaults left out")
	assert.Equal(t, []string{"d", "a", "long"}, ids(d.Slowest), "longest judging, defaults in (a slow default is slow)")
	l := d.Lowest[2]
	assert.Equal(t, []string{"unsupported: made up", "gap: the date"}, l.Evidence)
	assert.Equal(t, 280, len([]rune(l.Answer)))
	assert.Equal(t, "word éé", string([]rune(l.Answer)[:7]))
	assert.Equal(t, "…", string([]rune(l.Answer)[279:]))
	assert.InDelta(t, 1000, float64(l.LatencyMS), 1e-9)

	require.Len(t, d.Runs, 1)
	assert.Equal(t, dashboard.Run{ID: "r2", Started: day0, Dataset: "d.jsonl", Metrics: []string{"faithfulness"}, Status: "ok",
		Means: []dashboard.MetricMean{{Metric: "faithfulness", Mean: 0.8}}}, d.Runs[0])
	assert.Empty(t, d.Problems)
}

func TestSourcesProblems(t *testing.T) {
	t.Parallel()
	src := dashboard.Sources{
		Judged: func(context.Context) ([]dashboard.Judged, error) { return nil, errors.New("disk I/O error") },
		Runs: func(context.Context) ([]runstore.RunRow, []error, error) {
			return nil, nil, errors.New("database is locked")
		},
		Now: func() time.Time { return day0 },
	}
	d, err := src.Dashboard(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"judged samples: disk I/O error", "runs: database is locked"}, d.Problems)
	assert.Equal(t, day0, d.Generated)
	assert.Empty(t, d.Runs)
	assert.NotNil(t, d.Lowest)
}

// TestUnreadableRunsAreNamedNotFatal: rows of the run store that do not
// read back are counted and named by their ids, escaped, at most MaxRuns
// of them; the runs that read back are listed all the same.
func TestUnreadableRunsAreNamedNotFatal(t *testing.T) {
	t.Parallel()
	bad := func(id string) error {
		return &runstore.UnreadableRunError{Path: "/srv/runs.db", ID: id, Err: errors.New("unexpected end of JSON input")}
	}
	good := []runstore.RunRow{{ID: "r3", Started: day0}, {ID: "r1", Started: day0}}
	tests := map[string]struct {
		unreadable []error
		want       []string
	}{
		"none": {},
		"one": {unreadable: []error{bad("r2")},
			want: []string{"runs: 1 run(s) of the run store do not read back and are not listed: r2 (assay runs list says why; record them again or delete their rows)"}},
		"an id with a line break and markup": {unreadable: []error{bad("r4\n<b>x</b>\x1b[2J")},
			want: []string{`runs: 1 run(s) of the run store do not read back and are not listed: r4\n<b>x</b>\x1b[2J (assay runs list says why; record them again or delete their rows)`}},
		"more than MaxRuns": {unreadable: []error{bad("a"), bad("b"), bad("c"), errors.New("other")},
			want: []string{"runs: 4 run(s) of the run store do not read back and are not listed: a, b and 2 more (assay runs list says why; record them again or delete their rows)"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := dashboard.Sources{
				Runs:    func(context.Context) ([]runstore.RunRow, []error, error) { return good, tc.unreadable, nil },
				MaxRuns: 2,
				Now:     func() time.Time { return day0 },
			}
			d, err := src.Dashboard(t.Context())
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.Problems)
			require.Len(t, d.Runs, 2)
			assert.Equal(t, "r3", d.Runs[0].ID)
			for _, p := range d.Problems {
				assert.NotContains(t, p, "/srv/runs.db", "the server's paths stay off the page")
			}
		})
	}
}

// A judgement whose latency was not measured (an offline judge, a reply
// from the cache) shows none: its latency_ms is null, never 0 ms.
func TestAnUnmeasuredLatencyIsNull(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		latency time.Duration
		want    string
	}{
		{"not measured", 0, `"latency_ms":null`},
		{"negative", -time.Second, `"latency_ms":null`},
		{"a millisecond", time.Millisecond, `"latency_ms":1`},
		{"1.5 s", 1500 * time.Millisecond, `"latency_ms":1500`},
	} {
		src := dashboard.Sources{
			Judged: func(context.Context) ([]dashboard.Judged, error) {
				return []dashboard.Judged{judged("x", 0.2, tc.latency, false)}, nil
			},
			Now: func() time.Time { return day0 },
		}
		d, err := src.Dashboard(t.Context())
		require.NoError(t, err, tc.name)
		require.Len(t, d.Lowest, 1, tc.name)
		b, err := json.Marshal(d.Lowest[0])
		require.NoError(t, err, tc.name)
		assert.Contains(t, string(b), tc.want, tc.name)
	}
}
