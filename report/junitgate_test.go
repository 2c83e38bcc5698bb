package report_test

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/runtest"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
)

// TestWriteJUnitFailedGateShowsAFailingValue: a gate failed by a value
// that six figures round onto its number says the value with the digits
// it takes to read as failing, not "got 0.58909, want >= 0.58909".
func TestWriteJUnitFailedGateShowsAFailingValue(t *testing.T) {
	t.Parallel()
	g, err := run.ParseGate("m.max>=0.58909")
	require.NoError(t, err)
	s := run.Summary{Metrics: []run.MetricStats{{Metric: "m", N: 1, Scored: 1, Max: 0.58908999}}}
	s.Gates = run.CheckGates([]run.Gate{g}, s)
	var buf bytes.Buffer
	require.NoError(t, report.WriteJUnit(&buf, run.Config{RunID: "r"}, s, nil, report.JUnitOptions{}))
	var got xSuites
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &got), buf.String())
	require.Len(t, got.Suites[0].Cases, 1)
	f := got.Suites[0].Cases[0].Failure
	require.NotNil(t, f, buf.String())
	assert.Equal(t, "m.max>=0.58909: got 0.58908999, want >= 0.58909", f.Text)
	assert.Equal(t, "m.max is 0.58908999, want >= 0.58909", f.Message)
}

// TestWriteJUnitSampleNamesShowControlCharacters: XML 1.0 cannot hold a
// bell or an escape, and an encoder writes U+FFFD for them, so ids that
// differ only there (a\a, a\b) got the same testcase name, and a bidi
// override reached the CI page as is. The names write such characters as
// escapes, as the text outputs do.
func TestWriteJUnitSampleNamesShowControlCharacters(t *testing.T) {
	t.Parallel()
	results := runtest.ResultFile(t, []run.Result{
		{ID: "a\a", Metric: "faithfulness", Value: 1},
		{ID: "a\b", Metric: "faithfulness", Value: 1},
		{ID: "x\u202eyz\x1b[31m", Metric: "faithfulness", Value: 1},
		{ID: "line\nbreak|<b>", Metric: "faithfulness", Value: 1},
	})
	s := run.Summary{Metrics: []run.MetricStats{{Metric: "faithfulness", Threshold: 0.7}}}
	var buf bytes.Buffer
	require.NoError(t, report.WriteJUnit(&buf, run.Config{RunID: "r", Metrics: []string{"faithfulness"}}, s, results, report.JUnitOptions{}))
	var got xSuites
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &got), buf.String())
	require.Len(t, got.Suites, 2)
	var names []string
	for _, c := range got.Suites[1].Cases {
		names = append(names, c.Name)
	}
	assert.ElementsMatch(t, []string{`a\a`, `a\b`, `x\u202eyz\x1b[31m`, `line\nbreak|<b>`}, names)
}
