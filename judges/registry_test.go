package judges_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
)

// stubModel is a Model that is offline or not, and never called.
type stubModel struct{ offline bool }

func (stubModel) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, llm.ErrNoChat
}

func (stubModel) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, llm.ErrNoEmbeddings
}
func (stubModel) Name() string    { return "stub:model" }
func (m stubModel) Offline() bool { return m.offline }

// builtins is a registry of the judges' metrics alone.
func builtins(t *testing.T) *metric.Registry {
	t.Helper()
	var r metric.Registry
	require.NoError(t, judges.AddBuiltins(&r))
	return &r
}

func TestAddBuiltinsAddsEveryJudge(t *testing.T) {
	t.Parallel()
	r := builtins(t)
	judgeNames := []string{"answer_correctness", "answer_relevancy", "answer_relevancy_grade", "completeness", "context_precision", "context_recall",
		"conversation_relevancy", "factual_correctness", "factual_correctness_precision", "factual_correctness_recall", "faithfulness",
		"knowledge_retention", "reasoning", "role_adherence", "semantic_similarity", "source_relevance", "task_completion"}
	assert.Equal(t, append(slices.Clone(judgeNames), "token_overlap"), r.Metrics(), "--metric takes the judges and their baseline, sorted")
	for _, name := range judgeNames {
		m, ok := r.Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, metric.KindJudge, m.Kind, name)
		assert.True(t, m.CallsModel(), name)
		sc, err := judges.New(name, nil)
		require.NoError(t, err, name)
		assert.NotNil(t, sc, name)
	}
	m, ok := r.Lookup(judges.MetricTokenOverlap)
	require.True(t, ok)
	assert.Equal(t, metric.KindHeuristic, m.Kind)
	assert.False(t, m.CallsModel(), "the baseline never calls a model")
	sc, err := judges.New(judges.MetricTokenOverlap, nil)
	require.NoError(t, err)
	c, ok := sc.(metric.Checker)
	require.True(t, ok, "the baseline compares with the contexts: it needs them")
	require.ErrorIs(t, c.Check(eval.Sample{Answer: "a"}), judges.ErrNoContexts)
	assert.Equal(t, []string{judges.MetricCompleteness, judges.MetricFaithfulness}, r.InProfile("report"), "a report profile may weigh them")
	require.ErrorContains(t, judges.AddBuiltins(r), "judges: metric: token_overlap is added twice")
}

// TestAddBuiltinsLeavesOtherRegistriesAlone: what one registry holds is
// its own; a metric added to one is in no other.
func TestAddBuiltinsLeavesOtherRegistriesAlone(t *testing.T) {
	t.Parallel()
	a, b := builtins(t), builtins(t)
	require.NoError(t, a.Add(metric.Entry{Name: "registry_test_toy", Kind: metric.KindHeuristic, Dataset: true,
		Build: func(judges.Model) eval.Scorer { return judges.TokenOverlap{} }}))
	assert.Contains(t, a.Metrics(), "registry_test_toy")
	assert.NotContains(t, b.Metrics(), "registry_test_toy")
	_, err := judges.New("registry_test_toy", nil)
	require.ErrorIs(t, err, judges.ErrUnknownMetric)
}

func TestNewRefusesWhatIsNoJudge(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ asked, hint string }{
		"unknown":            {asked: "bleu"},
		"another package's":  {asked: "grounding"},
		"empty":              {asked: ""},
		"a name's near miss": {asked: "Faithfulness", hint: ": did you mean faithfulness?"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := judges.New(tc.asked, nil)
			require.ErrorIs(t, err, judges.ErrUnknownMetric)
			assert.ErrorContains(t, err, `"`+tc.asked+`"`+tc.hint+` (have answer_correctness, answer_relevancy, answer_relevancy_grade, completeness,`)
		})
	}
}

func TestDefaultThreshold(t *testing.T) {
	t.Parallel()
	r := builtins(t)
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
			assert.InDelta(t, tc.want, r.DefaultThreshold(tc.metric, tc.model), 0)
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
