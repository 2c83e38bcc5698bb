package judges_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	aopenai "github.com/assaylabs/assay/llm/openai"
)

var sampledSample = eval.Sample{
	Query:   "When was the Eiffel Tower completed?",
	Answer:  "The Eiffel Tower was completed in 1889. It is 330 metres tall.",
	Sources: []eval.Source{{ID: "s1", Text: "The Eiffel Tower was completed in 1889 and is 330 metres tall."}},
}

// sampledClient is a model client on srv, with the cache at cache ("" for
// none).
func sampledClient(t *testing.T, srv *llmtest.Server, cache string) *llm.Client {
	t.Helper()
	b, err := aopenai.New(aopenai.Config{BaseURL: srv.URL(), Model: "judge"})
	require.NoError(t, err)
	cfg := llm.Config{Backend: b}
	if cache != "" {
		c, err := llm.OpenCache(cache, 0)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		cfg.Cache = c
	}
	return llm.New(cfg)
}

func TestSampledAsksKTimesEachCachedApart(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		metric string
		k      int
	}{
		"faithfulness once":         {metric: judges.MetricFaithfulness, k: 1},
		"faithfulness three times":  {metric: judges.MetricFaithfulness, k: 3},
		"completeness three times":  {metric: judges.MetricCompleteness, k: 3},
		"completeness five times":   {metric: judges.MetricCompleteness, k: 5},
		"context recall four times": {metric: judges.MetricContextRecall, k: 4},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := sampledSample
			s.Reference = "The tower was completed in 1889."
			// One unsampled judgement counts the calls a judgement makes.
			once := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			j, err := judges.New(tc.metric, sampledClient(t, once, ""))
			require.NoError(t, err)
			_, err = j.Score(t.Context(), s)
			require.NoError(t, err)
			per := once.Calls()
			require.Positive(t, per)

			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			cache := filepath.Join(t.TempDir(), "cache.db")
			j, err = judges.New(tc.metric, sampledClient(t, srv, cache))
			require.NoError(t, err)
			sc, err := judges.Sampled{Scorer: j, K: tc.k}.Score(t.Context(), s)
			require.NoError(t, err)
			assert.Equal(t, tc.k*per, srv.Calls(), "k times the calls of one judgement")
			assert.Equal(t, tc.k*per, sc.Usage.Calls)

			seeds := map[int]int{}
			for _, r := range srv.Requests() {
				if tc.k == 1 {
					// go-openai sends a temperature of 0 as the smallest float32.
					assert.InDelta(t, 0, r.Temperature, 1e-6, "one sample stays at temperature 0")
					assert.Nil(t, r.Seed)
					continue
				}
				assert.InDelta(t, judges.SampleTemperature, r.Temperature, 1e-6)
				require.NotNil(t, r.Seed)
				seeds[*r.Seed]++
			}
			if tc.k > 1 {
				assert.Len(t, seeds, tc.k, "one seed per sample")
				for i := range tc.k {
					assert.Equal(t, per, seeds[i], "seed %d", i)
				}
				assert.InDelta(t, float64(tc.k), sc.Evidence.Counts[judges.CountSamples], 0)
			}

			// The same run again is all cache hits: each sample was
			// stored under its own key.
			j, err = judges.New(tc.metric, sampledClient(t, srv, cache))
			require.NoError(t, err)
			again, err := judges.Sampled{Scorer: j, K: tc.k}.Score(t.Context(), s)
			require.NoError(t, err)
			assert.Equal(t, tc.k*per, srv.Calls(), "no new call")
			assert.InDelta(t, sc.Value, again.Value, 1e-12)
		})
	}
}

// inconsistent answers faithfulness prompts with the two claims of the
// answer and, for verification, verdicts that change from call to call:
// the n-th call supports the claims whose bit is set in pattern[n].
func inconsistent(pattern []int) func(openai.ChatCompletionRequest) llmtest.Reply {
	var n atomic.Int64
	return func(req openai.ChatCompletionRequest) llmtest.Reply {
		if req.ResponseFormat != nil && req.ResponseFormat.JSONSchema != nil && req.ResponseFormat.JSONSchema.Name == "verdicts" {
			p := pattern[int(n.Add(1)-1)%len(pattern)]
			var vs []string
			for i := range 2 {
				v := "unsupported"
				if p&(1<<i) != 0 {
					v = "supported"
				}
				vs = append(vs, fmt.Sprintf(`{"statement":%d,"verdict":%q,"context":"c1","reason":"as the fake says"}`, i+1, v))
			}
			return llmtest.Reply{Content: `{"verdicts":[` + strings.Join(vs, ",") + `]}`}
		}
		return llmtest.JudgeReplies(req)
	}
}

func TestSampledReportsSpreadAndInstability(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		pattern  []int // claims supported per call, as bits
		value    float64
		std      float64
		share    float64
		unstable bool
	}{
		"a consistent judge is stable": {
			pattern: []int{3}, value: 1, std: 0, share: 1,
		},
		"verdicts that flip are unstable by the majority": {
			pattern: []int{3, 0, 3}, value: 2.0 / 3, std: 0.4714045207910317, share: 2.0 / 3, unstable: true,
		},
		"values that spread are unstable by their deviation": {
			// 1, 0.5, 1: every value passes at 0.5, but std 0.236 > 0.1.
			pattern: []int{3, 1, 3}, value: 5.0 / 6, std: 0.23570226039551584, share: 1, unstable: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(inconsistent(tc.pattern)))
			j := judges.Faithfulness{Model: sampledClient(t, srv, "")}
			sc, err := judges.Sampled{Scorer: j, K: 3}.Score(t.Context(), sampledSample)
			require.NoError(t, err)
			require.False(t, sc.Defaulted, sc.Reason)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			c := sc.Evidence.Counts
			assert.InDelta(t, 3, c[judges.CountSamples], 0)
			assert.InDelta(t, tc.std, c[judges.CountSpreadStd], 1e-9)
			assert.InDelta(t, tc.share, c[judges.CountMajorityShare], 1e-9)
			assert.InDelta(t, 0, c[judges.CountSamplesDefaulted], 0)
			assert.Equal(t, tc.unstable, judges.Unstable(sc))
			assert.Contains(t, sc.Reason, "mean of 3 samples")
		})
	}
}

// scripted is a scorer that returns its scores in turn, one per call.
type scripted struct {
	scores []eval.Score
	n      *atomic.Int64
}

func (s scripted) Score(context.Context, eval.Sample) (eval.Score, error) {
	return s.scores[int(s.n.Add(1)-1)%len(s.scores)], nil
}

func grade(g float64) eval.Score {
	return eval.Score{Metric: "g", Points: g, Max: 5, Value: (g - 1) / 4, Reason: fmt.Sprint("grade ", g),
		Usage: eval.Usage{Calls: 1}, Evidence: eval.Evidence{Counts: map[string]float64{"own": g}}}
}

func ratio(v float64) eval.Score {
	return eval.Score{Metric: "r", Value: v, Points: v, Max: 1, Usage: eval.Usage{Calls: 1}}
}

func TestSampledCombines(t *testing.T) {
	t.Parallel()
	failed := eval.Score{Metric: "g", Value: 0.5, Points: 2.5, Max: 5, Defaulted: true, Reason: "judge failed", Usage: eval.Usage{Calls: 1}}
	tests := map[string]struct {
		scores    []eval.Score
		k         int
		threshold float64
		points    float64
		value     float64
		share     float64
		defaulted float64
		unstable  bool
		isDefault bool
		reason    string
	}{
		"the majority grade wins, with its own evidence": {
			scores: []eval.Score{grade(4), grade(2), grade(4)}, k: 3,
			points: 4, value: 0.75, share: 2.0 / 3, unstable: true,
			reason: "majority grade 4, given by 2 of 3 samples; grade 4",
		},
		"a tie takes the lower grade": {
			scores: []eval.Score{grade(5), grade(3)}, k: 2,
			points: 3, value: 0.5, share: 0.5, unstable: true,
		},
		"the same grade every time is stable": {
			scores: []eval.Score{grade(5)}, k: 4,
			points: 5, value: 1, share: 1,
		},
		"defaulted samples are left out and counted": {
			scores: []eval.Score{grade(4), failed, grade(4)}, k: 3,
			points: 4, value: 0.75, share: 1, defaulted: 1,
		},
		"all defaulted is the default": {
			scores: []eval.Score{failed}, k: 2,
			points: 2.5, value: 0.5, defaulted: 2, isDefault: true,
		},
		"ratios use the verdict at the threshold": {
			scores: []eval.Score{ratio(0.6), ratio(0.65), ratio(0.8)},
			k:      3, threshold: 0.7,
			points: 0.6833333333333333, value: 0.6833333333333333, share: 2.0 / 3, unstable: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := judges.Sampled{Scorer: scripted{scores: tc.scores, n: &atomic.Int64{}}, K: tc.k, Threshold: tc.threshold}
			sc, err := s.Score(t.Context(), eval.Sample{})
			require.NoError(t, err)
			assert.InDelta(t, tc.points, sc.Points, 1e-12)
			assert.InDelta(t, tc.value, sc.Value, 1e-12)
			assert.Equal(t, tc.isDefault, sc.Defaulted)
			assert.Equal(t, tc.k, sc.Usage.Calls)
			c := sc.Evidence.Counts
			assert.InDelta(t, tc.defaulted, c[judges.CountSamplesDefaulted], 0)
			if !tc.isDefault {
				assert.InDelta(t, tc.share, c[judges.CountMajorityShare], 1e-12)
			}
			if tc.points == math.Trunc(tc.points) && !tc.isDefault {
				assert.InDelta(t, tc.points, c["own"], 0, "the evidence is the majority's")
			}
			assert.Equal(t, tc.unstable, judges.Unstable(sc))
			if tc.reason != "" {
				assert.Equal(t, tc.reason, sc.Reason)
			}
		})
	}
	// The asks' own count maps are never written to.
	own := grade(3)
	_, err := judges.Sampled{Scorer: scripted{scores: []eval.Score{own}, n: &atomic.Int64{}}, K: 2}.Score(t.Context(), eval.Sample{})
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"own": 3}, own.Evidence.Counts)
}

func TestCheckSamples(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	model := sampledClient(t, srv, "")
	tests := map[string]struct {
		k       int
		model   judges.Model
		err     string
		offline bool
	}{
		"one offline is fine":   {k: 1},
		"one with a model":      {k: 1, model: model},
		"three with a model":    {k: 3, model: model},
		"three offline refused": {k: 3, err: "--samples 3: --samples above 1 needs a model", offline: true},
		"zero refused":          {k: 0, model: model, err: "--samples 0: ask the model at least once"},
		"the most with a model": {k: judges.MaxSamples, model: model},
		"one past the most":     {k: judges.MaxSamples + 1, model: model, err: "--samples 101: want at most 100 asks per judgement"},
		"a huge count":          {k: 99999999999, model: model, err: "--samples 99999999999: want at most 100 asks per judgement"},
		"a huge count offline":  {k: 99999999999, err: "--samples 99999999999: want at most 100", offline: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := judges.CheckSamples(tc.k, tc.model)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
			assert.Equal(t, tc.offline, errors.Is(err, judges.ErrOfflineSamples))
		})
	}
}

func TestUnsampledScoreIsNeverUnstable(t *testing.T) {
	t.Parallel()
	assert.False(t, judges.Unstable(eval.Score{Value: 0.3}))
	assert.False(t, judges.Unstable(grade(2)))
}

// Each sampled judgement carries its pass rate across the draws with its
// Wilson interval; one that passes in some draws and fails in others is
// a weak pass.
func TestSampledDrawPassRateAndWeakPass(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		draws     []eval.Score
		threshold float64
		passes    float64
		lo, hi    float64
		weak      bool
	}{
		"passes every draw":  {draws: []eval.Score{ratio(0.9)}, passes: 5, lo: 0.5655, hi: 1},
		"fails every draw":   {draws: []eval.Score{ratio(0.1)}, passes: 0, lo: 0, hi: 0.4345},
		"flips":              {draws: []eval.Score{ratio(0.9), ratio(0.2), ratio(0.8)}, passes: 3, lo: 0.2307, hi: 0.8824, weak: true},
		"flips at its mark":  {draws: []eval.Score{ratio(0.6), ratio(0.8)}, threshold: 0.7, passes: 2, lo: 0.1176, hi: 0.7693, weak: true},
		"a graded judgement": {draws: []eval.Score{grade(5), grade(1)}, passes: 3, lo: 0.2307, hi: 0.8824, weak: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := judges.Sampled{Scorer: scripted{scores: tc.draws, n: new(atomic.Int64)}, K: 5, Threshold: tc.threshold}.Score(t.Context(), sampledSample)
			require.NoError(t, err)
			c := sc.Evidence.Counts
			assert.InDelta(t, tc.passes, c[judges.CountDrawPasses], 0)
			assert.InDelta(t, tc.passes/5, c[judges.CountDrawPassRate], 1e-12)
			assert.InDelta(t, tc.lo, c[judges.CountDrawPassLo], 1e-4)
			assert.InDelta(t, tc.hi, c[judges.CountDrawPassHi], 1e-4)
			assert.Equal(t, tc.weak, judges.WeakPass(sc))
		})
	}
	assert.False(t, judges.WeakPass(ratio(0.5)), "an unsampled score is never a weak pass")
}
