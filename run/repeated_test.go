package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestResumeSetsAsideLinesAfterAFinalResult: a run writes a pair again
// only after a default or an error, so a line of a pair after its final
// result (a line copied, or edited in by hand) is set aside in
// results.bad.jsonl on resume, the pair keeping its first result: its
// usage is not counted twice, its value is the one judged, and readers
// that stream results.jsonl see the pair once. A default judged again is
// kept as it was (the later line supersedes it, both spent).
func TestResumeSetsAsideLinesAfterAFinalResult(t *testing.T) {
	t.Parallel()
	type res struct {
		id        string
		value     float64
		defaulted bool
	}
	tests := map[string]struct {
		lines      []res
		crlf       bool
		repeated   int
		mean       float64
		calls      int
		resultsN   int
		badLines   int
		judgeAgain bool
	}{
		"an exact copy of a final line": {lines: []res{{"s1", 0.25, false}, {"s2", 0.75, false}, {"s1", 0.25, false}},
			repeated: 1, mean: 0.5, calls: 2, resultsN: 2, badLines: 1},
		"a copy with CRLF endings": {lines: []res{{"s1", 0.25, false}, {"s2", 0.75, false}, {"s1", 0.25, false}}, crlf: true,
			repeated: 1, mean: 0.5, calls: 2, resultsN: 2, badLines: 1},
		"another value edited in after a final one": {lines: []res{{"s1", 0.25, false}, {"s2", 0.75, false}, {"s1", 1, false}},
			repeated: 1, mean: 0.5, calls: 2, resultsN: 2, badLines: 1},
		"a default after a final result": {lines: []res{{"s1", 0.25, false}, {"s1", 0.5, true}, {"s2", 0.75, false}},
			repeated: 1, mean: 0.5, calls: 2, resultsN: 2, badLines: 1},
		"a default judged again is no repeat": {lines: []res{{"s1", 0.5, true}, {"s1", 0.25, false}, {"s2", 0.75, false}},
			repeated: 0, mean: 0.5, calls: 3, resultsN: 3, badLines: 0},
		"a default alone is judged again": {lines: []res{{"s1", 0.5, true}, {"s2", 0.75, false}},
			repeated: 0, mean: 0.75, calls: 2, resultsN: 2, badLines: 0, judgeAgain: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			cfg := testConfig()
			cfg.Metrics = []string{"m1"}
			r, err := Create(dir, cfg)
			require.NoError(t, err)
			require.NoError(t, r.Close())
			var b strings.Builder
			for _, l := range tc.lines {
				line, err := json.Marshal(Result{ID: l.id, Metric: "m1", Value: l.value, Defaulted: l.defaulted, Usage: eval.Usage{Calls: 1, TokensIn: 10}})
				require.NoError(t, err)
				b.Write(line)
				if tc.crlf {
					b.WriteByte('\r')
				}
				b.WriteByte('\n')
			}
			results := filepath.Join(dir, FileResults)
			require.NoError(t, os.WriteFile(results, []byte(b.String()), 0o644))

			r, err = Resume(dir, cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.repeated, r.Repeated())
			assert.Equal(t, 0, r.SetAside())
			assert.True(t, r.Done(Key{"s2", "m1"}))
			assert.Equal(t, !tc.judgeAgain, r.Done(Key{"s1", "m1"}))
			s := r.Summary(2, time.Time{}, nil)
			require.NoError(t, r.Close())
			assert.InDelta(t, tc.mean, float64(s.Metrics[0].Mean), 1e-12)
			assert.Equal(t, tc.calls, s.Usage.Calls, "what the run spent, each line once")

			var streamed []string
			require.NoError(t, EachResult(results, func(res Result) { streamed = append(streamed, res.ID) }))
			assert.ElementsMatch(t, []string{"s1", "s2"}, streamed, "each pair once")
			lines, err := os.ReadFile(results)
			require.NoError(t, err)
			assert.Equal(t, tc.resultsN, strings.Count(string(lines), "\n"))
			bad, err := os.ReadFile(filepath.Join(dir, FileBad))
			if tc.badLines == 0 {
				assert.True(t, os.IsNotExist(err), "nothing set aside")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.badLines, strings.Count(string(bad), "\n"), "nothing lost: the line set aside is kept")
		})
	}
}
