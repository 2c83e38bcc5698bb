package assaytest_test

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/assaytest"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm/setup"
)

// recorder is a TB that keeps what a helper reports. Fatalf ends the
// helper's goroutine as testing.T's does, so run starts one.
type recorder struct {
	mu             sync.Mutex
	errors, fatals []string
	helper         int
}

func (r *recorder) Helper() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.helper++
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Name() string { return "TestUsersOwn" }

// run calls f with a recorder on a goroutine of its own, as go test runs
// a test, and returns the recorder once f has returned or called Fatalf.
func run(f func(t assaytest.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

var (
	boiling = eval.Sample{ID: "boiling", Query: "What is the boiling point of water at sea level?",
		Answer:  "Water boils at 100 degrees Celsius at sea level.",
		Sources: []eval.Source{{ID: "c1", Text: "At sea level, pure water boils at 100 degrees Celsius, or 212 degrees Fahrenheit."}}}
	wrong = eval.Sample{ID: "wrong", Query: boiling.Query,
		Answer: "Water boils at 90 degrees Celsius at sea level.", Sources: boiling.Sources}
	noAnswer = eval.Sample{ID: "blank", Query: boiling.Query, Sources: boiling.Sources}
)

// fakeModel is a client of the fake OpenAI server answering every chat
// call with reply, built by llm/setup as the assay command builds its own.
func fakeModel(t *testing.T, opts ...llmtest.Option) (judges.Model, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t, opts...)
	cfg := setup.DefaultConfig()
	cfg.Spec, cfg.NoCache = "openai:gpt-4o-mini", true
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test"}
	c, closer, err := setup.Open(cfg, func(k string) string { return env[k] })
	require.NoError(t, err)
	t.Cleanup(func() { _ = closer.Close() })
	return c, srv
}

// refusing is a model server that refuses every call with a 400, an error
// no retry mends: every judge falls back on its neutral default.
var refusing = llmtest.Default(llmtest.Reply{Status: 400, Body: `{"error":{"message":"bad request","type":"invalid_request_error"}}`})

func TestRequire(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		sample eval.Sample
		checks []string
		// model is "offline", "fake" (valid judge replies) or "refusing".
		model  string
		errors []string // each Errorf, by what it contains
		fatal  string
		values []float64
	}{
		"a faithful answer passes": {
			sample: boiling, checks: []string{"faithfulness>=0.8"}, values: []float64{1},
		},
		"an unfaithful answer fails with its claims and verdicts": {
			sample: wrong, checks: []string{"faithfulness>=0.8"}, values: []float64{0},
			errors: []string{`faithfulness>=0.8 of sample "wrong": got 0
    faithfulness = 0.0000 [offline (approximate)]
    reason: 0 of 1 claim supported by the contexts
    claims:
      [unsupported] Water boils at 90 degrees Celsius at sea level.`},
		},
		"each failing check is reported, the passing ones not": {
			sample: wrong, checks: []string{"faithfulness<0.5", "faithfulness>0", "answer_relevancy>=0.9"},
			values: []float64{0, 0.7911}, errors: []string{"faithfulness>0 of sample", "answer_relevancy>=0.9 of sample \"wrong\": got 0.7911"},
		},
		"a metric alone is checked at its default threshold": {
			sample: wrong, checks: []string{"faithfulness"}, values: []float64{0},
			errors: []string{`faithfulness>=1 of sample "wrong": got 0`},
		},
		"a model's judgement passes on its value": {
			sample: boiling, checks: []string{"faithfulness>=0.5"}, model: "fake", values: []float64{0.5},
		},
		"a defaulted judge fails, never passes": {
			sample: boiling, checks: []string{"faithfulness>=0.1"}, model: "refusing", values: []float64{0.5},
			errors: []string{"the judge failed and its neutral default 0.50 was used (extract claims: openai:gpt-4o-mini: chat: status 400: bad request): a default passes no check\n    faithfulness = 0.5000 (neutral default) [llm:openai:gpt-4o-mini]"},
		},
		"a sample with nothing to judge fails": {
			sample: noAnswer, checks: []string{"faithfulness>=0"}, values: []float64{0},
			errors: []string{`faithfulness>=0 of sample "blank": nothing was judged: skipped, not scored`},
		},
		"a sample lacking what the metric needs is fatal": {
			sample: boiling, checks: []string{"context_recall>=0.8"},
			fatal: `assaytest.Require: sample "boiling" cannot be judged: context_recall: `,
		},
		"an unknown metric is fatal, listing the metrics": {
			sample: boiling, checks: []string{"fidelity>=0.8"}, fatal: `unknown metric "fidelity" (have answer_correctness, answer_relevancy,`,
		},
		"a check that does not parse is fatal": {
			sample: boiling, checks: []string{"faithfulness=>0.8"}, fatal: `check "faithfulness=>0.8": want METRIC OP NUMBER`,
		},
		"no check is fatal": {
			sample: boiling, fatal: "name at least one check",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := assaytest.New(assaytest.WithModel(nil), assaytest.WithContext(t.Context()))
			switch tc.model {
			case "fake":
				m, _ := fakeModel(t, llmtest.Func(llmtest.JudgeReplies))
				j = assaytest.New(assaytest.WithModel(m), assaytest.WithContext(t.Context()))
			case "refusing":
				m, srv := fakeModel(t, refusing)
				j = assaytest.New(assaytest.WithModel(m), assaytest.WithContext(t.Context()))
				defer func() { assert.Positive(t, srv.Calls(), "the judge called the model") }()
			}
			var scores []eval.Score
			r := run(func(tb assaytest.TB) { scores = j.Require(tb, tc.sample, tc.checks...) })
			if tc.fatal != "" {
				require.Len(t, r.fatals, 1)
				assert.Contains(t, r.fatals[0], tc.fatal)
				assert.Empty(t, r.errors)
				return
			}
			assert.Empty(t, r.fatals)
			require.Len(t, r.errors, len(tc.errors), "errors: %q", r.errors)
			for i, want := range tc.errors {
				assert.Contains(t, r.errors[i], want)
			}
			require.Len(t, scores, len(tc.values))
			for i, v := range tc.values {
				assert.InDelta(t, v, scores[i].Value, 1e-4)
			}
			assert.Positive(t, r.helper, "the helpers mark themselves")
		})
	}
}

func TestRequireDataset(t *testing.T) {
	t.Parallel()
	const labelled = "../fixtures/rag/labelled.jsonl"
	tests := map[string]struct {
		path   string
		gates  []string
		model  string
		errors []string
		fatal  string
		// stats of the first metric: N, Scored, Defaulted, Mean, Min, P10, PassRate
		n, scored, defaulted    int
		mean, low, p10, passing float64
	}{
		"every gate passes": {
			path: labelled, gates: []string{"faithfulness.mean>=0.5", "faithfulness.max>=1", "faithfulness.defaulted<=0"},
			n: 6, scored: 6, mean: 0.5, low: 0, p10: 0, passing: 0.5,
		},
		"a failing gate names the value and the lowest samples with their evidence": {
			path: labelled, gates: []string{"faithfulness.min>=0.3", "faithfulness.pass_rate>=0.5"},
			n: 6, scored: 6, mean: 0.5, low: 0, p10: 0, passing: 0.5,
			errors: []string{"gate faithfulness.min>=0.3 on ../fixtures/rag/labelled.jsonl: got 0 (6 scored, 0 defaulted, 0 skipped of 6)\n    lowest faithfulness:\n  sample \"r2\"\n    faithfulness = 0.0000 [offline (approximate)]\n    reason: 0 of 1 claim supported by the contexts\n    claims:\n      [unsupported] Water boils at 90 degrees Celsius at sea level."},
		},
		"gates on two metrics": {
			path: labelled, gates: []string{"answer_relevancy.p10>=0.2", "faithfulness.median>=0.6"},
			n: 6, scored: 6, mean: 0.5792, low: 0.2673, p10: 0.2837, passing: 2.0 / 3,
			errors: []string{"gate faithfulness.median>=0.6 on ../fixtures/rag/labelled.jsonl: got 0.5"},
		},
		"defaults fail the test, and are kept out of the statistics": {
			path: labelled, gates: []string{"faithfulness.mean>=0"}, model: "refusing",
			n: 6, scored: 0, defaulted: 6, mean: math.NaN(), low: math.NaN(), p10: math.NaN(), passing: math.NaN(),
			errors: []string{
				"faithfulness on ../fixtures/rag/labelled.jsonl: 6 of 6 judgements defaulted, and a default passes nothing:\n    sample \"r1\": ",
				"gate faithfulness.mean>=0 on ../fixtures/rag/labelled.jsonl: got no value (nothing scored) (0 scored, 6 defaulted, 0 skipped of 6)\n    nothing was scored",
			},
		},
		"an unknown statistic is fatal": {
			path: labelled, gates: []string{"faithfulness.average>=0.5"}, fatal: `gate "faithfulness.average>=0.5": statistic "average": want one of mean, min,`,
		},
		"a gate without a statistic is fatal": {
			path: labelled, gates: []string{"faithfulness>=0.5"}, fatal: `gate "faithfulness>=0.5": "faithfulness" is not METRIC.STAT`,
		},
		"a missing file is fatal, naming it": {
			path: "testdata/nope.jsonl", gates: []string{"faithfulness.mean>=0.5"}, fatal: "testdata/nope.jsonl: cannot read: no such file or directory",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := assaytest.New(assaytest.WithModel(nil), assaytest.WithConcurrency(2))
			if tc.model == "refusing" {
				m, _ := fakeModel(t, refusing)
				j = assaytest.New(assaytest.WithModel(m), assaytest.WithContext(t.Context()))
			}
			var stats []assaytest.Stats
			r := run(func(tb assaytest.TB) { stats = j.RequireDataset(tb, tc.path, tc.gates...) })
			if tc.fatal != "" {
				require.Len(t, r.fatals, 1)
				assert.Contains(t, r.fatals[0], tc.fatal)
				return
			}
			assert.Empty(t, r.fatals)
			require.Len(t, r.errors, len(tc.errors), "errors: %q", r.errors)
			for i, want := range tc.errors {
				assert.Contains(t, r.errors[i], want)
			}
			require.NotEmpty(t, stats)
			s := stats[0]
			assert.Equal(t, tc.n, s.N)
			assert.Equal(t, tc.scored, s.Scored)
			assert.Equal(t, tc.defaulted, s.Defaulted)
			for name, pair := range map[string][2]float64{"mean": {tc.mean, s.Mean}, "min": {tc.low, s.Min}, "p10": {tc.p10, s.P10}, "pass rate": {tc.passing, s.PassRate}} {
				if math.IsNaN(pair[0]) {
					assert.True(t, math.IsNaN(pair[1]), "%s: got %v, want NaN", name, pair[1])
					continue
				}
				assert.InDelta(t, pair[0], pair[1], 1e-4, name)
			}
		})
	}
}

// TestExplain: the evidence a failed test shows, for each kind.
func TestExplain(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		score eval.Score
		want  string
	}{
		"sources, gaps and issues": {
			score: eval.Score{Metric: "completeness", Value: 0.4, Method: "llm:openai:gpt-4o-mini", Reason: "2 of 5 aspects covered",
				Evidence: eval.Evidence{Sources: []eval.SourceRating{{URL: "https://a.example", Rating: 0.75, Basis: "grade 4 of 5"}},
					Gaps: []string{"cost"}, Issues: []string{"no conclusion"}}},
			want: "    completeness = 0.4000 [llm:openai:gpt-4o-mini]\n    reason: 2 of 5 aspects covered\n    sources:\n      0.75 https://a.example (grade 4 of 5)\n    gaps:\n      - cost\n    issues:\n      - no conclusion",
		},
		"a skipped score": {
			score: eval.Score{Metric: "faithfulness", Skipped: true, Reason: "skipped, not scored: no answer"},
			want:  "    faithfulness = skipped\n    reason: skipped, not scored: no answer",
		},
		"a claim with its source": {
			score: eval.Score{Metric: "faithfulness", Value: 1, Evidence: eval.Evidence{Claims: []eval.Claim{{Text: "A is B.", Verdict: eval.VerdictSupported, SourceID: "c2"}}}},
			want:  "    faithfulness = 1.0000\n    claims:\n      [supported] A is B. (c2)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, assaytest.Explain(tc.score))
		})
	}
}

// TestFakeServerSawTheSample: a judgement with a model sends the sample
// to it (the fake server is really called through llm/setup's client).
func TestFakeServerSawTheSample(t *testing.T) {
	t.Parallel()
	m, srv := fakeModel(t, llmtest.Func(llmtest.JudgeReplies))
	j := assaytest.New(assaytest.WithModel(m), assaytest.WithContext(t.Context()))
	r := run(func(tb assaytest.TB) { j.Require(tb, boiling, "faithfulness>=0.5") })
	assert.Empty(t, r.errors)
	assert.Empty(t, r.fatals)
	seen := false
	for _, req := range srv.Requests() {
		for _, msg := range req.Messages {
			if msg.Role == openai.ChatMessageRoleUser && strings.Contains(msg.Content, "Water boils at 100 degrees Celsius") {
				seen = true
			}
		}
	}
	assert.True(t, seen, "the answer reached the model")
}
