package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
)

// TestWriteJUnitAlertIsAFailure: an alert fails the run (exit 1), so the
// JUnit file has a failed case for it, and a run without one has none.
func TestWriteJUnitAlertIsAFailure(t *testing.T) {
	t.Parallel()
	critical := QualityAlert{Type: AlertThreshold, Severity: SeverityCritical, Message: "Average faithfulness critically low", Metric: "faithfulness", CurrentValue: 0.3, Threshold: 0.4}
	tests := map[string]struct {
		s            Summary
		tests, fails int
	}{
		"an alert":                  {Summary{Alerts: []QualityAlert{critical}}, 1, 1},
		"a notice is not a failure": {Summary{Notices: []QualityAlert{{Type: AlertThreshold, Severity: SeverityNotice, Metric: "faithfulness"}}}, 0, 0},
		"nothing":                   {Summary{}, 0, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			require.NoError(t, WriteJUnit(&buf, RunConfig{RunID: "r"}, tc.s, nil, JUnitOptions{}))
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
	gate := GateResult{Gate: "m.mean>=0.9", Metric: "m", Stat: "mean", Op: ">=", Want: 0.9, Got: 0.5}
	tests := map[string]struct {
		s      Summary
		data   ReportData
		badges []string
		why    []string
	}{
		"a failed gate": {Summary{Complete: true, Gates: []GateResult{gate}}, ReportData{}, []string{"failed"}, []string{"gate m.mean&gt;=0.9 failed"}},
		"an alert": {Summary{Complete: true, Alerts: []QualityAlert{{Type: AlertDegradation, Severity: SeverityWarning, Message: "m degraded from baseline", Metric: "m"}}},
			ReportData{}, []string{"failed"}, []string{"warning degradation alert: m degraded from baseline"}},
		"the run's own reasons": {Summary{Complete: true}, ReportData{Failed: []string{"budget reached: 3 call(s) not made"}}, []string{"failed"}, []string{"budget reached: 3 call(s) not made"}},
		"failed and incomplete": {Summary{Gates: []GateResult{gate}}, ReportData{}, []string{"failed", "incomplete"}, []string{"gate m.mean&gt;=0.9 failed"}},
		"a passed gate":         {Summary{Complete: true, Gates: []GateResult{{Gate: "m.mean>=0.1", Passed: true}}}, ReportData{}, []string{"complete"}, nil},
		"incomplete":            {Summary{}, ReportData{}, []string{"incomplete"}, nil},
	}
	badge := regexp.MustCompile(`<span class="badge b-[a-z]+">([a-z]+)</span>`)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var page bytes.Buffer
			require.NoError(t, WriteReport(&page, RunConfig{RunID: "r", Metrics: []string{"m"}}, tc.s, nil, tc.data))
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

// TestFloorNotices: a mean under the critical floor with no fall through
// it is a notice, the same with no baseline as against one under the
// floor; a metric with a critical alert, or at or over the floor, has none.
func TestFloorNotices(t *testing.T) {
	t.Parallel()
	ms := []MetricStats{{Metric: "low", Mean: 0.3}, {Metric: "fell", Mean: 0.35}, {Metric: "ok", Mean: 0.4}, {Metric: "none", Mean: Num(math.NaN())}}
	alone := FloorNotices(ms, nil)
	withBase := FloorNotices(ms, MeanAlerts("fell", 0.35, 0.5))
	sameBase := FloorNotices(ms, MeanAlerts("low", 0.3, 0.3))
	names := func(as []QualityAlert) []string {
		var out []string
		for _, a := range as {
			assert.Equal(t, SeverityNotice, a.Severity)
			out = append(out, a.Metric)
		}
		return out
	}
	assert.Equal(t, []string{"low", "fell"}, names(alone), "no baseline")
	assert.Equal(t, []string{"low"}, names(withBase), "fell through the floor: an alert, not a notice")
	assert.Equal(t, names(alone), names(sameBase), "against a baseline as low: as with none")
	assert.Contains(t, alone[0].Message, "--gate 'low.mean>=0.4'")
}

// TestABRowZeroChangeNeverSignificant: an A/B row whose change shows as
// +0.0% is significant by neither rule, whatever its sizes and p-value;
// a change that shows is, by each rule that holds.
func TestABRowZeroChangeNeverSignificant(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		control, treatment float64
		p                  Num
		seed, test         bool
		shown              string
	}{
		"no change":                             {0.5, 0.5, Num(math.NaN()), false, false, "+0.0%"},
		"a change under 0.05%, p 0.001":         {0.5, 0.5002, 0.001, false, false, "+0.0%"},
		"a fall under 0.05%, p 0.001":           {0.5, 0.4998, 0.001, false, false, "-0.0%"},
		"a change that shows, p 0.001":          {0.5, 0.51, 0.001, true, true, "+2.0%"},
		"a change that shows, p 0.2":            {0.5, 0.51, 0.2, true, false, "+2.0%"},
		"nothing to measure (0/0) is no change": {0, 0, 0.001, false, false, "-"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			an := abAnalysis(abMeans{n: 200, qualitySum: 200 * tc.control}, abMeans{n: 200, qualitySum: 200 * tc.treatment})
			require.Equal(t, tc.shown, pctText(an.QualityImprovement))
			r := newABRow("m", an, "wilcoxon", tc.p)
			assert.Equal(t, tc.seed, r.Analysis.IsSignificant, "seed rule")
			assert.Equal(t, tc.test, r.Significant, "paired test")
			d := &RunDiff{AB: []ABRow{r}}
			var buf bytes.Buffer
			require.NoError(t, d.abTable().write(&buf, false))
			if !tc.seed && !tc.test {
				assert.NotRegexp(t, `(^|[^t] )significant`, buf.String())
			}
		})
	}
}

// TestOutcomeBudgetLeads: a run the budget stopped says so first, with
// what it did and how to go on, and prints no table; a run it did not
// stop prints its table.
func TestOutcomeBudgetLeads(t *testing.T) {
	t.Parallel()
	ms := []MetricStats{{Metric: "faithfulness", N: 20, Scored: 4, Defaulted: 16, Mean: 0.5}}
	tests := map[string]struct {
		failures judging.Failures
		table    bool
	}{
		"stopped by the budget": {judging.Failures{
			{Kind: judging.FailDefaults, Err: errors.New("16 of 20 judgements (80%) fell back to the neutral default")},
			{Kind: judging.FailBudget, Err: errors.New("budget reached: 16 call(s) not made")}}, false},
		"not stopped": {nil, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := &Outcome{Dir: "runs/b1", Config: RunConfig{RunID: "b1"}, Summary: Summary{Metrics: ms}, Failures: tc.failures, MaxCost: 0.002,
				Report: judging.Report{Judge: "llm:openai:m", Usage: llm.Usage{Calls: 4, CostUSD: 0.0019}}}
			var out, log bytes.Buffer
			require.NoError(t, o.Write(&out, &log))
			if tc.table {
				assert.Contains(t, out.String(), "faithfulness  4/20")
				assert.NotContains(t, log.String(), "--max-cost")
				return
			}
			assert.Empty(t, out.String(), "no table")
			lines := strings.Split(log.String(), "\n")
			assert.Equal(t, "bench: stopped by --max-cost $0.002: spent $0.0019 on 4 call(s), then made no more; 4 of 20 judgement(s) scored, 16 fell back to the neutral default (no summary table: its figures would be mostly defaults)", lines[0])
			assert.Equal(t, "bench: go on with --resume --out runs/b1 and a larger --max-cost: only the 16 default(s) are judged again", lines[1])
			assert.Contains(t, lines[2], "judge: llm:openai:m; calls 4")
			assert.Equal(t, "bench: run b1 in runs/b1", lines[3])
		})
	}
}

// TestDefaultsByTheCheckerAdviseTheChecker: a default a fact checker
// caused keeps its checker through results.jsonl, so that the advice
// after the run's defaults, resumed or not, names the checker's
// variables, not the judging model's.
func TestDefaultsByTheCheckerAdviseTheChecker(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		want string
	}{
		"the checker failed": {&judges.CheckerError{Checker: "openai:minicheck", Err: errors.New("claim 1: connection refused")}, "$ASSAY_CHECKER_BASE_URL"},
		"the judge failed":   {errors.New("extract claims: connection refused"), "(--llm, $OPENAI_BASE_URL, $OPENAI_API_KEY)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			cfg := testConfig()
			run, err := CreateRun(dir, cfg)
			require.NoError(t, err)
			res := ResultOf("a", eval.Score{Metric: "m1", Value: 0.5, Defaulted: true, Err: fmt.Errorf("faithfulness: verify claims: %w", tc.err)})
			require.NoError(t, run.Append(res))
			require.NoError(t, run.Close())
			run, err = ResumeRun(dir, cfg) // read back from results.jsonl
			require.NoError(t, err)
			defer func() { require.NoError(t, run.Close()) }()
			d := run.Defaults()
			require.Equal(t, 1, d.Defaulted)
			f, failed := judging.Config{}.DefaultRate(d)
			require.True(t, failed)
			assert.Contains(t, f.Err.Error(), tc.want)
			assert.Contains(t, f.Err.Error(), "record a: m1: faithfulness: verify claims: ", "the cause as written")
		})
	}
}
