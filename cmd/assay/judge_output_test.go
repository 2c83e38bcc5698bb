package main

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
)

// TestResultWriterMatchesWholeList checks that writing results one by one
// gives the same bytes as encoding the whole list at once, the format
// users and scripts already parse.
func TestResultWriterMatchesWholeList(t *testing.T) {
	two := []judgeResult{
		{ID: "a", Metric: "faithfulness", Value: 0.5, Points: 0.5, Max: 1, Method: "offline (approximate)",
			Reason: "1 of 2 claims <supported> & checked",
			Evidence: eval.Evidence{Claims: []eval.Claim{
				{Text: "Line one\nline two: \"quoted\"", Verdict: eval.VerdictSupported, SourceID: "c1"},
				{Text: "- looks like a list item", Verdict: eval.VerdictUnsupported},
			}, Counts: map[string]float64{"claims": 2, "supported": 1}}},
		{ID: "b", Metric: "source_relevance", Value: 0.5, Points: 3, Max: 5, Method: "llm:openai:m", Defaulted: true,
			Error: "judge: 503", Usage: eval.Usage{Calls: 1, TokensIn: 10}},
	}
	whole := map[string]func([]judgeResult) string{
		"json": func(rs []judgeResult) string {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(rs))
			return b.String()
		},
		"yaml": func(rs []judgeResult) string {
			var b bytes.Buffer
			enc := yaml.NewEncoder(&b)
			enc.SetIndent(2)
			require.NoError(t, enc.Encode(rs))
			require.NoError(t, enc.Close())
			return b.String()
		},
	}
	for format, encode := range whole {
		for name, rs := range map[string][]judgeResult{"none": {}, "one": two[:1], "two": two} {
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
	rw := newResultWriter(&b, "json")
	require.NoError(t, rw.write(judgeResult{ID: "a", Metric: "m"}))
	require.NoError(t, rw.flush())
	require.NoError(t, rw.close(false))
	var got []judgeResult
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, []judgeResult{{ID: "a", Metric: "m"}}, got)
}

// TestResultWriterFailedEmpty checks that a run that failed before any
// result prints nothing, not an empty list beside its error.
func TestResultWriterFailedEmpty(t *testing.T) {
	for _, format := range []string{"json", "yaml", "text"} {
		var b bytes.Buffer
		require.NoError(t, newResultWriter(&b, format).close(false))
		assert.Empty(t, b.String(), format)
	}
}

// printResults writes rs at once with a resultWriter, as a run that
// finished does.
func printResults(w io.Writer, format string, rs []judgeResult) error {
	rw := newResultWriter(w, format)
	for _, r := range rs {
		if err := rw.write(r); err != nil {
			return err
		}
	}
	return rw.close(true)
}
