package report_test

import (
	"bytes"
	"encoding/xml"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/runtest"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
)

// The JUnit shape the CI servers read, parsed back independently of the
// writer's own types.
type xSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Time     string `xml:"time,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string  `xml:"name,attr"`
			Classname string  `xml:"classname,attr"`
			Time      string  `xml:"time,attr"`
			Failure   *xProbl `xml:"failure"`
			Error     *xProbl `xml:"error"`
			Skipped   *xProbl `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

type xProbl struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func TestWriteJUnit(t *testing.T) {
	t.Parallel()
	cfg := run.Config{RunID: "r1", Dataset: "data.jsonl", DatasetSHA256: "abc", Model: "offline", Metrics: []string{"faithfulness", "context_quality"}}
	s := run.Summary{RunID: "r1", Started: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC), Gates: []run.GateResult{
		{Gate: "context_quality.mean>=0.65", Metric: "context_quality", Stat: "mean", Op: ">=", Want: 0.65, Got: 0.7, Passed: true},
		{Gate: "context_quality.min>=0.3", Metric: "context_quality", Stat: "min", Op: ">=", Want: 0.3, Got: 0.2, Reason: "context_quality.min is 0.2, want >= 0.3"},
		{Gate: "faithfulness.mean>=0.5", Metric: "faithfulness", Stat: "mean", Op: ">=", Want: 0.5, Got: run.Num(math.NaN()), Reason: "faithfulness.mean is undefined"},
	}}
	results := runtest.ResultFile(t, []run.Result{
		{ID: "q2", Metric: "faithfulness", Value: 0.9, Usage: eval.Usage{Latency: 1500 * time.Millisecond}},
		{ID: "q1", Metric: "faithfulness", Value: 0.4, Reason: "2 of 5 claims unsupported <&>"},
		{ID: "q3", Metric: "faithfulness", Value: 0.5, Defaulted: true, Error: "model: 503 Service Unavailable"},
		{ID: "q4", Metric: "faithfulness", Skipped: true, Reason: "no contexts"},
		{ID: "q1", Metric: "context_quality", Value: 0.2},
		{ID: "q2", Metric: "context_quality", Value: 0.8},
		{ID: "q1", Metric: "extra_metric", Value: 0.1},
	})
	floors := map[string]float64{"faithfulness": 0.7, "context_quality": 0.3}
	var buf bytes.Buffer
	require.NoError(t, report.WriteJUnit(&buf, cfg, s, results, report.JUnitOptions{Floor: func(m string) float64 { return floors[m] }, Infra: true}))
	require.True(t, bytes.HasPrefix(buf.Bytes(), []byte(xml.Header)))

	var got xSuites
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &got), buf.String())
	assert.Equal(t, []int{10, 5, 1, 0}, []int{got.Tests, got.Failures, got.Errors, got.Skipped})
	require.Len(t, got.Suites, 4)

	type caseWant struct {
		name, outcome, message, text string
	}
	tests := map[string]struct {
		suite                      int
		name                       string
		tests, failures, errs, skp int
		cases                      []caseWant
	}{
		"gates first, a testcase each": {suite: 0, name: "gates", tests: 3, failures: 2, cases: []caseWant{
			{name: "context_quality.mean>=0.65", outcome: "pass"},
			{name: "context_quality.min>=0.3", outcome: "failure", message: "context_quality.min is 0.2, want >= 0.3", text: "context_quality.min>=0.3: got 0.2, want >= 0.3"},
			{name: "faithfulness.mean>=0.5", outcome: "failure", message: "faithfulness.mean is undefined", text: "faithfulness.mean>=0.5: got undefined, want >= 0.5"},
		}},
		"a metric's samples by id": {suite: 1, name: "faithfulness", tests: 4, failures: 2, errs: 1, cases: []caseWant{
			{name: "q1", outcome: "failure", message: "faithfulness 0.4000 is below its --min floor 0.7", text: "2 of 5 claims unsupported <&>"},
			{name: "q2", outcome: "pass"},
			{name: "q3", outcome: "error", message: "the judge failed and the neutral default 0.5 was used", text: "model: 503 Service Unavailable"},
			// Skipped under a floor: below it, as the run counts it.
			{name: "q4", outcome: "failure", message: "faithfulness was not scored (nothing to judge), which never passes its --min floor 0.7", text: "no contexts"},
		}},
		"config's metric order": {suite: 2, name: "context_quality", tests: 2, failures: 1, cases: []caseWant{
			{name: "q1", outcome: "failure", message: "context_quality 0.2000 is below its --min floor 0.3", text: "no reason recorded"},
			{name: "q2", outcome: "pass"},
		}},
		"a metric outside the config last, no floor": {suite: 3, name: "extra_metric", tests: 1, cases: []caseWant{
			{name: "q1", outcome: "pass"},
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			su := got.Suites[tc.suite]
			assert.Equal(t, tc.name, su.Name)
			assert.Equal(t, []int{tc.tests, tc.failures, tc.errs, tc.skp}, []int{su.Tests, su.Failures, su.Errors, su.Skipped})
			require.Len(t, su.Cases, len(tc.cases))
			for i, want := range tc.cases {
				c := su.Cases[i]
				assert.Equal(t, want.name, c.Name)
				assert.Equal(t, "assay."+tc.name, c.Classname)
				var p *xProbl
				outcome := "pass"
				switch {
				case c.Failure != nil:
					outcome, p = "failure", c.Failure
				case c.Error != nil:
					outcome, p = "error", c.Error
				case c.Skipped != nil:
					outcome, p = "skipped", c.Skipped
				}
				assert.Equal(t, want.outcome, outcome, want.name)
				if p != nil {
					assert.Equal(t, want.message, p.Message)
					assert.Equal(t, want.text, p.Text)
				}
			}
		})
	}
	assert.Equal(t, "1.500", got.Suites[1].Time, "a suite's time is its judges' latency")
	assert.Contains(t, got.Suites[0].Props, struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}{"dataset_sha256", "abc"})
}

func TestWriteJUnitGatesOnly(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, report.WriteJUnit(&buf, run.Config{RunID: "r"}, run.Summary{}, nil, report.JUnitOptions{}))
	var got xSuites
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &got))
	require.Len(t, got.Suites, 1)
	assert.Equal(t, "gates", got.Suites[0].Name)
	assert.Equal(t, 0, got.Tests)
}

// TestWriteJUnitFailsWhatFailsTheRun: without a --min floor a value under
// the metric's threshold is no failure, and a neutral default within the
// allowed rate is skipped, not an error, so a JUnit reader goes red
// exactly when the run's exit code is non-zero.
func TestWriteJUnitFailsWhatFailsTheRun(t *testing.T) {
	t.Parallel()
	results := runtest.ResultFile(t, []run.Result{
		{ID: "q1", Metric: "faithfulness", Value: 0.1},
		{ID: "q2", Metric: "faithfulness", Value: 0.5, Defaulted: true, Error: "model: 503"},
	})
	s := run.Summary{Metrics: []run.MetricStats{{Metric: "faithfulness", Threshold: 0.7}}}
	var buf bytes.Buffer
	require.NoError(t, report.WriteJUnit(&buf, run.Config{RunID: "r", Metrics: []string{"faithfulness"}}, s, results, report.JUnitOptions{}))
	var got xSuites
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &got), buf.String())
	assert.Equal(t, []int{2, 0, 0, 1}, []int{got.Tests, got.Failures, got.Errors, got.Skipped}, buf.String())
	require.Len(t, got.Suites, 2)
	require.Len(t, got.Suites[1].Cases, 2)
	assert.Nil(t, got.Suites[1].Cases[0].Failure, "0.1 under the threshold 0.7 with no floor passes, as the run does")
	require.NotNil(t, got.Suites[1].Cases[1].Skipped)
	assert.Contains(t, got.Suites[1].Cases[1].Skipped.Message, "within --max-default-rate")
}

// TestWriteJUnitFloorFailsSkipsAndDefaults: under a --min floor a
// skipped result and a neutral default count as below it (the run exits
// 1 for them), so the JUnit file fails them too; without a floor they
// stay <skipped>, and a run failed for its defaults keeps them <error>s.
func TestWriteJUnitFloorFailsSkipsAndDefaults(t *testing.T) {
	t.Parallel()
	results := runtest.ResultFile(t, []run.Result{
		{ID: "q1", Metric: "faithfulness", Value: 0.9},
		{ID: "q2", Metric: "faithfulness", Value: 0.5, Defaulted: true, Error: "model: 503"},
		{ID: "q3", Metric: "faithfulness", Skipped: true, Reason: "no answer"},
	})
	// Each case's verdict in q1, q2, q3 order: "" passes.
	tests := map[string]struct {
		floor float64
		infra bool
		want  []string
		// tests, failures, errors, skipped
		counts []int
	}{
		"no floor": {want: []string{"", "skipped", "skipped"}, counts: []int{3, 0, 0, 2}},
		"a floor the value passes": {floor: 0.7,
			want: []string{"", "failure", "failure"}, counts: []int{3, 2, 0, 0}},
		"a floor in a run failed for its defaults": {floor: 0.7, infra: true,
			want: []string{"", "error", "failure"}, counts: []int{3, 1, 1, 0}},
		"no floor in a run failed for its defaults": {infra: true,
			want: []string{"", "error", "skipped"}, counts: []int{3, 0, 1, 1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := run.Summary{Metrics: []run.MetricStats{{Metric: "faithfulness", Threshold: 0.7}}}
			opts := report.JUnitOptions{Floor: func(string) float64 { return tc.floor }, Infra: tc.infra}
			var buf bytes.Buffer
			require.NoError(t, report.WriteJUnit(&buf, run.Config{RunID: "r", Metrics: []string{"faithfulness"}}, s, results, opts))
			var got xSuites
			require.NoError(t, xml.Unmarshal(buf.Bytes(), &got), buf.String())
			assert.Equal(t, tc.counts, []int{got.Tests, got.Failures, got.Errors, got.Skipped}, buf.String())
			require.Len(t, got.Suites, 2)
			var verdicts []string
			for _, c := range got.Suites[1].Cases {
				v := ""
				switch {
				case c.Failure != nil:
					v = "failure"
				case c.Error != nil:
					v = "error"
				case c.Skipped != nil:
					v = "skipped"
				}
				verdicts = append(verdicts, v)
			}
			assert.Equal(t, tc.want, verdicts, buf.String())
		})
	}
}
