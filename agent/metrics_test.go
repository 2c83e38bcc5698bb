package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
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
	assert.Equal(t, []string{judges.MetricCompleteness, judges.MetricFaithfulness, MetricGrounding, MetricSourceQuality, MetricSourceDiversity, MetricClarity},
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

// TestACardShowsEveryMetricByItsEntry: a research card shows a metric of
// the profile's own registry after the five dimensions and before the
// total, keyed by its name in JSON and YAML and labelled by its entry in
// Markdown; the card of the built-in metrics keeps its shape.
func TestACardShowsEveryMetricByItsEntry(t *testing.T) {
	t.Parallel()
	reg := Builtins().Clone()
	require.NoError(t, reg.Add(metric.Entry{Name: "short", Kind: metric.KindHeuristic, Profiles: []string{KindReport}, Label: "Brevity (words)",
		Build: func(metric.Model) eval.Scorer { return words{} }}))
	p, err := Profiles{Metrics: reg}.Parse("brief.yaml", []byte("name: brief\nkind: report\npass:\n  threshold: 1\nscorers:\n  - metric: short\n    max: 1\n  - metric: grounding\n    max: 5\n"))
	require.NoError(t, err)
	card := p.Verdict([]eval.Score{{Metric: "short", Points: 1, Max: 1}, {Metric: MetricGrounding, Points: 4.5, Max: 5}})
	v := NewResearchView(p, card)

	b, err := json.Marshal(v.QualityScore)
	require.NoError(t, err)
	assert.JSONEq(t, `{"grounding":4.5,"source_quality":0,"source_diversity":0,"completeness":0,"clarity":0,"short":1,"total":5.5}`, string(b))
	assert.Regexp(t, `"clarity":0,"short":1,"total":5.5}$`, string(b), "in card order")

	y, err := yaml.Marshal(v.YAML())
	require.NoError(t, err)
	assert.Contains(t, string(y), "quality_score:\n    grounding: 4.5/5\n    source_quality: 0/0\n    source_diversity: 0/0\n    completeness: 0/0\n    clarity: 0/0\n    short: 1/1\n    total: 5.5/6\n")

	md := v.Markdown()
	assert.Contains(t, md, "| Clarity | 0/0 |\n| Brevity (words) | 1/1 |\n| **Total** | 5.5/6 |\n")

	builtin := NewResearchView(nil, eval.Card{Scores: []eval.Score{{Metric: MetricGrounding, Points: 5, Max: 5}}})
	assert.Empty(t, builtin.QualityScore.Other)
	b, err = json.Marshal(builtin.QualityScore)
	require.NoError(t, err)
	assert.Equal(t, `{"grounding":5,"source_quality":0,"source_diversity":0,"completeness":0,"clarity":0,"total":0}`, string(b))
}

// TestTheContextCardLabelsItsSubScoresByTheirEntries: a sub-score's row
// is labelled as its entry says.
func TestTheContextCardLabelsItsSubScoresByTheirEntries(t *testing.T) {
	t.Parallel()
	reg := Builtins().Clone()
	e, ok := reg.Lookup(heuristics.KeyContextSufficiency)
	require.True(t, ok)
	e.Label = "Enough context"
	require.NoError(t, reg.Replace(e))
	p, err := Profiles{Metrics: reg}.Load("context")
	require.NoError(t, err)
	md := NewContextView(p, eval.Card{}, eval.Sample{Query: "q"}).Markdown()
	assert.Contains(t, md, "| Retrieval confidence | 0.000 |\n| Enough context | 0.000 |\n| Diversity | 0.000 |\n| Estimated faithfulness | 0.000 |\n| **Overall** | 0.000 |\n")
	builtin, err := LoadProfile("context")
	require.NoError(t, err)
	assert.Contains(t, NewContextView(builtin, eval.Card{}, eval.Sample{Query: "q"}).Markdown(), "| Context sufficiency | 0.000 |")
}
