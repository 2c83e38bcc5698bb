package judges_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
)

// stubModel is a Model that is offline or not, and never called.
type stubModel struct{ offline bool }

func (stubModel) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, llm.ErrNoChat
}

func (stubModel) Embed(context.Context, []string) ([][]float32, llm.Usage, error) {
	return nil, llm.Usage{}, llm.ErrNoEmbeddings
}
func (stubModel) Name() string    { return "stub:model" }
func (m stubModel) Offline() bool { return m.offline }

func TestRegistryKnowsEveryJudge(t *testing.T) {
	t.Parallel()
	want := []string{"answer_relevancy", "completeness", "context_precision", "context_recall", "faithfulness", "reasoning", "source_relevance"}
	assert.Equal(t, want, judges.Metrics(), "the judges --metric takes, sorted")
	for _, name := range want {
		m, ok := judges.Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, judges.KindJudge, m.Kind, name)
		assert.True(t, m.CallsModel, name)
		sc, err := judges.New(name, nil)
		require.NoError(t, err, name)
		assert.NotNil(t, sc, name)
	}
	m, ok := judges.Lookup(judges.MetricTokenOverlap)
	require.True(t, ok)
	assert.Equal(t, judges.KindHeuristic, m.Kind)
	assert.False(t, m.CallsModel, "the baseline never calls a model")
}

func TestNewRefusesWhatIsNoJudge(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"unknown":            "bleu",
		"a heuristic":        judges.MetricTokenOverlap,
		"empty":              "",
		"a name's near miss": "Faithfulness",
	}
	for name, metric := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := judges.New(metric, nil)
			require.ErrorIs(t, err, judges.ErrUnknownMetric)
			assert.ErrorContains(t, err, `"`+metric+`" (have answer_relevancy, completeness,`)
		})
	}
}

func TestDefaultThreshold(t *testing.T) {
	t.Parallel()
	online, offline := stubModel{}, stubModel{offline: true}
	tests := map[string]struct {
		metric string
		model  judges.Model
		want   float64
	}{
		"faithfulness offline (nil)":        {judges.MetricFaithfulness, nil, heuristics.DefaultFaithfulThreshold},
		"faithfulness, an offline model":    {judges.MetricFaithfulness, offline, heuristics.DefaultFaithfulThreshold},
		"faithfulness with a model":         {judges.MetricFaithfulness, online, 1},
		"context recall with a model":       {judges.MetricContextRecall, online, 1},
		"context recall offline":            {judges.MetricContextRecall, nil, heuristics.DefaultFaithfulThreshold},
		"a graded judge: grade 3 of 5":      {judges.MetricSourceRelevance, online, 0.5},
		"the token-overlap baseline":        {judges.MetricTokenOverlap, nil, 0.8},
		"an unknown metric: grade 3 of 5":   {"bleu", online, 0.5},
		"answer relevancy offline: grade 3": {judges.MetricAnswerRelevancy, nil, 0.5},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, judges.DefaultThreshold(tc.metric, tc.model), 0)
		})
	}
}

func TestMethodIsTheOneLabel(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		model   judges.Model
		offline bool
		want    string
	}{
		"no model":         {nil, true, judges.MethodOffline},
		"an offline model": {stubModel{offline: true}, true, "offline (approximate)"},
		"a model":          {stubModel{}, false, "llm:stub:model"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.offline, judges.Offline(tc.model))
			assert.Equal(t, tc.want, judges.Method(tc.model))
			assert.Equal(t, tc.offline, judges.OfflineMethod(tc.want), "the label read back")
		})
	}
}

// TestOfflineMethod: a judge recorded as a label (a stored run's) is
// offline unless the label names a model, whatever else it says.
func TestOfflineMethod(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		method  string
		offline bool
	}{
		"the offline label":             {judges.MethodOffline, true},
		"a model":                       {"llm:openai:gpt-4o-mini", false},
		"the word alone":                {"offline", true},
		"no judge recorded":             {"", true},
		"a run whose metrics call none": {"none (deterministic metrics)", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.offline, judges.OfflineMethod(tc.method))
		})
	}
}

// TestMethodThreshold: the threshold of results recorded as judged by a
// label is the one DefaultThreshold gives the model that label came from,
// for every metric.
func TestMethodThreshold(t *testing.T) {
	t.Parallel()
	for _, m := range judges.Registered() {
		for _, model := range []judges.Model{nil, stubModel{offline: true}, stubModel{}} {
			assert.InDelta(t, judges.DefaultThreshold(m.Name, model), judges.MethodThreshold(m.Name, judges.Method(model)), 0, "%s, %s", m.Name, judges.Method(model))
		}
	}
	assert.InDelta(t, 0.5, judges.MethodThreshold("bleu", judges.MethodOffline), 0, "an unknown metric")
}

func TestNeedsCheck(t *testing.T) {
	t.Parallel()
	full := eval.Sample{Query: "q", Answer: "a", Reference: "It opened in 1889.", Sources: []eval.Source{{Text: "It opened in 1889."}}}
	tests := map[string]struct {
		needs  judges.Needs
		sample eval.Sample
		err    error
	}{
		"all there":                       {judges.NeedsAnswer | judges.NeedsContexts | judges.NeedsReference, full, nil},
		"no contexts":                     {judges.NeedsContexts, eval.Sample{Answer: "a"}, judges.ErrNoContexts},
		"a context given as one text":     {judges.NeedsContexts, eval.Sample{Context: &eval.Context{Text: "t"}}, nil},
		"no reference":                    {judges.NeedsReference, eval.Sample{Answer: "a"}, judges.ErrNoReference},
		"a blank reference":               {judges.NeedsReference, eval.Sample{Reference: "  "}, judges.ErrNoReference},
		"no answer is a skip, no refusal": {judges.NeedsAnswer, eval.Sample{}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tc.needs.Check("m", tc.sample)
			if tc.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.err)
			assert.ErrorContains(t, err, "m: ")
		})
	}
}

func TestRegisterRefusesABadEntry(t *testing.T) {
	t.Parallel()
	judges.Register(judges.Metric{Name: "registry_test_value", Kind: judges.KindValue, Of: judges.MetricFaithfulness})
	build := func(judges.Model) eval.Scorer { return judges.TokenOverlap{} }
	tests := map[string]struct {
		m    judges.Metric
		want string
	}{
		"no name":        {judges.Metric{Kind: judges.KindHeuristic, Build: build}, "a metric needs a name"},
		"no kind":        {judges.Metric{Name: "x", Build: build}, "metric x needs a Kind"},
		"no scorer":      {judges.Metric{Name: "x", Kind: judges.KindJudge}, "metric x needs a Build function"},
		"a name taken":   {judges.Metric{Name: "registry_test_value", Kind: judges.KindValue}, "metric registry_test_value is registered twice"},
		"a judge's name": {judges.Metric{Name: judges.MetricFaithfulness, Kind: judges.KindJudge, Build: build}, "metric faithfulness is registered twice"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.PanicsWithValue(t, "judges.Register: "+tc.want, func() { judges.Register(tc.m) }, tc.want)
		})
	}
}
