package judges_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// The judges against a reference, on scripted replies of the fake server:
// each value is RAGAS's formula worked by hand in the case.

var refSample = eval.Sample{
	Query:     "Where and when was the Rosetta Stone found?",
	Answer:    "It was found at Rashid. It was found in 1799. It is in Cairo.",
	Reference: "It was found near Rashid in 1799 by French soldiers. It is in the British Museum.",
}

// refClient is a client of srv; embeddings names the embedding model ("":
// the backend has none).
func refClient(t *testing.T, srv *llmtest.Server, embeddings string) *llm.Client {
	t.Helper()
	b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge", EmbeddingModel: embeddings})
	require.NoError(t, err)
	return llm.New(llm.Config{Backend: b, Retry: llm.RetryPolicy{MaxRetries: 0}})
}

// claimsReply lists n claims.
func claimsReply(n int) llmtest.Reply {
	cs := make([]string, n)
	for i := range cs {
		cs[i] = fmt.Sprintf("Statement %d.", i+1)
	}
	b, _ := json.Marshal(map[string][]string{"claims": cs})
	return llmtest.Reply{Content: string(b)}
}

// verdictsReply gives statement i the verdict vs[i]: S supported, U
// unsupported, C contradicted.
func verdictsReply(vs string) llmtest.Reply {
	names := map[rune]string{'S': "supported", 'U': "unsupported", 'C': "contradicted"}
	var out []string
	for i, v := range vs {
		ctx := ""
		if v == 'S' {
			ctx = "c1"
		}
		out = append(out, fmt.Sprintf(`{"statement":%d,"verdict":%q,"context":%q,"reason":"r"}`, i+1, names[v], ctx))
	}
	return llmtest.Reply{Content: `{"verdicts":[` + strings.Join(out, ",") + `]}`}
}

// classReply marks the answer's statements (T true positive, F false
// positive) and the reference's (c covered, N false negative).
func classReply(answer, reference string) llmtest.Reply {
	var a, r []string
	for i, v := range answer {
		a = append(a, fmt.Sprintf(`{"statement":%d,"verdict":%q,"reason":"r"}`, i+1, map[rune]string{'T': "TP", 'F': "FP"}[v]))
	}
	for i, v := range reference {
		r = append(r, fmt.Sprintf(`{"statement":%d,"verdict":%q,"reason":"r"}`, i+1, map[rune]string{'c': "covered", 'N': "FN"}[v]))
	}
	return llmtest.Reply{Content: `{"answer":[` + strings.Join(a, ",") + `],"reference":[` + strings.Join(r, ",") + `]}`}
}

// embedReply is an embeddings response with the vectors given, in order.
func embedReply(vecs ...[]float32) llmtest.Reply {
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i, v := range vecs {
		data = append(data, item{"embedding", i, v})
	}
	b, _ := json.Marshal(map[string]any{"object": "list", "model": "emb", "data": data, "usage": map[string]int{"prompt_tokens": 2, "total_tokens": 2}})
	return llmtest.Reply{Body: string(b)}
}

func TestAnswerCorrectnessIsRAGASFormula(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		answer, reference string // the marking: T/F per answer statement, c/N per reference statement
		a, b              []float32
		want              float64
	}{
		// TP 2, FP 0, FN 0: F = 2 / 2 = 1; cosine 1; 0.75 x 1 + 0.25 x 1.
		"all true, same meaning": {answer: "TT", reference: "cc", a: []float32{1, 0}, b: []float32{1, 0}, want: 1},
		// TP 1, FP 1, FN 1: F = 1 / (1 + (1+1)/2) = 0.5; cosine (1,0).(0.6,0.8) = 0.6;
		// 0.75 x 0.5 + 0.25 x 0.6 = 0.375 + 0.15.
		"one of each": {answer: "TF", reference: "cN", a: []float32{1, 0}, b: []float32{0.6, 0.8}, want: 0.525},
		// TP 2, FP 1, FN 2: F = 2 / (2 + 3/2) = 4/7; cosine (3,4).(4,3) / 25 = 0.96;
		// 0.75 x 4/7 + 0.25 x 0.96 = 3/7 + 0.24.
		"more missing than wrong": {answer: "TTF", reference: "ccNN", a: []float32{3, 4}, b: []float32{4, 3}, want: 3.0/7 + 0.24},
		// TP 0: F = 0; cosine of orthogonal vectors 0.
		"nothing right": {answer: "FF", reference: "N", a: []float32{1, 0}, b: []float32{0, 1}, want: 0},
		// TP 1, FP 0, FN 3: F = 1 / (1 + 3/2) = 0.4; cosine (1,1).(1,0) / sqrt 2;
		// 0.75 x 0.4 + 0.25 / sqrt 2 = 0.3 + 0.1767767.
		"right but short": {answer: "T", reference: "cNNN", a: []float32{1, 1}, b: []float32{1, 0}, want: 0.3 + 0.25/1.4142135623730951},
		// TP 1: F = 1; cosine -1, clipped to 0: 0.75 x 1.
		"opposite embeddings": {answer: "T", reference: "c", a: []float32{1, 0}, b: []float32{-1, 0}, want: 0.75},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t,
				llmtest.Script(claimsReply(len(tc.answer)), claimsReply(len(tc.reference)), classReply(tc.answer, tc.reference)),
				llmtest.EmbedScript(embedReply(tc.a, tc.b)))
			sc, err := judges.AnswerCorrectness{Model: refClient(t, srv, "emb")}.Score(t.Context(), refSample)
			require.NoError(t, err)
			require.False(t, sc.Defaulted, sc.Reason)
			assert.InDelta(t, tc.want, sc.Value, 1e-6, sc.Reason)
			assert.Equal(t, "llm:openai:judge (statements+embeddings)", sc.Method)
			assert.Equal(t, 3, srv.Calls(), "the answer's statements, the reference's, the marking")
			assert.Equal(t, [][]string{{refSample.Answer, refSample.Reference}}, srv.EmbedInputs(), "one embedding call for both texts")
			tp, fp, fn := strings.Count(tc.answer, "T"), strings.Count(tc.answer, "F"), strings.Count(tc.reference, "N")
			assert.Equal(t, map[string]float64{"tp": float64(tp), "fp": float64(fp), "fn": float64(fn)},
				map[string]float64{"tp": sc.Evidence.Counts["tp"], "fp": sc.Evidence.Counts["fp"], "fn": sc.Evidence.Counts["fn"]})
			assert.Len(t, sc.Evidence.Claims, len(tc.answer))
			assert.Len(t, sc.Evidence.Gaps, fn, "the reference's statements the answer leaves out")
		})
	}
}

func TestAnswerCorrectnessWithoutEmbeddingsIsTheFScore(t *testing.T) {
	t.Parallel()
	// TP 2, FP 1, FN 1: F = 2 / (2 + 1) = 2/3, RAGAS's value with weights [1, 0].
	srv := llmtest.New(t, llmtest.Script(claimsReply(3), claimsReply(3), classReply("TTF", "ccN")))
	sc, err := judges.AnswerCorrectness{Model: refClient(t, srv, "")}.Score(t.Context(), refSample)
	require.NoError(t, err)
	assert.InDelta(t, 2.0/3, sc.Value, 1e-9)
	assert.Contains(t, sc.Method, "F-score alone: no embeddings")
	assert.Zero(t, srv.EmbedCalls())
}

func TestAnswerCorrectnessMarkingMustJudgeEveryStatement(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		first, second llmtest.Reply
		want          float64
		defaulted     bool
	}{
		// The repair's reply: TP 1, FP 1, FN 0: F = 1 / (1 + 1/2) = 2/3; cosine 1.
		"a statement left out, then all": {first: classReply("T", "cc"), second: classReply("TF", "cc"), want: 0.75*2.0/3 + 0.25},
		"a statement marked twice, then once": {
			first:  llmtest.Reply{Content: `{"answer":[{"statement":1,"verdict":"TP","reason":"r"},{"statement":1,"verdict":"FP","reason":"r"},{"statement":2,"verdict":"TP","reason":"r"}],"reference":[{"statement":1,"verdict":"covered","reason":"r"},{"statement":2,"verdict":"covered","reason":"r"}]}`},
			second: classReply("TT", "cN"), want: 0.75*2/2.5 + 0.25,
		},
		"a number out of range, twice": {first: classReply("TFT", "cc"), second: classReply("TFT", "cc"), want: 0.5, defaulted: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Script(claimsReply(2), claimsReply(2), tc.first, tc.second),
				llmtest.EmbedScript(embedReply([]float32{1, 2}, []float32{1, 2})))
			sc, err := judges.AnswerCorrectness{Model: refClient(t, srv, "emb")}.Score(t.Context(), refSample)
			require.NoError(t, err)
			assert.Equal(t, tc.defaulted, sc.Defaulted, sc.Reason)
			assert.InDelta(t, tc.want, sc.Value, 1e-6, sc.Reason)
			assert.Equal(t, 4, srv.Calls(), "one repair request")
		})
	}
}

func TestFactualCorrectnessIsRAGASFormula(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		metric   string
		fwd, bwd string // verdicts of the answer's claims against the reference, of the reference's against the answer
		want     float64
		reason   string // the score's reason; "" not checked
	}{
		// TP 2, FP 1 (answer S S U); FN 1 (reference S U): P = 2/3, R = 2/3, F1 = 2/3 (RAGAS 0.67).
		"f1, even": {metric: judges.MetricFactualCorrectness, fwd: "SSU", bwd: "SU", want: 2.0 / 3,
			reason: "F1 0.67 of precision 0.67 (2 of the answer's 3 claims in the reference) and recall 0.67 (1 of the reference's 2 claims missing from the answer)"},
		// TP 0, FP 2; FN 0: R = 0 / 0, which RAGAS takes as 0 (tp / (tp + fn + 1e-8)), and so F1 = 0.
		"f1, no true positive and nothing missing": {metric: judges.MetricFactualCorrectness, fwd: "UU", bwd: "S", want: 0,
			reason: "F1 0.00 of precision 0.00 (0 of the answer's 2 claims in the reference) and recall 0.00 (the answer covers all of the reference's 1 claim, but none of the answer's 2 claims is in the reference, and recall counts the answer's claims the reference supports: TP / (TP + FN) = 0 / 0, taken as 0 as RAGAS does)"},
		// TP 0, FN 0: R = 0, as in RAGAS.
		"recall, no true positive and nothing missing": {metric: judges.MetricFactualRecall, fwd: "U", bwd: "SS", want: 0,
			reason: "recall 0.00: the answer covers all of the reference's 2 claims, but none of the answer's 1 claim is in the reference, and recall counts the answer's claims the reference supports: TP / (TP + FN) = 0 / 0, taken as 0 as RAGAS does"},
		// TP 4, FP 0; FN 1: P = 1, R = 4/5, F1 = 2 x 0.8 / 1.8 = 8/9 (RAGAS 0.89).
		"f1, a gap": {metric: judges.MetricFactualCorrectness, fwd: "SSSS", bwd: "U", want: 8.0 / 9},
		// TP 0: P = R = F1 = 0.
		"f1, nothing supported": {metric: judges.MetricFactualCorrectness, fwd: "U", bwd: "SS", want: 0},
		// TP 1, FP 2; FN 0: P = 1/3, R = 1, F1 = 2 x 1/3 / (4/3) = 0.5.
		"f1, too much said": {metric: judges.MetricFactualCorrectness, fwd: "SUC", bwd: "SS", want: 0.5},
		// TP 2, FP 2 (a contradiction is a false positive): P = 2/4.
		"precision": {metric: judges.MetricFactualPrecision, fwd: "SCSU", want: 0.5},
		// TP 3, FP 0: P = 1.
		"precision, all supported": {metric: judges.MetricFactualPrecision, fwd: "SSS", want: 1},
		// TP 2; FN 2 (reference S U U): R = 2 / (2 + 2) = 0.5.
		"recall": {metric: judges.MetricFactualRecall, fwd: "SS", bwd: "SUU", want: 0.5,
			reason: "recall 0.50: 2 true positives, 2 of the reference's 3 claims not supported by the answer"},
		// TP 1, FN 0: R = 1 whatever the false positives.
		"recall, extra claims do not count": {metric: judges.MetricFactualRecall, fwd: "SUU", bwd: "S", want: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			replies := []llmtest.Reply{claimsReply(len(tc.fwd))}
			if tc.bwd != "" {
				replies = append(replies, claimsReply(len(tc.bwd)))
			}
			replies = append(replies, verdictsReply(tc.fwd))
			if tc.bwd != "" {
				replies = append(replies, verdictsReply(tc.bwd))
			}
			srv := llmtest.New(t, llmtest.Script(replies...))
			j, err := judges.New(tc.metric, refClient(t, srv, "emb"))
			require.NoError(t, err)
			sc, err := j.Score(t.Context(), refSample)
			require.NoError(t, err)
			require.False(t, sc.Defaulted, sc.Reason)
			assert.Equal(t, tc.metric, sc.Metric)
			assert.InDelta(t, tc.want, sc.Value, 1e-9, sc.Reason)
			if tc.reason != "" {
				assert.Equal(t, tc.reason, sc.Reason)
			}
			assert.Equal(t, len(replies), srv.Calls(), "precision mode asks nothing of the reference")
			assert.Zero(t, srv.EmbedCalls())
			reqs := srv.Requests()
			assert.Contains(t, reqs[len(reqs)-1].Messages[1].Content, map[bool]string{true: refSample.Reference, false: refSample.Answer}[tc.bwd == ""],
				"the last verification's context: the reference (precision) or the answer")
		})
	}
}

func TestSemanticSimilarity(t *testing.T) {
	t.Parallel()
	t.Run("embeddings cosine", func(t *testing.T) {
		t.Parallel()
		// (1,2,2).(2,1,2) / (3 x 3) = 8/9.
		srv := llmtest.New(t, llmtest.EmbedScript(embedReply([]float32{1, 2, 2}, []float32{2, 1, 2})))
		sc, err := judges.SemanticSimilarity{Model: refClient(t, srv, "emb")}.Score(t.Context(), refSample)
		require.NoError(t, err)
		assert.InDelta(t, 8.0/9, sc.Value, 1e-6)
		assert.Equal(t, "llm:openai:judge (embeddings)", sc.Method)
		assert.Zero(t, srv.Calls(), "no chat call")
		assert.Equal(t, [][]string{{refSample.Answer, refSample.Reference}}, srv.EmbedInputs())
	})
	t.Run("the fake's own vectors", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Dim(16))
		sc, err := judges.SemanticSimilarity{Model: refClient(t, srv, "emb")}.Score(t.Context(), refSample)
		require.NoError(t, err)
		a, b := llmtest.Vector(refSample.Answer, 16), llmtest.Vector(refSample.Reference, 16)
		var dot, na, nb float64
		for i := range a {
			dot, na, nb = dot+float64(a[i])*float64(b[i]), na+float64(a[i])*float64(a[i]), nb+float64(b[i])*float64(b[i])
		}
		want := max(dot/(math.Sqrt(na)*math.Sqrt(nb)), 0)
		assert.InDelta(t, want, sc.Value, 1e-6)
	})
	t.Run("a negative cosine is clipped to 0", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.EmbedScript(embedReply([]float32{1, 0}, []float32{-0.6, 0.8})))
		sc, err := judges.SemanticSimilarity{Model: refClient(t, srv, "emb")}.Score(t.Context(), refSample)
		require.NoError(t, err)
		assert.Zero(t, sc.Value)
		assert.Contains(t, sc.Reason, "cosine -0.60")
		assert.Contains(t, sc.Reason, "clipped to 0")
	})
	t.Run("the embeddings endpoint fails: the neutral default", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.EmbedScript(llmtest.Reply{Status: 400}))
		sc, err := judges.SemanticSimilarity{Model: refClient(t, srv, "emb")}.Score(t.Context(), refSample)
		require.NoError(t, err)
		assert.True(t, sc.Defaulted)
		assert.InDelta(t, 0.5, sc.Value, 0)
	})
	lexical := heuristics.LexicalSimilarity(refSample.Answer, refSample.Reference)
	require.Greater(t, lexical, 0.0)
	require.Less(t, lexical, 1.0)
	t.Run("offline: the lexical stand-in, labelled approximate", func(t *testing.T) {
		t.Parallel()
		sc, err := judges.SemanticSimilarity{}.Score(t.Context(), refSample)
		require.NoError(t, err)
		assert.InDelta(t, lexical, sc.Value, 1e-12)
		assert.Equal(t, judges.MethodOffline, sc.Method)
		assert.Contains(t, sc.Reason, "not meaning")
	})
	t.Run("a backend with no embedding model: the lexical stand-in", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t)
		sc, err := judges.SemanticSimilarity{Model: refClient(t, srv, "")}.Score(t.Context(), refSample)
		require.NoError(t, err)
		assert.InDelta(t, lexical, sc.Value, 1e-12)
		assert.Equal(t, judges.MethodOffline, sc.Method)
		assert.Contains(t, sc.Reason, "no embedding model")
		assert.Zero(t, srv.Calls()+srv.EmbedCalls())
	})
}

// TestReferenceJudgesOffline: offline, the statements are sentences and
// the support lexical; values by hand from which sentences the other text
// supports.
func TestReferenceJudgesOffline(t *testing.T) {
	t.Parallel()
	s := eval.Sample{
		Query:     "What does a honeybee colony hold?",
		Answer:    "A honeybee colony has one queen. A colony holds about 50000 workers in summer. Drones are female.",
		Reference: "A honeybee colony has one queen. A colony holds about 50000 workers in summer. Drones are the male bees.",
	}
	// Answer: queen (supported), workers (supported), "Drones are female" (not: the
	// reference says male). Reference: queen, workers supported by the answer, the
	// drones sentence not. TP 2, FP 1, FN 1.
	tests := map[string]float64{
		judges.MetricAnswerCorrectness:  2.0 / 3, // F = 2 / (2 + 1), no embeddings offline
		judges.MetricFactualCorrectness: 2.0 / 3, // P = R = 2/3
		judges.MetricFactualPrecision:   2.0 / 3,
		judges.MetricFactualRecall:      2.0 / 3,
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j, err := judges.New(name, nil)
			require.NoError(t, err)
			sc, err := j.Score(t.Context(), s)
			require.NoError(t, err)
			assert.InDelta(t, want, sc.Value, 1e-9, sc.Reason)
			assert.Equal(t, judges.MethodOffline, sc.Method)
		})
	}
}

// TestReferenceJudgesOfflineCountARepeatOnce: a sentence said twice is
// one statement offline, as with a model, so repeating a true sentence
// does not buy precision or recall.
func TestReferenceJudgesOfflineCountARepeatOnce(t *testing.T) {
	t.Parallel()
	s := eval.Sample{
		Query:     "What are the capitals?",
		Answer:    "Paris is the capital of France. Paris is the capital of France.",
		Reference: "Paris is the capital of France. Berlin is the capital of Germany.",
	}
	// Answer: one statement, supported (TP 1, FP 0). Reference: Paris
	// covered, Berlin not (FN 1). Counting the repeat twice gave TP 2:
	// F 2 / (2 + 0.5) = 0.8 and recall 2/3.
	tests := map[string]float64{
		judges.MetricAnswerCorrectness:  2.0 / 3, // 1 / (1 + (0 + 1) / 2)
		judges.MetricFactualCorrectness: 2.0 / 3, // P 1, R 1/2: 2 x 1 x 0.5 / 1.5
		judges.MetricFactualPrecision:   1,
		judges.MetricFactualRecall:      0.5,
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j, err := judges.New(name, nil)
			require.NoError(t, err)
			sc, err := j.Score(t.Context(), s)
			require.NoError(t, err)
			assert.InDelta(t, want, sc.Value, 1e-9, sc.Reason)
			assert.InDelta(t, 1.0, sc.Evidence.Counts["tp"], 0, sc.Reason)
		})
	}
}

func TestReferenceJudgesSkipWhatHasNothingToCompare(t *testing.T) {
	t.Parallel()
	for _, name := range []string{judges.MetricAnswerCorrectness, judges.MetricFactualCorrectness, judges.MetricFactualPrecision, judges.MetricFactualRecall, judges.MetricSemanticSimilarity} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t)
			j, err := judges.New(name, refClient(t, srv, "emb"))
			require.NoError(t, err)
			sc, err := j.Score(t.Context(), eval.Sample{Query: "q?", Answer: "  ", Reference: "Paris is the capital."})
			require.NoError(t, err)
			assert.True(t, sc.Skipped)
			require.ErrorIs(t, sc.Err, eval.ErrNoAnswer)
			assert.Zero(t, srv.Calls()+srv.EmbedCalls(), "no call for a blank answer")

			_, err = j.Score(t.Context(), eval.Sample{Query: "q?", Answer: "Paris."})
			require.ErrorIs(t, err, judges.ErrNoReference)
		})
	}
	t.Run("the model finds no statement in the reference", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t, llmtest.Script(claimsReply(2), llmtest.Reply{Content: `{"claims":[]}`}))
		sc, err := judges.AnswerCorrectness{Model: refClient(t, srv, "emb")}.Score(t.Context(), refSample)
		require.NoError(t, err)
		assert.True(t, sc.Skipped)
		require.ErrorIs(t, sc.Err, eval.ErrNoClaims)
		assert.Contains(t, sc.Reason, "the reference states nothing")
	})
}
