package report_test

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
