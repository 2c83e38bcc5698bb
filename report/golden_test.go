package report

import (
	"bytes"
	"flag"
	"testing"

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
