package report

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// JUnit XML as GitHub's test reporters, GitLab's unit test reports and
// Jenkins's junit step read it: <testsuites> of <testsuite>s of
// <testcase>s, each possibly holding one <failure>, <error> or <skipped>.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnitOptions says what a JUnit file marks as failed: exactly what makes
// the run's exit code non-zero.
type JUnitOptions struct {
	// Floor is each metric's --min floor (0: none): a value below it is a
	// <failure>. A value under the metric's threshold but above its
	// floor passes, as the run does.
	Floor func(metric string) float64
	// Infra says the run failed for its defaults or its budget: its
	// neutral defaults are then <error>s; otherwise they are <skipped>
	// (not measured, within --max-default-rate).
	Infra bool
}

// WriteJUnit writes the run as JUnit XML: a testsuite "gates" with a
// testcase per gate of s (a failed gate is a <failure>) and one per alert
// of s (a <failure>: an alert fails the run), then a testsuite
// per metric with a testcase per sample: a value below its --min floor
// (opts.Floor) is a <failure> with the judge's reason, a neutral default
// an <error> when the run failed for its defaults (opts.Infra), else
// <skipped>, and a skipped result <skipped>; under a floor, which
// neither passes, a skipped result and a default not an <error> are
// <failure>s. A JUnit reader thus fails exactly what failed the run. results may be nil, for the gates alone.
// Metrics come in cfg's order, then any others the results hold; samples
// by id.
func WriteJUnit(w io.Writer, cfg run.Config, s run.Summary, results *run.ResultFile, opts JUnitOptions) error {
	doc := junitSuites{Name: "assay bench " + cmp.Or(cfg.RunID, s.RunID)}
	stamp := ""
	if !s.Started.IsZero() {
		stamp = s.Started.UTC().Format("2006-01-02T15:04:05")
	}

	gates := junitSuite{Name: "gates", Time: "0", Timestamp: stamp, Properties: []junitProperty{
		{"run_id", cmp.Or(cfg.RunID, s.RunID)}, {"dataset", cfg.Dataset}, {"dataset_sha256", cfg.DatasetSHA256}, {"model", cfg.Model}, {"version", cfg.Version},
	}}
	for _, g := range s.Gates {
		c := junitCase{Name: g.Gate, Classname: "assay.gates", Time: "0"}
		if !g.Passed {
			c.Failure = &junitProblem{Type: "gate", Message: cmp.Or(g.Reason, "gate failed"),
				Text: fmt.Sprintf("%s: got %s, want %s %s", g.Gate, gotText(g), g.Op, strconv.FormatFloat(g.Want, 'g', -1, 64))}
		}
		gates.add(c)
	}
	// Every alert fails the run (exit 1), so each is a failed case too.
	for _, a := range s.Alerts {
		gates.add(junitCase{Name: a.Severity + " " + a.Type + " alert: " + a.Metric, Classname: "assay.alerts", Time: "0",
			Failure: &junitProblem{Type: "alert", Message: a.Message,
				Text: fmt.Sprintf("%s: mean %s, threshold %s", a.Metric, strconv.FormatFloat(a.CurrentValue, 'f', 4, 64), strconv.FormatFloat(a.Threshold, 'f', 4, 64))}})
	}
	doc.add(gates)

	if results != nil {
		byMetric := map[string][]run.Result{}
		order := slices.Clone(cfg.Metrics)
		for r := range results.All() {
			if _, ok := byMetric[r.Metric]; !ok && !slices.Contains(order, r.Metric) {
				order = append(order, r.Metric)
			}
			byMetric[r.Metric] = append(byMetric[r.Metric], r)
		}
		for _, m := range order {
			rs := byMetric[m]
			slices.SortFunc(rs, func(a, b run.Result) int { return cmp.Compare(a.ID, b.ID) })
			floor := 0.0
			if opts.Floor != nil {
				floor = opts.Floor(m)
			}
			props := []junitProperty{{"floor", strconv.FormatFloat(floor, 'g', -1, 64)}}
			for _, ms := range s.Metrics {
				if ms.Metric == m {
					props = append(props, junitProperty{"threshold", strconv.FormatFloat(ms.Threshold, 'g', -1, 64)})
				}
			}
			suite := junitSuite{Name: m, Timestamp: stamp, Properties: props}
			var total float64
			for _, r := range rs {
				secs := r.Usage.Latency.Seconds()
				total += secs
				suite.add(sampleCase(r, m, floor, secs, opts.Infra))
			}
			suite.Time = strconv.FormatFloat(total, 'f', 3, 64)
			doc.add(suite)
		}
	}

	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	return nil
}

// sampleCase is the testcase of result r of metric m (see WriteJUnit):
// floor is m's --min floor (0: none), secs its judge's latency, infra
// whether the run failed for its defaults.
func sampleCase(r run.Result, m string, floor, secs float64, infra bool) junitCase {
	// The id as the text outputs show it: XML cannot hold a control
	// character (an encoder writes U+FFFD, so ids that differ only there
	// would share a name), and a bidi override would reorder the CI page.
	c := junitCase{Name: termtext.Visible(r.ID), Classname: "assay." + m, Time: strconv.FormatFloat(secs, 'f', 3, 64)}
	switch {
	case r.Skipped && floor > 0:
		// A skipped result never passes a floor (MinGate.Add).
		c.Failure = &junitProblem{Type: "below floor",
			Message: fmt.Sprintf("%s was not scored (nothing to judge), which never passes its --min floor %g", m, floor),
			Text:    cmp.Or(r.Reason, "nothing to judge")}
	case r.Skipped:
		c.Skipped = &junitProblem{Message: cmp.Or(r.Reason, "nothing to judge")}
	case r.Defaulted && infra:
		c.Error = &junitProblem{Type: "defaulted", Message: "the judge failed and the neutral default 0.5 was used",
			Text: cmp.Or(r.Error, "no error recorded")}
	case r.Defaulted && floor > 0:
		// Nor does a neutral default.
		c.Failure = &junitProblem{Type: "below floor",
			Message: fmt.Sprintf("%s fell back to the neutral default, which never passes its --min floor %g", m, floor),
			Text:    cmp.Or(r.Error, "no error recorded")}
	case r.Defaulted:
		c.Skipped = &junitProblem{Message: "not measured: the judge failed and the neutral default was used (within --max-default-rate): " +
			cmp.Or(r.Error, "no error recorded")}
	case floor > 0 && run.Round(r.Value) < floor:
		c.Failure = &junitProblem{Type: "below floor",
			Message: fmt.Sprintf("%s %.4f is below its --min floor %g", m, r.Value, floor),
			Text:    cmp.Or(r.Reason, "no reason recorded")}
	}
	return c
}

func (s *junitSuite) add(c junitCase) {
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

func (d *junitSuites) add(s junitSuite) {
	d.Tests += s.Tests
	d.Failures += s.Failures
	d.Errors += s.Errors
	d.Skipped += s.Skipped
	d.Suites = append(d.Suites, s)
}

// gotText writes a failed gate's value as numText does, with the digits
// more it takes not to read as meeting the gate.
func gotText(g run.GateResult) string {
	if math.IsNaN(float64(g.Got)) {
		return numText(g.Got)
	}
	return g.GotText('g', 6)
}

// numText writes a statistic, "undefined" for NaN.
func numText(n run.Num) string {
	if math.IsNaN(float64(n)) {
		return "undefined"
	}
	return strconv.FormatFloat(float64(n), 'g', 6, 64)
}
