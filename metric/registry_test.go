package metric_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
)

// model is a Model that is offline or not, and never called.
type model struct{ offline bool }

func (model) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, llm.ErrNoChat
}

func (model) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, llm.ErrNoEmbeddings
}
func (model) Name() string    { return "stub:model" }
func (m model) Offline() bool { return m.offline }

// fixed scores every sample with one value, and says which model it got.
type fixed struct {
	name string
	m    metric.Model
}

func (f fixed) Score(context.Context, eval.Sample) (eval.Score, error) {
	method := "offline"
	if !metric.Offline(f.m) {
		method = f.m.Name()
	}
	return eval.Score{Metric: f.name, Value: 1, Method: method}, nil
}

func build(name string) func(metric.Model) eval.Scorer {
	return func(m metric.Model) eval.Scorer { return fixed{name, m} }
}

// reply is a stand-in that answers one schema.
func reply(schema, content string) metric.StandIn {
	return func(req llm.Request, _ func(string) int) (string, int, bool) {
		if req.Schema == nil || req.Schema.Name != schema {
			return "", 0, false
		}
		return content, len(content), true
	}
}

// sample builds a registry with a judge, a heuristic of profiles only, a
// heuristic --metric takes and a value.
func sample(t *testing.T) *metric.Registry {
	t.Helper()
	var r metric.Registry
	for _, e := range []metric.Entry{
		{Name: "zeta_judge", Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsContexts, Build: build("zeta_judge"),
			Threshold: metric.Threshold{Offline: 0.6, Model: 1}, DryRun: reply("verdicts", `{"verdicts":[]}`)},
		{Name: "report_only", Kind: metric.KindHeuristic, Profiles: []string{"report"}, Build: build("report_only"), Label: "Report only"},
		{Name: "alpha_overlap", Kind: metric.KindHeuristic, Dataset: true, Profiles: []string{"report", "context"}, Build: build("alpha_overlap")},
		{Name: "part", Kind: metric.KindValue, Of: "alpha_overlap", Profiles: []string{"report"}},
		{Name: "other_judge", Kind: metric.KindJudge, Dataset: true, Build: build("other_judge"),
			DryRun: reply("verdicts", `{"second":true}`)},
	} {
		require.NoError(t, r.Add(e), e.Name)
	}
	return &r
}

func TestAddRefusesABadEntry(t *testing.T) {
	t.Parallel()
	b := build("x")
	dry := reply("x", "{}")
	tests := map[string]struct {
		e    metric.Entry
		want string
	}{
		"no name":                  {metric.Entry{Kind: metric.KindHeuristic, Build: b}, "metric: a metric needs a name"},
		"no kind":                  {metric.Entry{Name: "x", Build: b}, "metric: metric x needs a Kind"},
		"a kind out of range":      {metric.Entry{Name: "x", Kind: 9, Build: b}, "metric: metric x needs a Kind"},
		"no scorer":                {metric.Entry{Name: "x", Kind: metric.KindJudge}, "metric: metric x needs a Build function"},
		"a value with a scorer":    {metric.Entry{Name: "x", Kind: metric.KindValue, Of: "y", Build: b}, "metric: metric x is a value: it has no Build function"},
		"a value of nothing":       {metric.Entry{Name: "x", Kind: metric.KindValue}, "metric: metric x is a value: Of must name the metric whose score carries it"},
		"a value asked for":        {metric.Entry{Name: "x", Kind: metric.KindValue, Of: "y", Dataset: true}, "metric: metric x is a value: --metric cannot take it"},
		"a heuristic's stand-in":   {metric.Entry{Name: "x", Kind: metric.KindHeuristic, Build: b, DryRun: dry}, "metric: metric x calls no model: it has no dry-run reply"},
		"a name taken":             {metric.Entry{Name: "alpha_overlap", Kind: metric.KindHeuristic, Build: b}, "metric: alpha_overlap is added twice"},
		"a value's name taken too": {metric.Entry{Name: "part", Kind: metric.KindValue, Of: "y"}, "metric: part is added twice"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := sample(t)
			before := r.Entries()
			require.EqualError(t, r.Add(tc.e), tc.want)
			assert.Equal(t, len(before), len(r.Entries()), "nothing was added")
		})
	}
}

func TestASealedRegistryRefusesChangesAndItsCloneDoesNot(t *testing.T) {
	t.Parallel()
	r := sample(t)
	r.Seal()
	toy := metric.Entry{Name: "toy", Kind: metric.KindHeuristic, Dataset: true, Build: build("toy")}
	require.ErrorIs(t, r.Add(toy), metric.ErrSealed)
	require.ErrorIs(t, r.Replace(metric.Entry{Name: "alpha_overlap", Kind: metric.KindHeuristic, Build: build("a")}), metric.ErrSealed)

	c := r.Clone()
	require.NoError(t, c.Add(toy))
	require.NoError(t, c.Replace(metric.Entry{Name: "report_only", Kind: metric.KindHeuristic, Build: build("report_only"), Label: "Changed"}))
	assert.Equal(t, []string{"alpha_overlap", "other_judge", "toy", "zeta_judge"}, c.Metrics())
	assert.Equal(t, []string{"alpha_overlap", "other_judge", "zeta_judge"}, r.Metrics(), "the clone's entry is not the original's")
	e, _ := c.Lookup("report_only")
	assert.Equal(t, "Changed", e.Title())
	e, _ = r.Lookup("report_only")
	assert.Equal(t, "Report only", e.Title())
	names := func(es []metric.Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.Name)
		}
		return out
	}
	assert.Equal(t, []string{"zeta_judge", "report_only", "alpha_overlap", "part", "other_judge", "toy"}, names(c.Entries()),
		"a replaced entry keeps its place, an added one comes last")
}

func TestReplaceNeedsTheMetric(t *testing.T) {
	t.Parallel()
	var r metric.Registry
	require.EqualError(t, r.Replace(metric.Entry{Name: "x", Kind: metric.KindHeuristic, Build: build("x")}), "metric: x is not in the registry to replace")
	require.EqualError(t, r.Replace(metric.Entry{Name: "x"}), "metric: metric x needs a Kind")
}

func TestWhereAMetricCanBeAskedFor(t *testing.T) {
	t.Parallel()
	r := sample(t)
	assert.Equal(t, []string{"alpha_overlap", "other_judge", "zeta_judge"}, r.Metrics(), "--metric: sorted, values and profile-only metrics left out")
	assert.Equal(t, []string{"report_only", "alpha_overlap"}, r.InProfile("report"), "in the order added; a value has no scorer")
	assert.Equal(t, []string{"alpha_overlap"}, r.InProfile("context"))
	assert.Empty(t, r.InProfile("daily"))
	var empty metric.Registry
	assert.Empty(t, empty.Metrics())
	_, ok := empty.Lookup("x")
	assert.False(t, ok)
}

func TestNew(t *testing.T) {
	t.Parallel()
	r := sample(t)
	full := eval.Sample{Query: "q", Answer: "a", Sources: []eval.Source{{Text: "t"}}}
	tests := map[string]struct {
		name    string
		model   metric.Model
		method  string
		checker bool
		err     string
	}{
		"a judge offline":                       {name: "zeta_judge", method: "offline", checker: true},
		"a judge with a model":                  {name: "zeta_judge", model: model{}, method: "stub:model", checker: true},
		"a judge with an offline model":         {name: "zeta_judge", model: model{offline: true}, method: "offline", checker: true},
		"a heuristic --metric takes":            {name: "alpha_overlap", method: "offline"},
		"a heuristic of profiles only: refused": {name: "report_only", err: `unknown metric "report_only" (have alpha_overlap, other_judge, zeta_judge)`},
		"a value: refused":                      {name: "part", err: `unknown metric "part" (have alpha_overlap, other_judge, zeta_judge)`},
		"unknown":                               {name: "bleu", err: `unknown metric "bleu" (have alpha_overlap, other_judge, zeta_judge)`},
		"written with hyphens":                  {name: "alpha-overlap", err: `unknown metric "alpha-overlap": did you mean alpha_overlap? (have alpha_overlap, other_judge, zeta_judge)`},
		"written in capitals with a space":      {name: " Other judge", err: `unknown metric " Other judge": did you mean other_judge? (have alpha_overlap, other_judge, zeta_judge)`},
		"another way, of a profile's metric":    {name: "Report-Only", err: `unknown metric "Report-Only" (have alpha_overlap, other_judge, zeta_judge)`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := r.New(tc.name, tc.model)
			if tc.err != "" {
				require.ErrorIs(t, err, metric.ErrUnknownMetric)
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			got, err := sc.Score(context.Background(), full)
			require.NoError(t, err)
			assert.Equal(t, tc.name, got.Metric)
			assert.Equal(t, tc.method, got.Method)
			c, ok := sc.(metric.Checker)
			assert.Equal(t, tc.checker, ok, "a scorer of a metric that needs contexts checks them")
			if ok {
				require.NoError(t, c.Check(full))
				require.ErrorIs(t, c.Check(eval.Sample{Answer: "a"}), metric.ErrNoContexts)
			}
		})
	}
}

func TestDefaultThreshold(t *testing.T) {
	t.Parallel()
	r := sample(t)
	tests := map[string]struct {
		name  string
		model metric.Model
		want  float64
	}{
		"offline (nil)":            {"zeta_judge", nil, 0.6},
		"an offline model":         {"zeta_judge", model{offline: true}, 0.6},
		"with a model":             {"zeta_judge", model{}, 1},
		"no threshold: grade 3":    {"alpha_overlap", model{}, 0.5},
		"unknown: grade 3 of 5":    {"bleu", nil, 0.5},
		"of an empty registry too": {"", nil, 0.5},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, r.DefaultThreshold(tc.name, tc.model), 0)
			assert.InDelta(t, tc.want, r.ThresholdOf(tc.name, metric.Offline(tc.model)), 0, "known by its label alone")
		})
	}
}

func TestDryRunAsksTheMetricsInTheirOrder(t *testing.T) {
	t.Parallel()
	r := sample(t)
	count := func(s string) int { return len(s) }
	tests := map[string]struct {
		req  llm.Request
		want string
		ok   bool
	}{
		"the first that knows it answers": {llm.Request{Schema: &llm.Schema{Name: "verdicts"}}, `{"verdicts":[]}`, true},
		"a schema none knows":             {llm.Request{Schema: &llm.Schema{Name: "claims"}}, "", false},
		"no schema":                       {llm.Request{}, "", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, n, ok := r.DryRun(tc.req, count)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, len(tc.want), n)
		})
	}
}

func TestNeedsCheck(t *testing.T) {
	t.Parallel()
	full := eval.Sample{Query: "q", Answer: "a", Reference: "It opened in 1889.", Sources: []eval.Source{{Text: "It opened in 1889."}}}
	tests := map[string]struct {
		needs  metric.Needs
		sample eval.Sample
		err    error
	}{
		"all there":                       {metric.NeedsAnswer | metric.NeedsContexts | metric.NeedsReference, full, nil},
		"no contexts":                     {metric.NeedsContexts, eval.Sample{Answer: "a"}, metric.ErrNoContexts},
		"an empty context text":           {metric.NeedsContexts, eval.Sample{Context: &eval.Context{}}, metric.ErrNoContexts},
		"a context given as one text":     {metric.NeedsContexts, eval.Sample{Context: &eval.Context{Text: "t"}}, nil},
		"no reference":                    {metric.NeedsReference, eval.Sample{Answer: "a"}, metric.ErrNoReference},
		"a blank reference":               {metric.NeedsReference, eval.Sample{Reference: "  "}, metric.ErrNoReference},
		"no answer is a skip, no refusal": {metric.NeedsAnswer, eval.Sample{}, nil},
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

func TestTitle(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		e    metric.Entry
		want string
	}{
		"a label":          {metric.Entry{Name: "source_quality", Label: "Source quality (1-10)"}, "Source quality (1-10)"},
		"from the name":    {metric.Entry{Name: "source_relevance"}, "Source relevance"},
		"one word":         {metric.Entry{Name: "clarity"}, "Clarity"},
		"no name, no text": {metric.Entry{}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.e.Title())
		})
	}
}

func TestCallsModel(t *testing.T) {
	t.Parallel()
	assert.True(t, metric.Entry{Kind: metric.KindJudge}.CallsModel())
	assert.False(t, metric.Entry{Kind: metric.KindHeuristic}.CallsModel())
	assert.False(t, metric.Entry{Kind: metric.KindValue}.CallsModel())
}

// TestCheckModel: a judge with no offline counterpart is refused without
// a model, and a metric that cannot judge with the model given (Ready)
// is refused with its own error, before any work; the others pass.
func TestCheckModel(t *testing.T) {
	t.Parallel()
	errNoEmbed := &eval.InputError{Field: "--metric", Msg: "needs_embeddings compares embeddings"}
	var r metric.Registry
	for _, e := range []metric.Entry{
		{Name: "plain", Kind: metric.KindJudge, Dataset: true, Build: build("plain")},
		{Name: "model_only", Kind: metric.KindJudge, Dataset: true, Build: build("model_only"), ModelOnly: true},
		{Name: "needs_embeddings", Kind: metric.KindJudge, Dataset: true, Build: build("needs_embeddings"),
			Ready: func(m metric.Model) error {
				if metric.Offline(m) {
					return nil
				}
				return errNoEmbed
			}},
	} {
		require.NoError(t, r.Add(e), e.Name)
	}
	tests := map[string]struct {
		names   []string
		offline bool
		want    string // "" when every name can judge
	}{
		"a plain judge offline":               {names: []string{"plain"}, offline: true},
		"a plain judge with a model":          {names: []string{"plain"}},
		"a judge of a judges file offline":    {names: []string{"plain", "model_only"}, offline: true, want: "--llm: model_only is a judge defined"},
		"a judge of a judges file with model": {names: []string{"model_only"}},
		"not ready with this model":           {names: []string{"plain", "needs_embeddings"}, want: "--metric: needs_embeddings compares embeddings"},
		"ready offline":                       {names: []string{"needs_embeddings"}, offline: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := r.CheckModel(tc.names, model{offline: tc.offline})
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
