package judges_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// checkRequest is what a check asked: its document and its claim, read
// from the layout the fact-checking models expect.
func checkRequest(t *testing.T, req goopenai.ChatCompletionRequest) (doc, claim string) {
	t.Helper()
	user := req.Messages[len(req.Messages)-1].Content
	rest, ok := strings.CutPrefix(user, "Document: ")
	require.True(t, ok, "a check's user message starts with the document: %q", user)
	i := strings.LastIndex(rest, "\nClaim: ")
	require.GreaterOrEqual(t, i, 0, "a check's user message ends with the claim: %q", user)
	return rest[:i], rest[i+len("\nClaim: "):]
}

// norm is text as the fake checker compares it: lower case, single
// spaces, no end punctuation.
func norm(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(s), ".!?")), " "))
}

// fakeChecker is a fact-checking server: it answers Yes when the
// document holds the claim's words in order (as norm sees them), No
// otherwise; with yesProb set it serves the log-probabilities of Yes and
// No (yesProb of the chunk that holds the claim, 1-yesProb otherwise)
// alongside. It records the chunks it was shown, per claim.
type fakeChecker struct {
	t       *testing.T
	yesProb float64 // 0: no log-probabilities served

	mu     sync.Mutex
	chunks map[string][]string // claim -> documents checked, in order
}

func (f *fakeChecker) reply(req goopenai.ChatCompletionRequest) llmtest.Reply {
	doc, claim := checkRequest(f.t, req)
	f.mu.Lock()
	f.chunks[claim] = append(f.chunks[claim], doc)
	f.mu.Unlock()
	holds := strings.Contains(norm(doc), norm(claim))
	answer := map[bool]string{true: "Yes", false: "No"}[holds]
	r := llmtest.Reply{Content: answer}
	if f.yesProb > 0 {
		p := f.yesProb
		if !holds {
			p = 1 - f.yesProb
		}
		top := []llm.TopLogprob{{Token: "Yes", Logprob: math.Log(p)}, {Token: "No", Logprob: math.Log(1 - p)}}
		if !holds {
			top[0], top[1] = top[1], top[0]
		}
		r.Logprobs = []llm.TokenLogprob{{Token: answer, Logprob: top[0].Logprob, Top: top}}
	}
	return r
}

// client is a model client of the server at url, retrying once, fast.
func client(t *testing.T, url string) *llm.Client {
	t.Helper()
	b, err := openai.New(openai.Config{BaseURL: url, Model: "minicheck"})
	require.NoError(t, err)
	return llm.New(llm.Config{Backend: b, Concurrency: 4, Retry: llm.RetryPolicy{MaxRetries: 1, Initial: 1e6, Max: 2e6}})
}

// words counts tokens as the tests size chunks: one per word.
func words(s string) int { return len(strings.Fields(s)) }

// TestCheckerVerifiesEachClaimAgainstChunks: the contexts are split in
// chunks of the size set, each claim checked against them in order; a
// claim is supported by the first chunk that supports it (naming its
// context), unsupported when none does, and its probability comes from
// the log-probabilities when served, else from the sampled answer,
// labelled either way.
func TestCheckerVerifiesEachClaimAgainstChunks(t *testing.T) {
	// Each context is 8 words: a chunk of 10 holds one.
	first := "The bridge opened to traffic in the spring."
	second := "Its main span is four hundred metres long."
	third := "The city council approved a toll last year."
	sample := eval.Sample{Query: "Tell me about the bridge.", Sources: []eval.Source{
		{ID: "news-1", Text: first}, {ID: "news-2", Text: second}, {ID: "news-3", Text: third},
	}}
	tests := []struct {
		name      string
		answer    string
		yesProb   float64
		wantValue float64
		want      []eval.Claim // Text, Verdict, SourceID, Check (Checker, Probability, From, Chunk, Chunks)
		wantCalls map[string]int
	}{
		{
			name:    "supported in the second chunk, logprobs served",
			answer:  "Its main span is four hundred metres long.",
			yesProb: 0.9, wantValue: 1,
			want: []eval.Claim{{Text: "Its main span is four hundred metres long.", Verdict: eval.VerdictSupported, SourceID: "news-2",
				Check: &eval.ClaimCheck{Checker: "openai:minicheck", Probability: 0.9, From: eval.CheckLogprobs, Chunk: 2, Chunks: 3}}},
			wantCalls: map[string]int{"Its main span is four hundred metres long.": 2},
		},
		{
			name:    "supported by none, logprobs served: the highest probability kept",
			answer:  "The bridge was closed for repairs in winter.",
			yesProb: 0.8, wantValue: 0,
			want: []eval.Claim{{Text: "The bridge was closed for repairs in winter.", Verdict: eval.VerdictUnsupported,
				Check: &eval.ClaimCheck{Checker: "openai:minicheck", Probability: 0.2, From: eval.CheckLogprobs, Chunks: 3}}},
			wantCalls: map[string]int{"The bridge was closed for repairs in winter.": 3},
		},
		{
			name:      "no logprobs served: the sampled answer, labelled",
			answer:    "The city council approved a toll last year. The toll is ten dollars a crossing.",
			wantValue: 0.5,
			want: []eval.Claim{
				{Text: "The city council approved a toll last year.", Verdict: eval.VerdictSupported, SourceID: "news-3",
					Check: &eval.ClaimCheck{Checker: "openai:minicheck", Probability: 1, From: eval.CheckSampled, Chunk: 3, Chunks: 3}},
				{Text: "The toll is ten dollars a crossing.", Verdict: eval.VerdictUnsupported,
					Check: &eval.ClaimCheck{Checker: "openai:minicheck", Probability: 0, From: eval.CheckSampled, Chunks: 3}},
			},
			wantCalls: map[string]int{"The city council approved a toll last year.": 3, "The toll is ten dollars a crossing.": 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeChecker{t: t, yesProb: tt.yesProb, chunks: map[string][]string{}}
			srv := llmtest.New(t, llmtest.Func(fake.reply))
			fc := &judges.FactChecker{Model: client(t, srv.URL()), Name: "openai:minicheck", ChunkTokens: 10, Count: words}
			s := sample
			s.Answer = tt.answer
			sc, err := judges.Faithfulness{Checker: fc}.Score(context.Background(), s)
			require.NoError(t, err)
			assert.False(t, sc.Defaulted, "%v", sc.Err)
			assert.InDelta(t, tt.wantValue, sc.Value, 1e-9)
			assert.Equal(t, tt.want, sc.Evidence.Claims)
			assert.Equal(t, "offline (approximate) + checker openai:minicheck", sc.Method)
			assert.Contains(t, sc.Reason, "verified by checker openai:minicheck")
			for claim, n := range tt.wantCalls {
				require.Len(t, fake.chunks[claim], n, "chunks checked for %q", claim)
				assert.Equal(t, first, fake.chunks[claim][0], "the first chunk is the first context")
			}
			for _, req := range srv.Requests() {
				assert.True(t, req.LogProbs, "every check asks for log-probabilities")
				assert.Positive(t, req.TopLogProbs)
				assert.Nil(t, req.ResponseFormat, "a check asks for a word, not JSON")
			}
		})
	}
}

// TestCheckerProbabilityFromLogprobs: the probability of support is
// P(Yes) / (P(Yes) + P(No)) over the first answer token's alternatives,
// spellings of either summed; a claim is supported above 0.5. A reply
// whose alternatives hold neither falls back on its sampled answer.
func TestCheckerProbabilityFromLogprobs(t *testing.T) {
	lp := func(tok string, p float64) llm.TopLogprob { return llm.TopLogprob{Token: tok, Logprob: math.Log(p)} }
	tests := []struct {
		name     string
		reply    llmtest.Reply
		wantProb float64
		wantFrom string
		wantSup  bool
	}{
		{"yes 0.6 no 0.3 other 0.1", llmtest.Reply{Content: "Yes", Logprobs: []llm.TokenLogprob{{Token: "Yes", Logprob: math.Log(0.6),
			Top: []llm.TopLogprob{lp("Yes", 0.6), lp("No", 0.3), lp("The", 0.1)}}}}, 0.667, eval.CheckLogprobs, true},
		{"spellings summed", llmtest.Reply{Content: "No", Logprobs: []llm.TokenLogprob{{Token: "No", Logprob: math.Log(0.4),
			Top: []llm.TopLogprob{lp("No", 0.4), lp(" yes", 0.2), lp("Yes", 0.15), lp("no", 0.05)}}}}, 0.35 / 0.8, eval.CheckLogprobs, false},
		{"an even split is no support", llmtest.Reply{Content: "Yes", Logprobs: []llm.TokenLogprob{{Token: "Yes", Logprob: math.Log(0.5),
			Top: []llm.TopLogprob{lp("Yes", 0.5), lp("No", 0.5)}}}}, 0.5, eval.CheckLogprobs, false},
		{"a leading newline token is passed over", llmtest.Reply{Content: "\nYes", Logprobs: []llm.TokenLogprob{
			{Token: "\n", Logprob: math.Log(0.99), Top: []llm.TopLogprob{lp("\n", 0.99)}},
			{Token: "Yes", Logprob: math.Log(0.7), Top: []llm.TopLogprob{lp("Yes", 0.7), lp("No", 0.3)}}}}, 0.7, eval.CheckLogprobs, true},
		{"a word split in tokens, no alternative Yes or No: the sampled answer", llmtest.Reply{Content: "Yes", Logprobs: []llm.TokenLogprob{
			{Token: "Y", Logprob: math.Log(0.9), Top: []llm.TopLogprob{lp("Y", 0.9), lp("N", 0.1)}}, {Token: "es", Logprob: math.Log(0.99)}}}, 1, eval.CheckSampled, true},
		{"no logprobs, answer in lower case with a full stop", llmtest.Reply{Content: "no."}, 0, eval.CheckSampled, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Default(tt.reply))
			fc := &judges.FactChecker{Model: client(t, srv.URL()), Name: "openai:minicheck"}
			s := eval.Sample{Answer: "Ice melts above zero degrees.", Reference: "Ice melts above zero degrees.",
				Sources: []eval.Source{{ID: "s1", Text: "Water freezes at zero degrees Celsius."}}}
			sc, err := judges.ContextRecall{Checker: fc}.Score(context.Background(), s)
			require.NoError(t, err)
			require.False(t, sc.Defaulted, "%v", sc.Err)
			require.Len(t, sc.Evidence.Claims, 1)
			c := sc.Evidence.Claims[0]
			require.NotNil(t, c.Check)
			assert.InDelta(t, tt.wantProb, c.Check.Probability, 0.001, "rounded to 3 places")
			assert.Equal(t, tt.wantFrom, c.Check.From)
			assert.Equal(t, tt.wantSup, c.Verdict == eval.VerdictSupported)
			assert.Equal(t, 1.0, sc.Evidence.Counts["checked_"+tt.wantFrom])
		})
	}
}

// TestCheckerFailureIsADefault: a checker that fails (an error status,
// an answer that is neither Yes nor No, an unreachable server) makes the
// judgement the neutral default with its cause, never a supported claim.
func TestCheckerFailureIsADefault(t *testing.T) {
	tests := []struct {
		name    string
		reply   llmtest.Reply
		wantErr error
	}{
		{"error status", llmtest.Reply{Status: 400}, nil},
		{"server error, retried and still failing", llmtest.Reply{Status: 503}, nil},
		{"neither Yes nor No", llmtest.Reply{Content: "Probably"}, llm.ErrInvalidOutput},
		{"an answer that only begins with yes", llmtest.Reply{Content: "Yesterday it did."}, llm.ErrInvalidOutput},
	}
	for _, tt := range tests {
		for _, metric := range []string{judges.MetricFaithfulness, judges.MetricContextRecall} {
			t.Run(tt.name+"/"+metric, func(t *testing.T) {
				srv := llmtest.New(t, llmtest.Default(tt.reply))
				fc := &judges.FactChecker{Model: client(t, srv.URL()), Name: "openai:minicheck"}
				s := eval.Sample{Answer: "The museum opens at nine.", Reference: "The museum opens at nine.",
					Sources: []eval.Source{{ID: "s1", Text: "The museum opens at nine every morning."}}}
				var sc eval.Score
				var err error
				if metric == judges.MetricFaithfulness {
					sc, err = judges.Faithfulness{Checker: fc}.Score(context.Background(), s)
				} else {
					sc, err = judges.ContextRecall{Checker: fc}.Score(context.Background(), s)
				}
				require.NoError(t, err)
				assert.True(t, sc.Defaulted)
				assert.InDelta(t, 0.5, sc.Value, 1e-9)
				require.Error(t, sc.Err)
				assert.Contains(t, sc.Err.Error(), "fact checker openai:minicheck")
				if tt.wantErr != nil {
					assert.True(t, errors.Is(sc.Err, tt.wantErr), "%v", sc.Err)
				}
				assert.Empty(t, sc.Evidence.Claims, "no claim is reported supported")
				assert.Equal(t, "offline (approximate) + checker openai:minicheck", sc.Method)
			})
		}
	}
	t.Run("unreachable", func(t *testing.T) {
		srv := llmtest.Start()
		url := srv.URL()
		srv.Close()
		fc := &judges.FactChecker{Model: client(t, url), Name: "openai:minicheck"}
		sc, err := judges.Faithfulness{Checker: fc}.Score(context.Background(), eval.Sample{Answer: "The museum opens at nine.",
			Sources: []eval.Source{{Text: "The museum opens at nine."}}})
		require.NoError(t, err)
		assert.True(t, sc.Defaulted)
		assert.Empty(t, sc.Evidence.Claims)
	})
}

// TestCheckerWithModelClaims: with a judging model, the claims are the
// model's (not the answer's sentences) and the checker verifies them; the
// score is labelled with both. Thai claims and contexts go through as
// they are.
func TestCheckerWithModelClaims(t *testing.T) {
	judge := llmtest.New(t, llmtest.Script(llmtest.Reply{Content: `{"claims":["ดัชนีปิดที่ 1,350 จุด","The index rose for a third day"]}`}))
	fake := &fakeChecker{t: t, yesProb: 0.95, chunks: map[string][]string{}}
	checker := llmtest.New(t, llmtest.Func(fake.reply))
	fc := &judges.FactChecker{Model: client(t, checker.URL()), Name: "vllm:Bespoke-MiniCheck-7B"}
	s := eval.Sample{Query: "ตลาดหุ้นวันนี้เป็นอย่างไร", Answer: "ดัชนีปิดที่ 1,350 จุด และปรับขึ้นเป็นวันที่สาม",
		Sources: []eval.Source{{ID: "set", Text: "วันนี้ดัชนีปิดที่ 1,350 จุด ปรับขึ้น 5 จุด"}}}
	sc, err := judges.Faithfulness{Model: client(t, judge.URL()), Checker: fc}.Score(context.Background(), s)
	require.NoError(t, err)
	require.False(t, sc.Defaulted, "%v", sc.Err)
	assert.Equal(t, "llm:openai:minicheck + checker vllm:Bespoke-MiniCheck-7B", sc.Method)
	require.Len(t, sc.Evidence.Claims, 2)
	assert.Equal(t, eval.VerdictSupported, sc.Evidence.Claims[0].Verdict)
	assert.Equal(t, "set", sc.Evidence.Claims[0].SourceID)
	assert.Equal(t, eval.VerdictUnsupported, sc.Evidence.Claims[1].Verdict)
	assert.InDelta(t, 0.5, sc.Value, 1e-9)
	assert.Equal(t, 1, judge.Calls(), "the judging model only extracts the claims")
	assert.Equal(t, 2, checker.Calls(), "one check per claim and chunk")
	assert.Equal(t, 3, sc.Usage.Calls)
}

// TestCheckerNoContextText: with no context text, every claim is
// unsupported and the checker is not called.
func TestCheckerNoContextText(t *testing.T) {
	srv := llmtest.New(t)
	fc := &judges.FactChecker{Model: client(t, srv.URL()), Name: "openai:minicheck"}
	sc, err := judges.Faithfulness{Checker: fc}.Score(context.Background(), eval.Sample{Answer: "The ferry leaves at noon.", Sources: []eval.Source{{ID: "a", Text: "  "}}})
	require.NoError(t, err)
	assert.False(t, sc.Defaulted)
	assert.Zero(t, sc.Value)
	assert.Zero(t, srv.Calls())
}

// TestWithChecker: the registry's faithfulness and context recall take
// the checker when built, their threshold offline is the one with a
// model, and a dry run answers a check with Yes; other metrics are as
// they were, and the registry given is unchanged.
func TestWithChecker(t *testing.T) {
	base := builtins(t)
	fc := &judges.FactChecker{Name: "openai:minicheck"}
	reg, err := judges.WithChecker(base, fc)
	require.NoError(t, err)
	for _, name := range []string{judges.MetricFaithfulness, judges.MetricContextRecall} {
		sc, err := reg.New(name, nil)
		require.NoError(t, err)
		switch j := sc.(type) {
		case judges.Faithfulness:
			assert.Same(t, fc, j.Checker)
		case judges.ContextRecall:
			assert.Same(t, fc, j.Checker)
		default:
			t.Fatalf("%s built %T", name, sc)
		}
		assert.Equal(t, reg.ThresholdOf(name, false), reg.ThresholdOf(name, true), name)
		plain, err := base.New(name, nil)
		require.NoError(t, err)
		assert.Equal(t, judges.Faithfulness{}.Checker, checkerOf(plain), "the registry given is unchanged")
	}
	content, n, ok := reg.DryRun(llm.Request{Tag: judges.CheckTag}, words)
	assert.True(t, ok)
	assert.Equal(t, "Yes", content)
	assert.Equal(t, 1, n)
	a, _ := reg.Lookup(judges.MetricAnswerRelevancy)
	b, _ := base.Lookup(judges.MetricAnswerRelevancy)
	assert.Equal(t, b.Threshold, a.Threshold)
}

func checkerOf(sc eval.Scorer) *judges.FactChecker {
	switch j := sc.(type) {
	case judges.Faithfulness:
		return j.Checker
	case judges.ContextRecall:
		return j.Checker
	}
	return nil
}

// TestCheckerAgainstTheShippedFake: the fake model server that ships
// (llmtest.JudgeReplies, cmd fakellm) answers the checker's requests as
// a fact-checking model does, with log-probabilities: a claim the
// contexts state is supported, one they do not is not, and nothing
// defaults.
func TestCheckerAgainstTheShippedFake(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	fc := &judges.FactChecker{Model: client(t, srv.URL()), Name: "openai:minicheck"}
	s := eval.Sample{Answer: "The museum opens at nine every morning. Tickets cost forty dollars for adults.",
		Sources: []eval.Source{{ID: "c1", Text: "The museum opens at nine every morning, all year."}}}
	sc, err := judges.Faithfulness{Checker: fc}.Score(t.Context(), s)
	require.NoError(t, err)
	require.False(t, sc.Defaulted, "%v", sc.Err)
	assert.InDelta(t, 0.5, sc.Value, 1e-9)
	require.Len(t, sc.Evidence.Claims, 2)
	want := map[string]struct {
		verdict string
		prob    float64
	}{
		"The museum opens at nine every morning.": {eval.VerdictSupported, 0.9},
		"Tickets cost forty dollars for adults.":  {"", 0.1},
	}
	for _, c := range sc.Evidence.Claims {
		w, ok := want[c.Text]
		require.True(t, ok, "claim %q", c.Text)
		require.NotNil(t, c.Check)
		assert.Equal(t, eval.CheckLogprobs, c.Check.From)
		assert.InDelta(t, w.prob, c.Check.Probability, 1e-9, c.Text)
		assert.Equal(t, w.verdict == eval.VerdictSupported, c.Verdict == eval.VerdictSupported, c.Text)
	}
	assert.Equal(t, 2, srv.Calls(), "one check a claim, one chunk")
}
