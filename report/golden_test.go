package report

import (
	"bytes"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/golden"
	"github.com/assaylabs/assay/run"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestWriteHTMLGolden holds report.html to the page the template drew:
// the fixture run (a baseline, flips, a default, a skip, an error, hostile
// markup in texts and evidence, a long and a cut text, a calibration) and
// a conversation marked by every metric that marks one. The goldens were
// written by html/template before the rows were drawn in Go; any byte that
// moves is a change of the page.
func TestWriteHTMLGolden(t *testing.T) {
	t.Parallel()
	cfg, s, results := reportFixture(t)
	trip := tripSample()
	tripResults := scoreAll(t, trip)
	tests := map[string]struct {
		cfg     run.Config
		s       run.Summary
		results *run.ResultFile
		data    func(t *testing.T) Data
	}{
		"fixture": {cfg, s, results, func(t *testing.T) Data { return reportData(t, results) }},
		"fixture-no-texts": {cfg, s, results, func(*testing.T) Data {
			return Data{TextsErr: "data.jsonl:3: the file changed since the run", Failed: []string{"gate <b>x</b> failed"}}
		}},
		"conversation": {run.Config{RunID: "r", Metrics: []string{"tool_call_accuracy"}}, run.Summary{RunID: "r", Samples: 1}, tripResults,
			func(t *testing.T) Data { return Data{Texts: textsOf(t, tripResults, trip)} }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			require.NoError(t, WriteHTML(&buf, tc.cfg, tc.s, tc.results, tc.data(t)))
			golden.Equal(t, "testdata/"+name+".html.golden", buf.Bytes(), *update)
		})
	}
}

// TestSampleTableDrawnAhead: the page written with a table drawn ahead
// (DrawSampleTable, as bench draws it while it makes the summary) is the
// page WriteHTML writes, whether the summary has the metrics and
// thresholds the table was drawn for or not (then it is drawn again).
func TestSampleTableDrawnAhead(t *testing.T) {
	t.Parallel()
	cfg, s, results := reportFixture(t)
	data := reportData(t, results)
	thresholds := map[string]float64{}
	for _, m := range s.Metrics {
		thresholds[m.Metric] = m.Threshold
	}
	tests := map[string]struct {
		metrics   []string
		threshold func(string) float64
		reused    bool
	}{
		"the summary's metrics and thresholds": {cfg.Metrics, func(m string) float64 { return thresholds[m] }, true},
		"another threshold":                    {cfg.Metrics, func(string) float64 { return 0.5 }, false},
		"a metric fewer":                       {cfg.Metrics[:1], func(m string) float64 { return thresholds[m] }, false},
	}
	var want bytes.Buffer
	more := Data{Texts: data.Texts, Baseline: data.Baseline, Failed: []string{"gate x failed"}}
	require.NoError(t, WriteHTML(&want, cfg, s, results, more))
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			table := DrawSampleTable(cfg, tc.metrics, tc.threshold, results, data)
			assert.Equal(t, tc.reused, table.drawnFor(cfg, run.InConfigOrder(s.Metrics, cfg.Metrics)))
			var got bytes.Buffer
			require.NoError(t, table.WriteHTML(&got, cfg, s, Data{Failed: more.Failed}))
			assert.Equal(t, want.String(), got.String())
		})
	}
}
