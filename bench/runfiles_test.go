package bench

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func TestReadResults(t *testing.T) {
	t.Parallel()
	a := `{"id":"s1","metric":"faithfulness","value":1}` + "\n"
	b := `{"id":"s2","metric":"faithfulness","value":0.5,"defaulted":true,"error":"status 500"}` + "\n"
	tests := map[string]struct {
		file  string
		keys  []Key
		torn  bool
		size  int
		err   string
		value float64 // of the last key
	}{
		"whole lines":                 {file: a + b, keys: []Key{{"s1", "faithfulness"}, {"s2", "faithfulness"}}, size: len(a + b), value: 0.5},
		"a torn last line is dropped": {file: a + `{"id":"s2","met`, keys: []Key{{"s1", "faithfulness"}}, torn: true, size: len(a), value: 1},
		"a pair written twice keeps its last line": {
			file: a + `{"id":"s1","metric":"faithfulness","value":0.25}` + "\n", keys: []Key{{"s1", "faithfulness"}}, size: len(a) + 49, value: 0.25,
		},
		"blank lines are passed over":            {file: a + "\n" + b, keys: []Key{{"s1", "faithfulness"}, {"s2", "faithfulness"}}, size: len(a+b) + 1, value: 0.5},
		"a bad whole line is an error naming it": {file: a + "{oops}\n" + b, err: "results.jsonl:2: not a result line"},
		"a line without its key is an error":     {file: `{"value":1}` + "\n", err: "results.jsonl:1: id: a result line needs id and metric"},
		"no file is no results":                  {file: "-", keys: nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), FileResults)
			if tc.file != "-" {
				require.NoError(t, os.WriteFile(path, []byte(tc.file), 0o644))
			}
			f, err := ReadResults(path)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			var got []Key
			for r := range f.All() {
				got = append(got, r.Key())
			}
			assert.Equal(t, tc.keys, got)
			assert.Equal(t, tc.torn, f.Torn)
			assert.Equal(t, int64(tc.size), f.Size)
			for _, k := range tc.keys {
				assert.True(t, f.Has(k))
			}
			assert.False(t, f.Has(Key{"nope", "faithfulness"}))
			if n := len(f.Results); n > 0 {
				assert.Equal(t, tc.value, f.Results[n-1].Value)
			}
		})
	}
}

func TestResultOfRoundTrips(t *testing.T) {
	t.Parallel()
	sc := eval.Score{Metric: "faithfulness", Value: 0.5, Points: 0.5, Max: 1, Method: "llm:x", Defaulted: true, Err: os.ErrDeadlineExceeded,
		Evidence: eval.Evidence{Issues: []string{"i"}}, Usage: eval.Usage{Calls: 2, TokensIn: 10}}
	r := ResultOf("s1", sc)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var back Result
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, r, back)
	assert.Equal(t, "i/o timeout", back.Error)
	assert.False(t, back.Counted())
}

func TestNumIsNullWhenUndefined(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(MetricStats{Metric: "m", Mean: Num(math.NaN()), Min: Num(math.Inf(1)), Max: 0.75})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"mean":null`)
	assert.Contains(t, string(b), `"min":null`)
	assert.Contains(t, string(b), `"max":0.75`)
	var back MetricStats
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, math.IsNaN(float64(back.Mean)))
	assert.Equal(t, Num(0.75), back.Max)
}

// TestReadResultsBounded: the bounded read keeps the samples with the
// lowest values (a default as lowest), in file order, and counts and
// values over the whole file.
func TestReadResultsBounded(t *testing.T) {
	t.Parallel()
	lines := `{"id":"a","metric":"m","value":0.9}
{"id":"b","metric":"m","value":0.1}
{"id":"c","metric":"m","value":0.5,"defaulted":true,"error":"status 500"}
{"id":"d","metric":"m","value":0.7}
{"id":"a","metric":"n","value":0.05}
{"id":"e","metric":"m","value":0,"skipped":true}
`
	path := filepath.Join(t.TempDir(), FileResults)
	require.NoError(t, os.WriteFile(path, []byte(lines), 0o644))
	tests := map[string]struct {
		show int
		ids  []string
	}{
		"the lowest three":   {show: 3, ids: []string{"a", "c", "e"}},
		"more than there is": {show: 10, ids: []string{"a", "b", "c", "d", "e"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := ReadResultsBounded(path, tc.show)
			require.NoError(t, err)
			var ids []string
			for r := range f.All() {
				if len(ids) == 0 || ids[len(ids)-1] != r.ID {
					if !slices.Contains(ids, r.ID) {
						ids = append(ids, r.ID)
					}
				}
			}
			assert.Equal(t, tc.ids, ids)
			require.NotNil(t, f.Bounded)
			assert.Equal(t, len(tc.ids), f.Bounded.Shown)
			assert.Equal(t, Bins{1: 1, 7: 1, 9: 1}, f.Bounded.Bins["m"])
			assert.Equal(t, Bins{0: 1}, f.Bounded.Bins["n"])
			assert.Equal(t, 1, f.Bounded.Defaulted)
			assert.Equal(t, 1, f.Bounded.Skipped)
		})
	}
}
