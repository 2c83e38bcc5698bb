package run

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// heldResults are n samples' results of three metrics as a run writes
// them, drawn with r: defaults, errors, skips, not evaluable
// conversations, ties, evidence, texts that are not UTF-8, and a cached
// result written before results counted cache hits.
func heldResults(r *rand.Rand, n int) []Result {
	var out []Result
	texts := []string{"plain", "bad \xff\xfe utf-8", `<b>"quoted"</b> & more`, "ผลตอบแทน", `a \ufffd written out`}
	for i := range n {
		id := fmt.Sprintf("s%d", i)
		for _, m := range []string{"faithfulness", "context_precision", "source_relevance"} {
			res := Result{ID: id, Metric: m, Value: float64(r.IntN(5)) / 4, Method: "llm:openai:fake",
				Reason: texts[r.IntN(len(texts))], Usage: eval.Usage{Calls: r.IntN(2), TokensIn: r.IntN(50), TokensOut: r.IntN(9)}}
			switch r.IntN(8) {
			case 0:
				res.Defaulted, res.Value, res.Error = true, 0.5, "status 500"
			case 1:
				res.Error = "reply did not match the schema"
			case 2:
				res.Skipped, res.Error = true, eval.NotEvaluable
			case 3:
				res.Skipped = true
			}
			if r.IntN(2) == 0 {
				res.Evidence = eval.Evidence{Claims: []eval.Claim{{Text: texts[r.IntN(len(texts))], Verdict: eval.VerdictSupported}},
					Counts: map[string]float64{"claims": 1}}
			}
			out = append(out, res)
		}
	}
	return out
}

// TestBoundedFromMemoryIsTheFiles holds what a new run chooses from the
// results it holds to what reading its results.jsonl chooses: the same
// results, bounds and order, for runs of every kind, a pair written twice
// (a queue's redelivery) among them.
func TestBoundedFromMemoryIsTheFiles(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		results func() []Result
		show    int
		also    []string
		holds   bool
	}{
		"a small run, all shown": {results: func() []Result { return heldResults(rand.New(rand.NewPCG(1, 2)), 20) }, show: 25, holds: true},
		"a run of 200, the lowest 134 a metric, some flipped": {
			results: func() []Result { return heldResults(rand.New(rand.NewPCG(3, 4)), 200) }, show: 134, also: []string{"s5", "s2000", "nowhere"}, holds: true,
		},
		"a pair written twice, and a default then its value": {results: func() []Result {
			rs := heldResults(rand.New(rand.NewPCG(5, 6)), 30)
			again := rs[4]
			again.Value, again.Reason = 0.125, "written again"
			def := rs[7]
			def.Defaulted, def.Error = true, "status 503"
			then := rs[7]
			then.Value = 0.875
			return append(append(rs[:7], def, then), append(rs[8:], again)...)
		}, show: 3, holds: true},
		"more than MaxHeld: read from the file": {results: func() []Result { return heldResults(rand.New(rand.NewPCG(7, 8)), MaxHeld/3+1) }, show: 50},
		"a result without an id: read from the file": {results: func() []Result {
			return append(heldResults(rand.New(rand.NewPCG(9, 10)), 3), Result{Metric: "faithfulness"})
		}, show: 5},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r, err := Create(dir, testConfig())
			require.NoError(t, err)
			for _, res := range tc.results() {
				require.NoError(t, r.Append(res))
			}
			assert.Equal(t, tc.holds, r.holding)
			got, gotErr := r.Bounded(tc.show, tc.also...)
			require.NoError(t, r.Close())
			want, wantErr := ReadResultsBounded(filepath.Join(dir, FileResults), tc.show, tc.also...)
			if wantErr != nil {
				assert.EqualError(t, gotErr, wantErr.Error())
				return
			}
			require.NoError(t, gotErr)
			assert.Equal(t, want, got)
			assert.NotEmpty(t, got.Results)
		})
	}
}

// TestResumedRunReadsTheFile: a resumed run holds none of its results,
// so the earlier attempts' lines are chosen from too.
func TestResumedRunReadsTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := Create(dir, testConfig())
	require.NoError(t, err)
	require.NoError(t, r.Append(Result{ID: "s1", Metric: "faithfulness", Value: 0.25}))
	require.NoError(t, r.Close())
	r, err = Resume(dir, testConfig())
	require.NoError(t, err)
	require.NoError(t, r.Append(Result{ID: "s2", Metric: "faithfulness", Value: 0.75}))
	got, err := r.Bounded(5)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	var ids []string
	for res := range got.All() {
		ids = append(ids, res.ID)
	}
	assert.Equal(t, []string{"s1", "s2"}, ids)
	assert.Equal(t, 2, got.Bounded.Shown)
}
