package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

// TestResultWriterMatchesWholeList checks that writing results one by one
// gives the same bytes as encoding the whole list at once, the format
// users and scripts already parse.
func TestResultWriterMatchesWholeList(t *testing.T) {
	two := []run.Result{
		{ID: "a", Metric: "faithfulness", Value: 0.5, Points: 0.5, Max: 1, Method: "offline (approximate)",
			Reason: "1 of 2 claims <supported> & checked",
			Evidence: eval.Evidence{Claims: []eval.Claim{
				{Text: "Line one\nline two: \"quoted\"", Verdict: eval.VerdictSupported, SourceID: "c1"},
				{Text: "- looks like a list item", Verdict: eval.VerdictUnsupported},
			}, Counts: map[string]float64{"claims": 2, "supported": 1}}},
		{ID: "b", Metric: "source_relevance", Value: 0.5, Points: 3, Max: 5, Method: "llm:openai:m", Defaulted: true,
			Error: "judge: 503", Usage: eval.Usage{Calls: 1, TokensIn: 10}},
	}
	whole := map[string]func([]run.Result) string{
		"json": func(rs []run.Result) string {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(rs))
			return b.String()
		},
		"yaml": func(rs []run.Result) string {
			var b bytes.Buffer
			enc := yaml.NewEncoder(&b)
			enc.SetIndent(2)
			require.NoError(t, enc.Encode(rs))
			require.NoError(t, enc.Close())
			return b.String()
		},
	}
	for format, encode := range whole {
		for name, rs := range map[string][]run.Result{"none": {}, "one": two[:1], "two": two} {
			t.Run(format+"/"+name, func(t *testing.T) {
				var got bytes.Buffer
				require.NoError(t, printResults(&got, format, rs))
				assert.Equal(t, encode(rs), got.String())
			})
		}
	}
}

// TestResultWriterPartial checks that a run stopped after some results
// still leaves a parseable document.
func TestResultWriterPartial(t *testing.T) {
	var b bytes.Buffer
	rw := NewResultWriter(&b, "json")
	require.NoError(t, rw.Write(run.Result{ID: "a", Metric: "m"}))
	require.NoError(t, rw.Flush())
	require.NoError(t, rw.Close(false))
	var got []run.Result
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, []run.Result{{ID: "a", Metric: "m"}}, got)
}

// TestResultWriterFailedEmpty checks that a run that failed before any
// result prints nothing, not an empty list beside its error.
func TestResultWriterFailedEmpty(t *testing.T) {
	for _, format := range []string{"json", "yaml", "text"} {
		var b bytes.Buffer
		require.NoError(t, NewResultWriter(&b, format).Close(false))
		assert.Empty(t, b.String(), format)
	}
}

// printResults writes rs at once with a resultWriter, as a run that
// finished does.
func printResults(w io.Writer, format string, rs []run.Result) error {
	rw := NewResultWriter(w, format)
	for _, r := range rs {
		if err := rw.Write(r); err != nil {
			return err
		}
	}
	return rw.Close(true)
}

// writeLog records each Write it is handed, and fails every Write after
// the first ok, as standard output does when the process is killed.
type writeLog struct {
	writes []string
	ok     int
}

func (w *writeLog) Write(p []byte) (int, error) {
	if len(w.writes) >= w.ok {
		return 0, errors.New("killed")
	}
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

// TestResultWriterJSONL: jsonl writes one result a line, every line
// readable alone, and hands the writer whole lines only, so a run cut off
// after any write leaves whole lines; records not flushed are not written.
func TestResultWriterJSONL(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a claim with <markup> & quotes \" ", 400) // over bufio's 4 KB
	rs := []run.Result{
		{ID: "r1", Metric: "faithfulness", Value: 1, Reason: long},
		{ID: "r1", Metric: "source_relevance", Value: 0.5, Defaulted: true, Error: "status 500\nsecond line"},
		{ID: "r2", Metric: "faithfulness", Value: 0.25},
		{ID: "r3", Metric: "faithfulness", Value: 0.75, Reason: long},
	}
	// Records: r1 (two results), r2, r3; a flush after each.
	records := [][]run.Result{rs[:2], rs[2:3], rs[3:]}
	tests := map[string]struct {
		ok   int // writes that succeed before the kill
		want []run.Result
	}{
		"run to the end":          {ok: 99, want: rs},
		"killed before anything":  {ok: 0, want: nil},
		"killed after one record": {ok: 1, want: rs[:2]},
		"killed after two":        {ok: 2, want: rs[:3]},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := &writeLog{ok: tc.ok}
			rw := NewResultWriter(w, "jsonl")
			for _, rec := range records {
				for _, r := range rec {
					require.NoError(t, rw.Write(r))
				}
				if rw.Flush() != nil {
					break
				}
			}
			_ = rw.Close(true)
			var got []run.Result
			for i, chunk := range w.writes {
				require.True(t, strings.HasSuffix(chunk, "\n"), "write %d ends mid-line", i)
			}
			all := strings.Join(w.writes, "")
			for line := range strings.Lines(all) {
				var r run.Result
				require.NoError(t, json.Unmarshal([]byte(line), &r), "each line parses alone: %q", line)
				got = append(got, r)
			}
			assert.Equal(t, tc.want, got)
			assert.NotContains(t, all, `\u003c`, "no HTML escaping, as json")
		})
	}
}

// TestResultWriterTextEscapesControls checks that the text lines escape
// the control and bidirectional characters a dataset brings (an ID, a
// reason quoting a call's arguments, a claim, a source, a gap), so a
// record cannot move the cursor, clear the screen or reverse a line.
func TestResultWriterTextEscapesControls(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   run.Result
		want string
	}{
		"an id with an escape sequence": {
			in:   run.Result{ID: "a\x1b[31mred", Metric: "m", Value: 1, Points: 1, Max: 1, Method: "deterministic", Reason: "ok"},
			want: "a\\x1b[31mred m 1.000 (1/1) [deterministic]\n  ok\n",
		},
		"a reason with a bidi override, its line breaks kept": {
			in:   run.Result{ID: "b", Metric: "m", Method: "deterministic", Reason: "got \"\u202e5\"\nsecond \x07line"},
			want: "b m 0.000 (0/0) [deterministic]\n  got \"\\u202e5\"\n    second \\aline\n",
		},
		"a reason whose lines pass for another result and its evidence": {
			in:   run.Result{ID: "d", Metric: "m", Method: "llm", Reason: "fine\ns9 m 1.000 (1/1) [llm]\n  - [supported] made up\n\n"},
			want: "d m 0.000 (0/0) [llm]\n  fine\n    s9 m 1.000 (1/1) [llm]\n      - [supported] made up\n",
		},
		"a reason of one line ending in a break": {
			in:   run.Result{ID: "e", Metric: "m", Method: "llm", Reason: "fine\r\n"},
			want: "e m 0.000 (0/0) [llm]\n  fine\\r\n",
		},
		"evidence from the record": {
			in: run.Result{ID: "c", Metric: "m", Method: "offline", Reason: "r", Evidence: eval.Evidence{
				Claims:  []eval.Claim{{Text: "claim\x1b]0;title\x07", Verdict: eval.VerdictSupported, SourceID: "s\r1"}},
				Sources: []eval.SourceRating{{URL: "https://x.org/\x1b[2J", Rating: 5, Basis: "tier\u2066"}},
				Gaps:    []string{"gap\x1b[K"},
			}},
			want: "c m 0.000 (0/0) [offline]\n  r\n" +
				"  - [supported] claim\\x1b]0;title\\a <- s\\r1\n" +
				"  - https://x.org/\\x1b[2J: 5 tier\\u2066\n" +
				"  - gap: gap\\x1b[K\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			rw := NewResultWriter(&b, "text")
			require.NoError(t, rw.Write(tc.in))
			require.NoError(t, rw.Flush())
			assert.Equal(t, tc.want, b.String())
		})
	}
}

// TestResultWriterTextValueIsTheJSONs checks that the value on a text
// line is the value the JSON holds, to its last decimal, not a rounding of
// it: --min compares that value, and 0.6667 shown as 0.667 would seem to
// pass a floor of 0.667 that it fails.
func TestResultWriterTextValueIsTheJSONs(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		value float64
		want  string
	}{
		"two thirds, four decimals": {value: 0.6667, want: "0.6667"},
		"a fourth decimal of 5":     {value: 0.1235, want: "0.1235"},
		"a small value":             {value: 0.0001, want: "0.0001"},
		"three decimals":            {value: 0.667, want: "0.667"},
		"a half":                    {value: 0.5, want: "0.500"},
		"one":                       {value: 1, want: "1.000"},
		"zero":                      {value: 0, want: "0.000"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := run.Result{ID: "r", Metric: "m", Value: tc.value, Points: tc.value, Max: 1, Method: "baseline", Reason: "x"}
			var text, js bytes.Buffer
			rw := NewResultWriter(&text, "text")
			require.NoError(t, rw.Write(r))
			require.NoError(t, rw.Close(true))
			assert.Equal(t, "r m "+tc.want+" (", text.String()[:len("r m "+tc.want+" (")])
			jw := NewResultWriter(&js, "json")
			require.NoError(t, jw.Write(r))
			require.NoError(t, jw.Close(true))
			var got []map[string]any
			require.NoError(t, json.Unmarshal(js.Bytes(), &got))
			shown, err := strconv.ParseFloat(tc.want, 64)
			require.NoError(t, err)
			assert.Equal(t, got[0]["value"], shown, "the text's value is the JSON's")
		})
	}
}

// TestResultWriterTextIDStandsOut checks that a text line's id cannot
// pass for the indented reason under a result, or for another id: one
// that is blank, or begins or ends with a space, or begins with a quote,
// is written quoted.
func TestResultWriterTextIDStandsOut(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		id, want string
	}{
		"spaces only":           {id: "   ", want: `"   " m`},
		"a trailing space":      {id: "a ", want: `"a " m`},
		"a leading tab":         {id: "\tx", want: `"\tx" m`},
		"an ideographic space":  {id: "\u3000", want: `"\u3000" m`},
		"a quote first":         {id: `"a "`, want: `"\"a \"" m`},
		"empty":                 {id: "", want: `"" m`},
		"a plain id":            {id: "q-1", want: "q-1 m"},
		"an inner space":        {id: "q 1", want: "q 1 m"},
		"a control, not quoted": {id: "a\x1bb", want: `a\x1bb m`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			rw := NewResultWriter(&b, "text")
			require.NoError(t, rw.Write(run.Result{ID: tc.id, Metric: "m", Value: 1, Points: 1, Max: 1, Method: "baseline", Reason: "r"}))
			require.NoError(t, rw.Flush())
			assert.Equal(t, tc.want+" 1.000 (1/1) [baseline]\n  r\n", b.String())
		})
	}
}
