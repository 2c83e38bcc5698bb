package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	runpkg "github.com/assaylabs/assay/run"
)

const labelled = "../../fixtures/rag/labelled.jsonl"

// flipBySeed answers like llmtest.JudgeReplies, except that faithfulness
// verdicts depend on the request's seed, the sample's index: sample 1
// supports no claim, the others both. Every sampled judgement is then
// 1, 0, 1 over three samples, whatever order the calls come in.
func flipBySeed(req openai.ChatCompletionRequest) llmtest.Reply {
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name == "verdicts" {
		v := "supported"
		if req.Seed != nil && *req.Seed == 1 {
			v = "unsupported"
		}
		return llmtest.Reply{Content: `{"verdicts":[{"statement":1,"verdict":"` + v + `","context":"c1","reason":"fake"},` +
			`{"statement":2,"verdict":"` + v + `","context":"c1","reason":"fake"}]}`}
	}
	return distinct(req)
}

// distinct answers like llmtest.JudgeReplies, except that the claims it
// extracts name the prompt they come from: records that share their
// contexts then never share a verification request, which the client's
// deduplication would merge as it pleases, and the count of calls is
// exact.
func distinct(req openai.ChatCompletionRequest) llmtest.Reply {
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name == "claims" {
		h := sha256.Sum256([]byte(req.Messages[len(req.Messages)-1].Content))
		return llmtest.Reply{Content: fmt.Sprintf(`{"claims":["The first claim of %x.","The second claim of %x."]}`, h[:6], h[:6])}
	}
	return llmtest.JudgeReplies(req)
}

func TestSamplesMultiplyCalls(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args func(dir string) []string
		// unstable is the end of the stderr summary line at --samples 3.
		unstable string
	}{
		"judge": {
			args: func(string) []string {
				return []string{"judge", "--metric", "faithfulness", "--format", "json", labelled}
			},
			unstable: "; unstable 0 of 6 judgement(s) over 3 samples (majority share below 1 or spread std above 0.1), weak passes 0\n",
		},
		"agree": {
			args: func(string) []string {
				return []string{"agree", "--metric", "faithfulness", "--label", "faithful", labelled}
			},
			unstable: "; unstable 0 of 6 judgement(s) over 3 samples (majority share below 1 or spread std above 0.1), weak passes 0\n",
		},
		"bench": {
			args: func(dir string) []string {
				return []string{"bench", "--metric", "faithfulness", "--out", filepath.Join(dir, "run"), labelled}
			},
			unstable: "; unstable 0 of 6 judgement(s) over 3 samples (majority share below 1 or spread std above 0.1), weak passes 0\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			calls := map[int]int{}
			for _, k := range []int{1, 3} {
				srv := llmtest.New(t, llmtest.Func(distinct))
				env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(),
					"ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}
				args := append(tc.args(t.TempDir()), "--samples", strconv.Itoa(k))
				code, _, errOut := runEnv(t, env, args...)
				require.Equal(t, 0, code, errOut)
				calls[k] = srv.Calls()
				if k == 1 {
					assert.NotContains(t, errOut, "unstable")
				} else {
					assert.Contains(t, errOut, tc.unstable)
				}
			}
			require.Positive(t, calls[1])
			assert.Equal(t, 3*calls[1], calls[3], "--samples 3 makes three times the calls of --samples 1")
		})
	}
}

func TestSamplesReportAnInconsistentJudge(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(flipBySeed))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
	code, out, errOut := runEnv(t, env, "judge", "--samples", "3", "--metric", "faithfulness", "--format", "json", labelled)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "; unstable 6 of 6 judgement(s) over 3 samples (majority share below 1 or spread std above 0.1), weak passes 6")
	var results []struct {
		Value    float64 `json:"value"`
		Evidence struct {
			Counts map[string]float64 `json:"counts"`
		} `json:"evidence"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &results))
	require.Len(t, results, 6)
	for _, r := range results {
		assert.InDelta(t, 2.0/3, r.Value, 1e-4, "the mean of 1, 0, 1, printed to four places")
		assert.InDelta(t, 3, r.Evidence.Counts["samples"], 0)
		assert.InDelta(t, 2.0/3, r.Evidence.Counts["majority_share"], 1e-4)
		assert.InDelta(t, 0.4714045207910317, r.Evidence.Counts["spread_std"], 1e-4)
	}

	// bench keeps the count in summary.json and prints it after its table.
	dir := filepath.Join(t.TempDir(), "run")
	env["ASSAY_DATA_DIR"] = t.TempDir()
	code, out, errOut = runEnv(t, env, "bench", "--samples", "3", "--metric", "faithfulness", "--out", dir, labelled)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "faithfulness: unstable 6 of 6 sampled judgement(s) (majority share below 1 or spread std above 0.1); weak passes 6 (passed in some draws, failed in others)\n")
	data, err := os.ReadFile(filepath.Join(dir, runpkg.FileSummary))
	require.NoError(t, err)
	var s runpkg.Summary
	require.NoError(t, json.Unmarshal(data, &s))
	require.Len(t, s.Metrics, 1)
	assert.Equal(t, 6, s.Metrics[0].Sampled)
	assert.Equal(t, 6, s.Metrics[0].Unstable)
}

func TestSamplesBadInput(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	model := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	offline := map[string]string{}
	tests := map[string]struct {
		env  map[string]string
		args []string
		err  string
	}{
		"judge offline": {
			env: offline, args: []string{"judge", "--samples", "3", "--metric", "faithfulness", labelled},
			err: "--samples 3: --samples above 1 needs a model: the offline judges are deterministic",
		},
		"agree offline": {
			env: offline, args: []string{"agree", "--samples", "2", "--metric", "faithfulness", "--label", "faithful", labelled},
			err: "--samples 2: --samples above 1 needs a model",
		},
		"bench offline": {
			env: offline, args: []string{"bench", "--samples", "2", "--metric", "faithfulness", labelled},
			err: "--samples 2: --samples above 1 needs a model",
		},
		"zero samples": {
			env: model, args: []string{"judge", "--samples", "0", "--metric", "faithfulness", labelled},
			err: "--samples 0: ask the model at least once per judgement",
		},
		"agree on precomputed scores": {
			env: model, args: []string{"agree", "--samples", "3", "--score", "meta.judge_score", "--label", "relevant", "../../fixtures/rag/graded.jsonl"},
			err: "--samples 3: only a judge run now (--metric, no stored run) asks a model",
		},
		"bench with a profile": {
			env: model, args: []string{"bench", "--samples", "3", "--profile", "context", labelled},
			err: "--samples 3: self-consistency is measured on judges named with --metric",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}
			for k, v := range tc.env {
				env[k] = v
			}
			args := tc.args
			if args[0] == "bench" {
				args = append([]string{args[0], "--out", filepath.Join(t.TempDir(), "run")}, args[1:]...)
			}
			code, out, errOut := runEnv(t, env, args...)
			assert.Equal(t, 2, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tc.err)
		})
	}
	assert.Zero(t, srv.Calls(), "bad input makes no call")
}

// flipShelley answers like distinct, except that the faithfulness
// verdicts of the two samples about Frankenstein (their contexts name
// Shelley) are unsupported in draw 1 of each sampled judgement: those two
// pass in draws 0 and 2 and fail in draw 1, the others pass in all.
func flipShelley(req openai.ChatCompletionRequest) llmtest.Reply {
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name == "verdicts" {
		v := "supported"
		if req.Seed != nil && *req.Seed == 1 && strings.Contains(req.Messages[len(req.Messages)-1].Content, "Shelley") {
			v = "unsupported"
		}
		return llmtest.Reply{Content: `{"verdicts":[{"statement":1,"verdict":"` + v + `","context":"c1","reason":"fake"},` +
			`{"statement":2,"verdict":"` + v + `","context":"c1","reason":"fake"}]}`}
	}
	return distinct(req)
}

// --samples shows each sample's pass rate across the draws, counts the
// weak passes in summary.json and after bench's table, and the gate
// weak_passes fails a run with too many (exit 1).
func TestSamplesWeakPassesAndTheirGate(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		gate string
		code int
	}{
		"no gate":                  {code: 0},
		"a gate the run meets":     {gate: "faithfulness.weak_passes<=2", code: 0},
		"a gate the run exceeds":   {gate: "faithfulness.weak_passes<=1", code: 1},
		"a gate of no weak passes": {gate: "faithfulness.weak_passes<1", code: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(flipShelley))
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(),
				"ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"bench", "--samples", "3", "--metric", "faithfulness", "--out", dir, labelled}
			if tc.gate != "" {
				args = append(args, "--gate", tc.gate)
			}
			code, out, errOut := runEnv(t, env, args...)
			require.Equal(t, tc.code, code, errOut)
			assert.Contains(t, out, "; weak passes 2 (passed in some draws, failed in others)\n")

			data, err := os.ReadFile(filepath.Join(dir, runpkg.FileSummary))
			require.NoError(t, err)
			var s runpkg.Summary
			require.NoError(t, json.Unmarshal(data, &s))
			require.Len(t, s.Metrics, 1)
			assert.Equal(t, 6, s.Metrics[0].Sampled)
			assert.Equal(t, 2, s.Metrics[0].WeakPasses)

			res, err := runpkg.ReadResults(filepath.Join(dir, runpkg.FileResults))
			require.NoError(t, err)
			rates := map[string]float64{}
			for _, r := range res.Results {
				rates[r.ID] = r.Evidence.Counts["draw_pass_rate"]
				assert.InDelta(t, 3, r.Evidence.Counts["samples"], 0)
				assert.Equal(t, "0 1 2", r.Usage.Seeds, "each draw's seed is recorded")
			}
			assert.Equal(t, map[string]float64{"r1": 1, "r2": 1, "r3": 2.0 / 3, "r4": 2.0 / 3, "r5": 1, "r6": 1}, rates)
		})
	}
}

// A rerun served wholly from the cache is byte for byte the same
// judgement: compared with the run it replays (--baseline), it reports no
// regression, no alert and no flip, and names the same model build.
func TestCachedRerunReportsNoRegression(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ samples string }{
		"one draw":    {samples: "1"},
		"three draws": {samples: "3"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
				r := flipShelley(req)
				r.Fingerprint = "fp_stable"
				return r
			}))
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(),
				"ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}
			first, again := filepath.Join(t.TempDir(), "first"), filepath.Join(t.TempDir(), "again")
			code, _, errOut := runEnv(t, env, "bench", "--samples", tc.samples, "--metric", "faithfulness", "--out", first, labelled)
			require.Equal(t, 0, code, errOut)
			calls := srv.Calls()
			require.Positive(t, calls)

			code, out, errOut := runEnv(t, env, "bench", "--samples", tc.samples, "--metric", "faithfulness", "--out", again, "--baseline", first, labelled)
			require.Equal(t, 0, code, out+errOut)
			assert.Equal(t, calls, srv.Calls(), "the rerun is served from the cache")
			assert.NotContains(t, out+errOut, "alert(s)")
			assert.NotContains(t, out+errOut, "regression")

			data, err := os.ReadFile(filepath.Join(again, runpkg.FileSummary))
			require.NoError(t, err)
			var s runpkg.Summary
			require.NoError(t, json.Unmarshal(data, &s))
			assert.Empty(t, s.Alerts)
			require.NotNil(t, s.Baseline)
			require.Len(t, s.Baseline.Metrics, 1)
			m := s.Baseline.Metrics[0]
			assert.Equal(t, 6, m.Paired)
			assert.InDelta(t, 0, float64(m.Delta), 0)
			assert.Zero(t, m.NowFailing)
			assert.Zero(t, m.NowPassing)
			assert.Empty(t, m.Flipped)
			assert.Equal(t, "fp_stable", s.Metrics[0].Fingerprints, "the cached replies name the build that gave them")
			assert.Equal(t, "fp_stable", s.Usage.Fingerprints)

			base, err := os.ReadFile(filepath.Join(first, runpkg.FileResults))
			require.NoError(t, err)
			cur, err := os.ReadFile(filepath.Join(again, runpkg.FileResults))
			require.NoError(t, err)
			assert.Equal(t, values(t, base), values(t, cur), "the same value and reason for every sample")
		})
	}
}

// values is each result's id with its value and reason, from
// results.jsonl's bytes.
func values(t *testing.T, results []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(results)), "\n") {
		var r struct {
			ID     string  `json:"id"`
			Value  float64 `json:"value"`
			Reason string  `json:"reason"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		out[r.ID] = fmt.Sprint(r.Value, " ", r.Reason)
	}
	return out
}
