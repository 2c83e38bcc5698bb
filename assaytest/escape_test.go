package assaytest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/assaytest"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/termtext"
)

// hostile holds what a terminal obeys rather than shows: an escape
// sequence that clears the screen and retitles the window, a carriage
// return that overwrites the line, a right-to-left override.
const hostile = "\x1b[2J\x1b]0;owned\x07 \r\u202e"

// A failed check prints what the answer, the contexts and the judge
// brought (claims, sources, reasons, gaps, issues, errors) with its
// control and bidi characters escaped, as the assay command prints them:
// a test's output is read on a terminal too.
func TestFailureMessagesEscapeWhatTheSampleBrought(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	require.NoError(t, os.WriteFile(data, []byte(`{"id":"x\u001b[2J","question":"What is the boiling point?","answer":"Water boils at 90 degrees`+
		`\u001b[2J\u001b]0;owned\u0007 \r\u202e.","contexts":["Water boils at 100 degrees."]}`+"\n"), 0o600))
	cases := map[string]func(tb assaytest.TB){
		"Require": func(tb assaytest.TB) {
			assaytest.New(assaytest.WithModel(nil)).Require(tb, eval.Sample{ID: "id" + hostile, Query: "What is the boiling point?",
				Answer: "Water boils at 90 degrees" + hostile + ".", Sources: []eval.Source{{ID: "c" + hostile, Text: "Water boils at 100 degrees."}}},
				"faithfulness>=0.9")
		},
		"RequireDataset": func(tb assaytest.TB) {
			assaytest.New(assaytest.WithModel(nil)).RequireDataset(tb, data, "faithfulness.mean>=0.9")
		},
		"Explain": func(tb assaytest.TB) {
			tb.Errorf("%s", assaytest.Explain(eval.Score{Metric: "m" + hostile, Method: "x" + hostile, Reason: "r" + hostile,
				Evidence: eval.Evidence{Claims: []eval.Claim{{Text: "t" + hostile, Verdict: "v" + hostile, SourceID: "s" + hostile}},
					Sources: []eval.SourceRating{{URL: "u" + hostile, Basis: "b" + hostile}},
					Gaps:    []string{"g" + hostile}, Issues: []string{"i" + hostile}}}))
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := run(f)
			msgs := append(r.errors, r.fatals...)
			require.NotEmpty(t, msgs, "the check fails")
			for _, m := range msgs {
				for _, line := range strings.Split(m, "\n") {
					assert.Equal(t, termtext.Visible(line), line, "a line of the failure shows every character")
				}
			}
		})
	}
}
