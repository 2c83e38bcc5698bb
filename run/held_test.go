package run

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

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

// TestAppendedLinesAreMarshalled: each line of results.jsonl is
// json.Marshal's encoding of its result, byte for byte, when results are
// appended from many goroutines at once (their encoding buffers are
// shared among them): HTML, text that is not UTF-8, evidence, usage.
func TestAppendedLinesAreMarshalled(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ samples, writers int }{
		"one writer":    {samples: 30, writers: 1},
		"eight writers": {samples: 200, writers: 8},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			results := heldResults(rand.New(rand.NewPCG(7, uint64(tc.writers))), tc.samples)
			results[0].Reason = strings.Repeat("long reason ", 2000) // a buffer grown, then reused for short lines
			dir := t.TempDir()
			r, err := Create(dir, testConfig())
			require.NoError(t, err)
			var g errgroup.Group
			for w := range tc.writers {
				g.Go(func() error {
					for i := w; i < len(results); i += tc.writers {
						if err := r.Append(results[i]); err != nil {
							return err
						}
					}
					return nil
				})
			}
			require.NoError(t, g.Wait())
			require.NoError(t, r.Close())
			want := map[Key]string{}
			for _, res := range results {
				b, err := json.Marshal(res)
				require.NoError(t, err)
				want[res.Key()] = string(b)
			}
			data, err := os.ReadFile(filepath.Join(dir, FileResults))
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			require.Len(t, lines, len(results))
			for _, line := range lines {
				var res Result
				require.NoError(t, json.Unmarshal([]byte(line), &res))
				assert.Equal(t, want[res.Key()], line, "%s %s", res.ID, res.Metric)
			}
		})
	}
}

// TestExpectedResultsAreHeldInPlace: after Expect, the results appended
// are held in the array Expect made, not one grown as they came, up to
// MaxHeld expected.
func TestExpectedResultsAreHeldInPlace(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ expect, append, wantCap int }{
		"as many as expected": {expect: 300, append: 300, wantCap: 300},
		"fewer":               {expect: 300, append: 10, wantCap: 300},
		"as many as held":     {expect: MaxHeld, append: 3, wantCap: MaxHeld},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := Create(t.TempDir(), testConfig())
			require.NoError(t, err)
			defer func() { _ = r.Close() }()
			r.Expect(tc.expect)
			array := unsafe.SliceData(r.held[:1])
			assert.GreaterOrEqual(t, cap(r.held), tc.wantCap)
			assert.Less(t, cap(r.held), tc.wantCap+tc.wantCap/8+8, "about what was asked")
			for i := range tc.append {
				require.NoError(t, r.Append(Result{ID: fmt.Sprintf("s%d", i), Metric: "faithfulness", Value: 1}))
			}
			assert.Len(t, r.held, tc.append)
			assert.Same(t, array, unsafe.SliceData(r.held[:1]))
		})
	}
}

// TestTooManyExpectedMakesNothing: a run about to write more results
// than it holds makes no room for them.
func TestTooManyExpectedMakesNothing(t *testing.T) {
	t.Parallel()
	r, err := Create(t.TempDir(), testConfig())
	require.NoError(t, err)
	defer func() { _ = r.Close() }()
	r.Expect(MaxHeld + 1)
	assert.Zero(t, cap(r.held))
	require.NoError(t, r.Append(Result{ID: "s1", Metric: "faithfulness", Value: 1}))
	assert.Len(t, r.held, 1)
}
