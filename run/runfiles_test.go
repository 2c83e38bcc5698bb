package run

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		"a line without its key is an error":     {file: `{"value":1}` + "\n", err: "results.jsonl:1: id: missing: a result line needs id and metric"},
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

// TestResultLineErrorsNameTheField: a whole line of results.jsonl that is
// no result is an error naming the file, the line and the field at fault,
// as the line spells it, whether the whole result is read or its head.
func TestResultLineErrorsNameTheField(t *testing.T) {
	t.Parallel()
	good := `{"id":"s1","metric":"faithfulness","value":1}` + "\n"
	tests := map[string]struct {
		line, want string
	}{
		"no id":              {line: `{"metric":"faithfulness","value":1}`, want: "results.jsonl:2: id: missing: a result line needs id and metric"},
		"no metric":          {line: `{"id":"s2","value":1}`, want: "results.jsonl:2: metric: missing: a result line needs id and metric"},
		"an empty metric":    {line: `{"id":"s2","metric":"","value":1}`, want: "results.jsonl:2: metric: missing: a result line needs id and metric"},
		"a value as text":    {line: `{"id":"s2","metric":"faithfulness","value":"high"}`, want: "results.jsonl:2: value: not a result line: want a number, got string"},
		"a number as the id": {line: `{"id":2,"metric":"faithfulness","value":1}`, want: "results.jsonl:2: id: not a result line: want a string, got number"},
		"no object":          {line: `[1, 2]`, want: "results.jsonl:2: not a result line: json: cannot unmarshal array"},
		"not JSON":           {line: `{oops}`, want: "results.jsonl:2: not a result line: invalid character"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), FileResults)
			require.NoError(t, os.WriteFile(path, []byte(good+tc.line+"\n"), 0o644))
			_, err := ReadResults(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.ErrorAs(t, err, new(*eval.InputError))
			err = EachResult(path, func(Result) {})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.ErrorAs(t, err, new(*eval.InputError))
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
	// All that is written comes back; the error's chain (cause) is not
	// written, its text is.
	want := r
	want.cause = nil
	assert.Equal(t, want, back)
	assert.Equal(t, "i/o timeout", back.Error)
	assert.False(t, back.Counted())
}

// TestResultOfBoundsTexts: a model that answers at length (a reason, an
// error and evidence of near a megabyte each, within the reply cap) makes
// a result line of a few kilobytes per text, each cut text marked.
func TestResultOfBoundsTexts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 200_000) // 1 MB
	sc := eval.Score{Metric: "faithfulness", Value: 0.5, Reason: long, Err: errors.New(long),
		Evidence: eval.Evidence{Claims: []eval.Claim{{Text: long, Verdict: eval.VerdictUnsupported}}, Gaps: []string{long}, Issues: []string{"short"}}}
	r := ResultOf("s1", sc)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Less(t, len(b), 5*eval.MaxText, "four texts of at most eval.MaxText bytes, and the rest")
	for _, s := range []string{r.Reason, r.Error, r.Evidence.Claims[0].Text, r.Evidence.Gaps[0]} {
		assert.Contains(t, s, eval.CutMarker)
	}
	assert.Equal(t, "short", r.Evidence.Issues[0])
	assert.Equal(t, long, sc.Evidence.Claims[0].Text, "the score is left as it was")
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

// TestReadResultsBounded: the bounded read keeps, for each metric, the
// samples with its lowest values (a default or a skip as lowest, ties to
// the first in SampleOrder), and the samples asked for besides, in file
// order, and counts and values over the whole file.
func TestReadResultsBounded(t *testing.T) {
	t.Parallel()
	lines := `{"id":"a","metric":"m","value":0.9}
{"id":"b","metric":"m","value":0.1}
{"id":"c","metric":"m","value":0.5,"defaulted":true,"error":"status 500"}
{"id":"d","metric":"m","value":0.7}
{"id":"a","metric":"n","value":0.05}
{"id":"e","metric":"m","value":0,"skipped":true}
{"id":"d","metric":"n","value":0.6}
`
	path := filepath.Join(t.TempDir(), FileResults)
	require.NoError(t, os.WriteFile(path, []byte(lines), 0o644))
	tests := map[string]struct {
		show int
		also []string
		ids  []string
		// extra is how many of also were shown besides the lowest.
		extra int
	}{
		// m: c and e (a default and a skip) then b; n: a then d.
		"the lowest three of each metric": {show: 3, ids: []string{"a", "b", "c", "d", "e"}},
		"the lowest of each":              {show: 1, ids: []string{"a", "c"}},
		// n's lowest two are a and d, m's c and e.
		"the lowest two of each":       {show: 2, ids: []string{"a", "c", "d", "e"}},
		"more than there is":           {show: 10, ids: []string{"a", "b", "c", "d", "e"}},
		"and those asked for":          {show: 1, also: []string{"d", "zz", "c"}, ids: []string{"a", "c", "d"}, extra: 1},
		"asked for, already the worst": {show: 1, also: []string{"a"}, ids: []string{"a", "c"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := ReadResultsBounded(path, tc.show, tc.also...)
			require.NoError(t, err)
			var ids []string
			for r := range f.All() {
				if !slices.Contains(ids, r.ID) {
					ids = append(ids, r.ID)
				}
			}
			assert.Equal(t, tc.ids, ids)
			require.NotNil(t, f.Bounded)
			assert.Equal(t, len(tc.ids), f.Bounded.Shown)
			assert.Equal(t, tc.show, f.Bounded.Lowest)
			assert.Equal(t, tc.extra, f.Bounded.Also)
			assert.Equal(t, Bins{1: 1, 7: 1, 9: 1}, f.Bounded.Bins["m"])
			assert.Equal(t, Bins{0: 1, 6: 1}, f.Bounded.Bins["n"])
			assert.Equal(t, 1, f.Bounded.Defaulted)
			assert.Equal(t, 1, f.Bounded.Skipped)
		})
	}
}

func TestSampleOrder(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		a, b string
		want int
	}{
		"numbers as numbers":         {"s2", "s10", -1},
		"line ids in dataset order":  {"line-9", "line-10", -1},
		"the same id":                {"s2", "s2", 0},
		"text as text":               {"b", "a", 1},
		"a prefix first":             {"ab", "abc", -1},
		"numbers further on":         {"x10y2", "x10y10", -1},
		"bare numbers":               {"10", "9", 1},
		"leading zeros then as text": {"s02", "s2", -1},
		"zero-padded ids":            {"s009", "s010", -1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, SampleOrder(tc.a, tc.b))
			assert.Equal(t, -tc.want, SampleOrder(tc.b, tc.a), "antisymmetric")
		})
	}
}

// TestReadResultsBoundedSupersededAndOrder: the samples shown are the
// same whatever order their results were written in (ties go to the first
// in SampleOrder), and a default judged again counts as its new value.
func TestReadResultsBoundedSupersededAndOrder(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"id":"s1","metric":"m","value":0.5,"defaulted":true,"error":"status 500"}`,
		`{"id":"s10","metric":"m","value":0.4}`,
		`{"id":"s3","metric":"m","value":0.4}`,
		`{"id":"s2","metric":"m","value":0.4}`,
		`{"id":"s4","metric":"m","value":0.8}`,
		`{"id":"s1","metric":"m","value":0.9}`,
	}
	tests := map[string][]int{
		"as judged":     {0, 1, 2, 3, 4, 5},
		"another order": {4, 3, 2, 1, 0, 5},
	}
	for name, order := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			for _, i := range order {
				b.WriteString(lines[i] + "\n")
			}
			path := filepath.Join(t.TempDir(), FileResults)
			require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
			f, err := ReadResultsBounded(path, 2)
			require.NoError(t, err)
			var ids []string
			for r := range f.All() {
				ids = append(ids, r.ID)
			}
			slices.SortFunc(ids, SampleOrder)
			assert.Equal(t, []string{"s2", "s3"}, ids)
			assert.Equal(t, 0, f.Bounded.Defaulted, "the default was judged again")
			assert.Equal(t, Bins{4: 3, 8: 1, 9: 1}, f.Bounded.Bins["m"])
		})
	}
}

// TestReadResultsOldCachedTokens: a result written before results
// counted cache hits, with tokens but no call, was answered from the
// cache: it is read as cached tokens, not paid ones; results with calls
// keep what they paid.
func TestReadResultsOldCachedTokens(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		line string
		want eval.Usage
	}{
		"an old cached reply": {`{"id":"a","metric":"faithfulness","value":1,"usage":{"tokens_in":300,"tokens_out":20}}`,
			eval.Usage{CacheHits: 1, CachedTokensIn: 300, CachedTokensOut: 20}},
		"a paid call": {`{"id":"a","metric":"faithfulness","value":1,"usage":{"calls":2,"tokens_in":300,"tokens_out":20,"cost_usd":0.5}}`,
			eval.Usage{Calls: 2, TokensIn: 300, TokensOut: 20, CostUSD: 0.5}},
		"a new cached reply": {`{"id":"a","metric":"faithfulness","value":1,"usage":{"cache_hits":2,"cached_tokens_in":300,"cached_tokens_out":20}}`,
			eval.Usage{CacheHits: 2, CachedTokensIn: 300, CachedTokensOut: 20}},
		"no usage": {`{"id":"a","metric":"faithfulness","value":1}`, eval.Usage{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "results.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tc.line+"\n"), 0o644))
			f, err := ReadResults(path)
			require.NoError(t, err)
			require.Len(t, f.Results, 1)
			assert.Equal(t, tc.want, f.Results[0].Usage)
			ms := Summarize(f.Results, nil)
			require.Len(t, ms, 1)
			assert.Equal(t, tc.want.TokensIn, ms[0].TokensIn)
			assert.Equal(t, tc.want.CachedTokensIn, ms[0].CachedTokensIn)
			assert.Equal(t, tc.want.CacheHits, ms[0].CacheHits)
		})
	}
}

// TestReadingLinesLongerThanTheBuffer: a result whose evidence makes its
// line longer than the reader's buffer, wherever it is in the file, is
// read whole by each reader, and a torn last line is still left out.
func TestReadingLinesLongerThanTheBuffer(t *testing.T) {
	t.Parallel()
	long := func(id string, n int) string {
		return `{"id":"` + id + `","metric":"m","value":0.2,"reason":"` + strings.Repeat("x", n) + `"}` + "\n"
	}
	tests := map[string]struct {
		lines string
		ids   []string
		torn  bool
	}{
		"first":                  {lines: long("a", 200<<10) + `{"id":"b","metric":"m","value":0.9}` + "\n", ids: []string{"a", "b"}},
		"last":                   {lines: `{"id":"b","metric":"m","value":0.9}` + "\n" + long("a", 70<<10), ids: []string{"b", "a"}},
		"just over the buffer":   {lines: long("a", 64<<10) + long("c", 64<<10), ids: []string{"a", "c"}},
		"torn after a long line": {lines: long("a", 100<<10) + `{"id":"b","met`, ids: []string{"a"}, torn: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), FileResults)
			require.NoError(t, os.WriteFile(path, []byte(tc.lines), 0o644))
			ids := func(f *ResultFile) []string {
				var out []string
				for r := range f.All() {
					out = append(out, r.ID)
				}
				return out
			}
			all, err := ReadResults(path)
			require.NoError(t, err)
			assert.Equal(t, tc.ids, ids(all))
			assert.Equal(t, tc.torn, all.Torn)
			bounded, err := ReadResultsBounded(path, 5)
			require.NoError(t, err)
			assert.Equal(t, tc.ids, ids(bounded))
			for r := range bounded.All() {
				if r.ID == "a" {
					assert.Len(t, r.Reason, strings.Count(tc.lines[:strings.Index(tc.lines, `"}`)], "x"), "the long line read whole")
				}
			}
		})
	}
}
