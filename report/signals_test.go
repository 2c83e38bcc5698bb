package report

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/run"
)

// TestWriteJUnitAlertIsAFailure: an alert fails the run (exit 1), so the
// JUnit file has a failed case for it, and a run without one has none.
func TestWriteJUnitAlertIsAFailure(t *testing.T) {
	t.Parallel()
	critical := run.QualityAlert{Type: run.AlertThreshold, Severity: run.SeverityCritical, Message: "Average faithfulness critically low", Metric: "faithfulness", CurrentValue: 0.3, Threshold: 0.4}
	tests := map[string]struct {
		s            run.Summary
		tests, fails int
	}{
		"an alert":                  {run.Summary{Alerts: []run.QualityAlert{critical}}, 1, 1},
		"a notice is not a failure": {run.Summary{Notices: []run.QualityAlert{{Type: run.AlertThreshold, Severity: run.SeverityNotice, Metric: "faithfulness"}}}, 0, 0},
		"nothing":                   {run.Summary{}, 0, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			require.NoError(t, WriteJUnit(&buf, run.Config{RunID: "r"}, tc.s, nil, JUnitOptions{}))
			var got struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Suites   []struct {
					Cases []struct {
						Name    string `xml:"name,attr"`
						Failure *struct {
							Type    string `xml:"type,attr"`
							Message string `xml:"message,attr"`
						} `xml:"failure"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			require.NoError(t, xml.Unmarshal(buf.Bytes(), &got), buf.String())
			assert.Equal(t, tc.tests, got.Tests)
			assert.Equal(t, tc.fails, got.Failures)
			if tc.fails > 0 {
				c := got.Suites[0].Cases[0]
				assert.Equal(t, "critical threshold alert: faithfulness", c.Name)
				require.NotNil(t, c.Failure)
				assert.Equal(t, "alert", c.Failure.Type)
				assert.Equal(t, critical.Message, c.Failure.Message)
			}
		})
	}
}

// TestWriteReportHeaderSaysFailed: report.html's header says failed, with
// why, when the run failed (a gate, an alert, a reason the run gives),
// never a green complete; complete only when it passed.
func TestWriteReportHeaderSaysFailed(t *testing.T) {
	t.Parallel()
	gate := run.GateResult{Gate: "m.mean>=0.9", Metric: "m", Stat: "mean", Op: ">=", Want: 0.9, Got: 0.5}
	tests := map[string]struct {
		s      run.Summary
		data   Data
		badges []string
		why    []string
	}{
		"a failed gate": {run.Summary{Complete: true, Gates: []run.GateResult{gate}}, Data{}, []string{"failed"}, []string{"gate m.mean&gt;=0.9 failed"}},
		"an alert": {run.Summary{Complete: true, Alerts: []run.QualityAlert{{Type: run.AlertDegradation, Severity: run.SeverityWarning, Message: "m degraded from baseline", Metric: "m"}}},
			Data{}, []string{"failed"}, []string{"warning degradation alert: m degraded from baseline"}},
		"the run's own reasons": {run.Summary{Complete: true}, Data{Failed: []string{"budget reached: 3 call(s) not made"}}, []string{"failed"}, []string{"budget reached: 3 call(s) not made"}},
		"failed and incomplete": {run.Summary{Gates: []run.GateResult{gate}}, Data{}, []string{"failed", "incomplete"}, []string{"gate m.mean&gt;=0.9 failed"}},
		"a passed gate":         {run.Summary{Complete: true, Gates: []run.GateResult{{Gate: "m.mean>=0.1", Passed: true}}}, Data{}, []string{"complete"}, nil},
		"incomplete":            {run.Summary{}, Data{}, []string{"incomplete"}, nil},
	}
	badge := regexp.MustCompile(`<span class="badge b-[a-z]+">([a-z]+)</span>`)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var page bytes.Buffer
			require.NoError(t, WriteHTML(&page, run.Config{RunID: "r", Metrics: []string{"m"}}, tc.s, nil, tc.data))
			h1 := regexp.MustCompile(`(?s)<h1>.*?</h1>`).FindString(page.String())
			var got []string
			for _, m := range badge.FindAllStringSubmatch(h1, -1) {
				got = append(got, m[1])
			}
			assert.Equal(t, tc.badges, got, h1)
			for _, w := range tc.why {
				assert.Contains(t, page.String(), "<li>"+w+"</li>")
			}
			if tc.why == nil {
				assert.NotContains(t, page.String(), `<ul class="failed">`)
			}
		})
	}
}
