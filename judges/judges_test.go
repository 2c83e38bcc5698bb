package judges

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
)

// judgeMetrics are the names of the judges' LLM judges, sorted.
func judgeMetrics() []string {
	var out []string
	for _, e := range builtins().Entries() {
		if e.Kind == metric.KindJudge {
			out = append(out, e.Name)
		}
	}
	slices.Sort(out)
	return out
}

// fakeModel answers each prompt template (by request tag) from a queue of
// scripted replies; an error string starting "ERR:" is returned as an error.
type fakeModel struct {
	mu      sync.Mutex
	replies map[string][]string
	embed   func(texts []string) ([][]float32, error)
	calls   []llm.Request
}

func (f *fakeModel) Name() string { return "fake:judge" }

func (f *fakeModel) Offline() bool { return false }

func (f *fakeModel) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, req)
	tag := strings.TrimSuffix(req.Tag, "/repair")
	q := f.replies[tag]
	if len(q) == 0 {
		return llm.Response{}, &llm.StatusError{Code: 500, Message: "no scripted reply for " + req.Tag}
	}
	r := q[0]
	f.replies[tag] = q[1:]
	if msg, ok := strings.CutPrefix(r, "ERR:"); ok {
		return llm.Response{}, errors.New(msg)
	}
	return llm.Response{Content: r, Usage: eval.Usage{Calls: 1, TokensIn: 100, TokensOut: 10}}, nil
}

func (f *fakeModel) Embed(_ context.Context, texts []string) ([][]float32, eval.Usage, error) {
	if f.embed == nil {
		return nil, eval.Usage{}, llm.ErrNoEmbeddings
	}
	v, err := f.embed(texts)
	return v, eval.Usage{Calls: 1, TokensIn: len(texts)}, err
}

var ragSample = eval.Sample{
	Query:  "When was the Eiffel Tower completed and how tall is it?",
	Answer: "The Eiffel Tower was completed in 1889. It is 330 metres tall. It was designed by Gustave Eiffel's company.",
	Sources: []eval.Source{
		{ID: "c1", Text: "The Eiffel Tower in Paris was completed in 1889 for the World's Fair."},
		{ID: "c2", Text: "The tower is 330 metres tall, about the height of an 81-storey building."},
	},
	Reference: "The tower was completed in 1889. It is 330 metres tall.",
}

func TestFaithfulnessWithModel(t *testing.T) {
	t.Parallel()
	claims := `{"claims":["The Eiffel Tower was completed in 1889.","It is 330 metres tall.","It was designed by Gustave Eiffel's company."]}`
	verdicts := `{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":"c1 says 1889"},` +
		`{"statement":2,"verdict":"supported","context":"c2","reason":"c2"},{"statement":3,"verdict":"unsupported","context":"","reason":"not stated"}]}`
	tests := map[string]struct {
		claims, verify []string
		value          float64
		defaulted      bool
		skipped        bool
		calls          int
		errContains    string
		reason         string
	}{
		"two of three supported": {
			claims: []string{claims}, verify: []string{verdicts}, value: 2.0 / 3, calls: 2,
		},
		"fenced JSON with prose is accepted": {
			claims: []string{"Sure! ```json\n" + claims + "\n```"}, verify: []string{"Here you go: " + verdicts}, value: 2.0 / 3, calls: 2,
		},
		"invalid reply repaired once": {
			claims: []string{`{"claims": ["The Eiffel`, claims}, verify: []string{verdicts}, value: 2.0 / 3, calls: 3,
		},
		"verdict outside the enum repaired": {
			claims: []string{claims}, verify: []string{`{"verdicts":[{"statement":1,"verdict":"maybe"}]}`, verdicts}, value: 2.0 / 3, calls: 3,
		},
		"invalid twice defaults to neutral": {
			claims: []string{`not json`, `still not json`}, value: 0.5, defaulted: true, calls: 2, errContains: "invalid output",
		},
		"model error defaults to neutral": {
			claims: []string{"ERR:connection refused"}, value: 0.5, defaulted: true, calls: 1, errContains: "connection refused",
		},
		"skipped statements are asked about again": {
			claims: []string{claims}, verify: []string{
				`{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""}]}`,
				// Renumbered: the second ask holds only claims 2 and 3.
				`{"verdicts":[{"statement":1,"verdict":"supported","context":"c2","reason":""},{"statement":2,"verdict":"contradicted","context":"","reason":""}]}`,
			}, value: 2.0 / 3, calls: 3, reason: "2 of 3 claims supported by the contexts",
		},
		"skipped twice: the whole score defaults, the verdicts given kept": {
			claims: []string{claims}, verify: []string{
				`{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""}]}`, `{"verdicts":[]}`,
			}, value: 0.5, defaulted: true, calls: 3, errContains: "2 of 3 claims without a verdict",
			reason: "judge failed, neutral grade 3 of 5 used: the model left items without a verdict, even when asked again: " +
				"2 of 3 claims without a verdict (from the verdicts given: 1 of 3 claims supported by the contexts)",
		},
		"one claim is one claim": {
			claims: []string{`{"claims":["The Eiffel Tower was completed in 1889."]}`},
			verify: []string{`{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""}]}`},
			value:  1, calls: 2, reason: "1 of 1 claim supported by the contexts",
		},
		"no verdict at all is repaired once, then defaults": {
			claims: []string{`{"claims":["The Eiffel Tower was completed in 1889."]}`}, verify: []string{`{"verdicts":[]}`, `{"verdicts":[]}`},
			value: 0.5, defaulted: true, calls: 3, errContains: "no verdict given, for 1 statement asked about",
			reason: "judge failed, neutral grade 3 of 5 used: verify claims: after one repair request: llm: invalid output: no verdict given, for 1 statement asked about",
		},
		"no claims is skipped and says so": {
			claims: []string{`{"claims":[]}`}, value: 0, skipped: true, calls: 1,
			reason: "skipped, not scored: no verifiable claims: the answer states nothing the contexts could support or contradict",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{replies: map[string][]string{"faithfulness.claims": tc.claims, "faithfulness.verify": tc.verify}}
			sc, err := Faithfulness{Model: m}.Score(context.Background(), ragSample)
			require.NoError(t, err)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.Equal(t, tc.defaulted, sc.Defaulted)
			assert.Equal(t, tc.skipped, sc.Skipped)
			assert.Len(t, m.calls, tc.calls)
			assert.Equal(t, "llm:fake:judge", sc.Method)
			if tc.reason != "" {
				assert.Equal(t, tc.reason, sc.Reason)
			}
			if tc.errContains != "" {
				require.Error(t, sc.Err)
				assert.Contains(t, sc.Err.Error(), tc.errContains)
				assert.Contains(t, sc.Reason, "neutral grade 3 of 5")
				assert.Equal(t, 0.5, sc.Points)
			}
		})
	}
}

func TestFaithfulnessEvidenceNamesContexts(t *testing.T) {
	t.Parallel()
	m := &fakeModel{replies: map[string][]string{
		"faithfulness.claims": {`{"claims":["Completed in 1889.","330 metres tall."]}`},
		"faithfulness.verify": {`{"verdicts":[{"statement":1,"verdict":"supported","context":"c1","reason":""},{"statement":2,"verdict":"contradicted","context":"c2","reason":"c2 says 300"}]}`},
	}}
	sc, err := Faithfulness{Model: m}.Score(context.Background(), ragSample)
	require.NoError(t, err)
	require.Len(t, sc.Evidence.Claims, 2)
	assert.Equal(t, eval.Claim{Text: "Completed in 1889.", Verdict: "supported", SourceID: "c1"}, sc.Evidence.Claims[0])
	assert.Equal(t, eval.Claim{Text: "330 metres tall.", Verdict: "contradicted"}, sc.Evidence.Claims[1])
	assert.Equal(t, "1 of 2 claims supported by the contexts", sc.Reason)
	assert.Equal(t, eval.Usage{Calls: 2, TokensIn: 200, TokensOut: 20}, sc.Usage)
}

func TestCancelledContextIsAnErrorNotADefault(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &fakeModel{replies: map[string][]string{"faithfulness.claims": {"ERR:context canceled"}}}
	_, err := Faithfulness{Model: m}.Score(ctx, ragSample)
	require.ErrorIs(t, err, context.Canceled)
}

func TestOfflineJudgesSayTheyAreApproximate(t *testing.T) {
	t.Parallel()
	for _, name := range judgeMetrics() {
		t.Run(name, func(t *testing.T) {
			j, err := New(name, nil)
			require.NoError(t, err)
			sc, err := j.Score(context.Background(), ragSample)
			require.NoError(t, err)
			assert.Equal(t, MethodOffline, sc.Method)
			assert.False(t, sc.Defaulted)
			assert.GreaterOrEqual(t, sc.Value, 0.0)
			assert.LessOrEqual(t, sc.Value, 1.0)
		})
	}
}

func TestOfflineFaithfulnessValues(t *testing.T) {
	t.Parallel()
	sc, err := Faithfulness{}.Score(context.Background(), ragSample)
	require.NoError(t, err)
	// The designer's name is in no context: two of three claims hold.
	assert.InDelta(t, 2.0/3, sc.Value, 1e-9)
	assert.Equal(t, "c1", sc.Evidence.Claims[0].SourceID)
	assert.Equal(t, "c2", sc.Evidence.Claims[1].SourceID)
	assert.Equal(t, eval.VerdictUnsupported, sc.Evidence.Claims[2].Verdict)
}

func TestAnswerRelevancy(t *testing.T) {
	t.Parallel()
	questions := `{"questions":["When was the Eiffel Tower finished?","How tall is the Eiffel Tower?","Who built it?"],"noncommittal":false}`
	unit := func(texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range texts {
			out[i] = []float32{1, 0}
			if i == 3 {
				out[i] = []float32{0, 1} // orthogonal: cosine 0
			}
		}
		return out, nil
	}
	bad := func(v []float32) func([]string) ([][]float32, error) {
		return func(texts []string) ([][]float32, error) {
			out, _ := unit(texts)
			out[2] = v
			return out, nil
		}
	}
	tests := map[string]struct {
		replies   map[string][]string
		embed     func([]string) ([][]float32, error)
		value     float64
		method    string
		defaulted string // the error of a neutral default
	}{
		"a zero vector defaults, never a silent 0": {
			replies: map[string][]string{"relevancy.questions": {questions}}, embed: bad([]float32{0, 0}),
			value: 0.5, method: "llm:fake:judge", defaulted: "embed: vector 2 is empty or all zero",
		},
		"a vector of another length defaults": {
			replies: map[string][]string{"relevancy.questions": {questions}}, embed: bad([]float32{1}),
			value: 0.5, method: "llm:fake:judge", defaulted: "embed: vector 2 has 1 dimensions, vector 0 has 2",
		},
		"a NaN defaults": {
			replies: map[string][]string{"relevancy.questions": {questions}}, embed: bad([]float32{float32(math.NaN()), 1}),
			value: 0.5, method: "llm:fake:judge", defaulted: "embed: vector 2 holds NaN",
		},
		"questions and embeddings": {
			replies: map[string][]string{"relevancy.questions": {questions}}, embed: unit,
			value: 2.0 / 3, method: "llm:fake:judge (questions+embeddings)",
		},
		"noncommittal is zero": {
			replies: map[string][]string{"relevancy.questions": {`{"questions":[],"noncommittal":true}`}}, embed: unit,
			value: 0, method: "llm:fake:judge (questions: noncommittal)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{replies: tc.replies, embed: tc.embed}
			sc, err := AnswerRelevancy{Model: m}.Score(context.Background(), ragSample)
			require.NoError(t, err)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.Equal(t, tc.method, sc.Method)
			assert.Equal(t, tc.defaulted != "", sc.Defaulted)
			if tc.defaulted != "" {
				assert.ErrorContains(t, sc.Err, tc.defaulted)
			}
		})
	}
}

func TestAveragePrecision(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		rel  []bool
		want float64
	}{
		"all relevant":      {[]bool{true, true, true}, 1},
		"none":              {[]bool{false, false}, 0},
		"empty":             {nil, 0},
		"relevant last":     {[]bool{false, false, true}, 1.0 / 3},
		"first and third":   {[]bool{true, false, true}, (1 + 2.0/3) / 2},
		"second and fourth": {[]bool{false, true, false, true}, (0.5 + 0.5) / 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			assert.InDelta(t, tc.want, AveragePrecision(tc.rel), 1e-9)
		})
	}
}

func TestContextPrecisionWithModel(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		reply, again string
		value        float64
		defaulted    bool
		sources      []eval.SourceRating
		reason       string
	}{
		"a verdict per context": {
			reply: `{"verdicts":[{"context":"c1","useful":false,"reason":"about the fair"},{"context":"c2","useful":true,"reason":"height"}]}`,
			value: 0.5, sources: []eval.SourceRating{{URL: "c1", Rating: 0, Basis: "about the fair"}, {URL: "c2", Rating: 1, Basis: "height"}},
			reason: "1 of 2 contexts useful; rank-weighted precision 0.50",
		},
		"a skipped context is asked about again": {
			reply: `{"verdicts":[{"context":"c1","useful":true,"reason":"date"}]}`, again: `{"verdicts":[{"context":"c2","useful":true,"reason":"height"}]}`,
			value: 1, sources: []eval.SourceRating{{URL: "c1", Rating: 1, Basis: "date"}, {URL: "c2", Rating: 1, Basis: "height"}},
			reason: "2 of 2 contexts useful; rank-weighted precision 1.00",
		},
		"a context skipped twice defaults the score, said, not silent": {
			reply: `{"verdicts":[{"context":"c1","useful":true,"reason":"date"}]}`, again: `{"verdicts":[]}`,
			value: 0.5, defaulted: true,
			sources: []eval.SourceRating{{URL: "c1", Rating: 1, Basis: "date"}, {URL: "c2", Rating: 0, Basis: "no verdict given, even when asked again"}},
			reason: "judge failed, neutral grade 3 of 5 used: the model left items without a verdict, even when asked again: " +
				"1 of 2 contexts without a verdict (from the verdicts given: 1 of 2 contexts useful; rank-weighted precision 1.00)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &fakeModel{replies: map[string][]string{"context.precision": {tc.reply, tc.again}}}
			sc, err := ContextPrecision{Model: m}.Score(context.Background(), ragSample)
			require.NoError(t, err)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.Equal(t, tc.defaulted, sc.Defaulted)
			assert.Equal(t, tc.sources, sc.Evidence.Sources)
			assert.Equal(t, tc.reason, sc.Reason)
		})
	}
}

// TestContextRecallNeedsAReference: RAGAS raises on an empty reference;
// a reference that is blank, or that holds no statement at all, must be the
// same clear error, never a silent 0 or 1.
func TestContextRecallNeedsAReference(t *testing.T) {
	t.Parallel()
	for name, ref := range map[string]string{"empty": "", "blank": " \n\t ", "punctuation only": " . "} {
		for _, offline := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, offline %t", name, offline), func(t *testing.T) {
				t.Parallel()
				s := ragSample
				s.Reference = ref
				m := &fakeModel{replies: map[string][]string{}}
				j := ContextRecall{Model: m}
				if offline {
					j.Model = nil
				}
				sc, err := j.Score(context.Background(), s)
				require.ErrorIs(t, err, ErrNoReference, "got %+v", sc)
				assert.Empty(t, m.calls)
			})
		}
	}
}

func TestSourceRelevanceDefaultsPerSource(t *testing.T) {
	t.Parallel()
	m := &fakeModel{replies: map[string][]string{"source.relevance": {`{"grade":5,"reason":"direct"}`, "ERR:timeout", "ERR:timeout"}}}
	sc, err := SourceRelevance{Model: m}.Score(context.Background(), ragSample)
	require.NoError(t, err)
	// One source graded 5; the other failed twice (call, then no repair
	// because the call itself failed) and kept 3.
	assert.True(t, sc.Defaulted)
	assert.InDelta(t, 4.0, sc.Points, 1e-9)
	assert.InDelta(t, 0.75, sc.Value, 1e-9)
	assert.Equal(t, 1.0, sc.Evidence.Counts["defaulted"])
	assert.Equal(t, 2.0, sc.Evidence.Counts["kept"])
	assert.Contains(t, sc.Reason, "1 defaulted to 3")
}

func TestReasoningWeights(t *testing.T) {
	t.Parallel()
	m := &fakeModel{replies: map[string][]string{"reasoning": {
		`{"clarity":100,"coverage":80,"specificity":60,"alignment":100,"minimality":40,"consistency":100,"issues":["padding"]}`,
	}}}
	sc, err := Reasoning{Model: m}.Score(context.Background(), ragSample)
	require.NoError(t, err)
	// 20+16+12+15+6+10 = 79
	assert.InDelta(t, 79, sc.Points, 1e-9)
	assert.InDelta(t, 0.79, sc.Value, 1e-9)
	assert.Equal(t, []string{"padding"}, sc.Evidence.Issues)
}

func TestCompletenessNamesGaps(t *testing.T) {
	t.Parallel()
	m := &fakeModel{replies: map[string][]string{"completeness": {
		`{"aspects":[{"aspect":"completion date","covered":true,"evidence":"1889"},{"aspect":"height","covered":true,"evidence":"330"},{"aspect":"cost","covered":false,"evidence":""}]}`,
	}}}
	sc, err := Completeness{Model: m}.Score(context.Background(), ragSample)
	require.NoError(t, err)
	assert.InDelta(t, 2.0/3, sc.Value, 1e-9)
	assert.Equal(t, []string{"cost"}, sc.Evidence.Gaps)
}

func TestUnknownMetric(t *testing.T) {
	t.Parallel()
	_, err := New("bleu", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown metric "bleu"`)
}

// TestOfflineJudgesNeverNaN runs every metric offline on degenerate
// samples: each gives a value in [0, 1] or an error, never NaN.
func TestOfflineJudgesNeverNaN(t *testing.T) {
	t.Parallel()
	ctxs := func(texts ...string) []eval.Source {
		var out []eval.Source
		for i, t := range texts {
			out = append(out, eval.Source{ID: fmt.Sprintf("c%d", i+1), Text: t})
		}
		return out
	}
	samples := map[string]eval.Sample{
		"empty":              {},
		"no contexts":        {Query: "What is it?", Answer: "It is a tower.", Reference: "A tower."},
		"empty strings":      {Query: " ", Answer: " ", Sources: ctxs("", " "), Reference: " "},
		"punctuation only":   {Query: "?", Answer: "...", Sources: ctxs("!!!"), Reference: "."},
		"numbers only":       {Query: "1 2", Answer: "3 4.5", Sources: ctxs("6 7"), Reference: "8"},
		"non-latin scripts":  {Query: "これは何ですか", Answer: "Это башня.", Sources: ctxs("هذا برج"), Reference: "塔"},
		"one very long word": {Query: strings.Repeat("a", 5000), Answer: strings.Repeat("b", 5000), Sources: ctxs(strings.Repeat("c", 5000))},
	}
	for _, metric := range judgeMetrics() {
		j, err := New(metric, nil)
		require.NoError(t, err)
		for name, s := range samples {
			sc, err := j.Score(context.Background(), s)
			if err != nil {
				continue // a clear error (context_recall without a reference) is fine
			}
			assert.False(t, math.IsNaN(sc.Value) || math.IsNaN(sc.Points), "%s on %s: %+v", metric, name, sc)
			assert.True(t, sc.Value >= 0 && sc.Value <= 1, "%s on %s: value %v", metric, name, sc.Value)
		}
	}
}

// needsReference is ErrNoReference for the judges against a reference and
// the others named.
func needsReference(others ...string) map[string]error {
	out := map[string]error{}
	for _, m := range append(others, MetricAnswerCorrectness, MetricFactualCorrectness, MetricFactualPrecision, MetricFactualRecall, MetricSemanticSimilarity) {
		out[m] = ErrNoReference
	}
	return out
}

// TestCheckIsScoresInputError: for every judge that is a Checker, Check
// gives the very error Score returns for a sample lacking what it needs,
// offline and with a model, and nil for a whole sample.
func TestCheckIsScoresInputError(t *testing.T) {
	t.Parallel()
	noRef := eval.Sample{Query: "q?", Answer: "Paris is in France.", Sources: []eval.Source{{ID: "c1", Text: "Paris is in France."}}}
	noCtx := eval.Sample{Query: "q?", Answer: "Paris is in France.", Reference: "Paris is in France."}
	nothing := eval.Sample{Query: "q?", Sources: []eval.Source{{ID: "c1", Text: "Paris is in France."}}}
	tests := map[string]struct {
		sample eval.Sample
		want   map[string]error // by metric; absent: no error
	}{
		"no reference":                 {noRef, needsReference(MetricContextRecall)},
		"no contexts":                  {noCtx, map[string]error{MetricContextPrecision: ErrNoContexts, MetricSourceRelevance: ErrNoContexts}},
		"neither answer nor reference": {nothing, needsReference(MetricContextRecall)},
	}
	for name, tc := range tests {
		for _, metric := range judgeMetrics() {
			for _, m := range []Model{nil, &fakeModel{}} {
				j, err := New(metric, m)
				require.NoError(t, err)
				c, ok := j.(Checker)
				if !ok {
					continue
				}
				want := tc.want[metric]
				if metric == MetricContextPrecision && m != nil && name == "neither answer nor reference" {
					want = ErrNoReference // a model needs something to judge contexts against
				}
				cerr := c.Check(tc.sample)
				if want == nil {
					assert.NoError(t, cerr, "%s %s model=%v", name, metric, m != nil)
					continue
				}
				assert.ErrorIs(t, cerr, want, "%s %s model=%v", name, metric, m != nil)
				_, serr := j.Score(context.Background(), tc.sample)
				assert.Equal(t, cerr, serr, "%s %s: Score's error", name, metric)
			}
		}
	}
}

// onStack is a model that notes, for each call, whether the function
// named caller is on the calling goroutine's stack.
type onStack struct {
	*fakeModel
	caller string
	mu     sync.Mutex
	inline []bool
}

func (m *onStack) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	found := false
	for f, more := frames.Next(); more && !found; f, more = frames.Next() {
		found = strings.HasSuffix(f.Function, "."+m.caller)
	}
	m.mu.Lock()
	m.inline = append(m.inline, found)
	m.mu.Unlock()
	return m.fakeModel.Chat(ctx, req)
}

// TestSourceRelevanceGradesOneSourceInPlace: a sample of one source (a
// RAG record's context) is graded on the goroutine that scores it, whose
// stack a run's worker has grown already, rather than on a new one whose
// stack grows again through the call; several are graded at once.
func TestSourceRelevanceGradesOneSourceInPlace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		sources int
		inline  bool
	}{
		{"one source", 1, true},
		{"three sources", 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := eval.Sample{Query: "Do heat pumps work below freezing?"}
			replies := make([]string, tc.sources)
			for i := range tc.sources {
				s.Sources = append(s.Sources, eval.Source{ID: fmt.Sprint(i), Text: "Heat pumps keep heating at -15 C."})
				replies[i] = `{"grade":4,"reason":"on topic"}`
			}
			m := &onStack{fakeModel: &fakeModel{replies: map[string][]string{"source.relevance": replies}}, caller: "TestSourceRelevanceGradesOneSourceInPlace.func1"}
			sc, err := SourceRelevance{Model: m}.Score(context.Background(), s)
			require.NoError(t, err)
			assert.InDelta(t, 4.0, sc.Points, 1e-9)
			assert.Equal(t, slices.Repeat([]bool{tc.inline}, tc.sources), m.inline)
		})
	}
}
