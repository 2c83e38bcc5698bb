package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
)

// words scores an answer's length: 1 for at most five words.
type words struct{}

func (words) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	sc := eval.Score{Metric: "short", Max: 1, Method: "heuristic"}
	if n := len(strings.Fields(s.Answer)); n <= 5 {
		sc.Value, sc.Points = 1, 1
	}
	return sc, nil
}

func TestBuiltinsIsSealedAndItsCloneIsNot(t *testing.T) {
	t.Parallel()
	short := metric.Entry{Name: "short", Kind: metric.KindHeuristic, Profiles: []string{KindReport}, Build: func(metric.Model) eval.Scorer { return words{} }}
	require.ErrorIs(t, Builtins().Add(short), metric.ErrSealed)
	c := Builtins().Clone()
	require.NoError(t, c.Add(short))
	assert.Contains(t, c.InProfile(KindReport), "short")
	assert.NotContains(t, Builtins().InProfile(KindReport), "short")
	assert.Equal(t, []string{judges.MetricCompleteness, MetricGrounding, MetricSourceQuality, MetricSourceDiversity, MetricClarity},
		Builtins().InProfile(KindReport), "judges' first, then the profiles' own, in the order added")
}

func TestAddBuiltinsNeedsTheJudges(t *testing.T) {
	t.Parallel()
	var r metric.Registry
	require.EqualError(t, AddBuiltins(&r), "agent: the registry has no completeness: add judges.AddBuiltins first")
}

// TestAProfileTakesTheMetricsOfItsRegistry: a profile naming a metric of
// a registry of one's own is refused with the built-in metrics and scored
// with its own, and no other profile sees it.
func TestAProfileTakesTheMetricsOfItsRegistry(t *testing.T) {
	t.Parallel()
	reg := Builtins().Clone()
	require.NoError(t, reg.Add(metric.Entry{Name: "short", Kind: metric.KindHeuristic, Profiles: []string{KindReport},
		Build: func(metric.Model) eval.Scorer { return words{} }}))
	yaml := []byte("name: brief\nkind: report\npass:\n  threshold: 1\nscorers:\n  - metric: short\n    max: 1\n  - metric: clarity\n    max: 1\n")

	_, err := ParseProfile("brief.yaml", yaml)
	var ie *eval.InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "scorers[0].metric", ie.Field)
	assert.Contains(t, ie.Msg, `unknown metric "short" for kind report`)

	p, err := Profiles{Metrics: reg}.Parse("brief.yaml", yaml)
	require.NoError(t, err)
	assert.Same(t, reg, p.Metrics())
	card, err := Score(context.Background(), p, eval.Sample{Answer: "# Brief\n\nIt is short."}, Options{})
	require.NoError(t, err)
	sc, ok := card.Get("short")
	require.True(t, ok)
	assert.InDelta(t, 1.0, sc.Points, 0)
	_, ok = card.Get(MetricClarity)
	assert.True(t, ok, "the built-in metrics are in the clone")

	builtin, err := LoadProfile("research")
	require.NoError(t, err)
	assert.Same(t, Builtins(), builtin.Metrics())
}

// TestAFixRunsItsMetricsRepair: the research loop runs the repair action of
// the fix's metric entry; a metric without one gets no action.
func TestAFixRunsItsMetricsRepair(t *testing.T) {
	t.Parallel()
	reg := Builtins().Clone()
	require.NoError(t, reg.Add(metric.Entry{Name: "short", Kind: metric.KindHeuristic, Profiles: []string{KindReport},
		Build: func(metric.Model) eval.Scorer { return words{} }}))
	p, err := Profiles{Metrics: reg}.Parse("brief.yaml", []byte("name: brief\nkind: report\npass:\n  threshold: 1\nscorers:\n  - metric: short\n    max: 1\n  - metric: clarity\n    max: 1\n  - metric: grounding\n    max: 1\n"))
	require.NoError(t, err)
	tests := map[string]struct {
		metric   string
		applied  string
		rewrite  bool
		grounded bool
	}{
		"clarity rewrites":            {MetricClarity, "restructured: shorter sentences, no repeats (stages 5-6)", true, false},
		"grounding rebuilds":          {MetricGrounding, "unsourced claims dropped: the report is rebuilt from cited source sentences", false, true},
		"a metric without a repair":   {"short", "no action for short", false, false},
		"a metric of no registry too": {"bleu", "no action for bleu", false, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := &run{cfg: Research{Profile: p}, tr: &tracer{now: func() time.Time { return time.Unix(0, 0) }}}
			applied, rewrite, err := r.applyFix(context.Background(), 1, eval.Fix{Dimension: tc.metric}, eval.Card{})
			require.NoError(t, err)
			assert.Equal(t, tc.applied, applied)
			assert.Equal(t, tc.rewrite, rewrite)
			assert.Equal(t, tc.grounded, r.grounded)
		})
	}
	for _, name := range []string{MetricGrounding, MetricSourceQuality, MetricSourceDiversity, judges.MetricCompleteness, MetricClarity} {
		e, _ := Builtins().Lookup(name)
		_, ok := e.Repair.(repair)
		assert.True(t, ok, "%s has its repair action", name)
	}
}
