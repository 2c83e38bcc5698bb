package dashboard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/serve/live"
)

// Snapshotter is the live state the dashboard reads: a *live.Monitor.
type Snapshotter interface {
	Snapshot() live.Snapshot
}

// Judged is one judged sample as the service keeps it: the sample's id,
// question and answer, when it was judged, and its result.
type Judged struct {
	SampleID string
	Question string
	Answer   string
	At       time.Time
	Result   run.Result
}

// Defaults of Sources.
const (
	DefaultTop  = 5
	DefaultRuns = 20
)

// Sources builds Data from the live monitor and the store: it is the
// Source assay serve gives Handler and JSONHandler. Each part is optional.
// A part that fails to load is named in Data.Problems and the page shows
// the rest.
type Sources struct {
	Live Snapshotter
	// Runs lists the recorded runs that read back, newest first, and an
	// error for each row that does not ((*runstore.Store).ListReadable):
	// those are counted and named on the page, the others shown.
	Runs func(ctx context.Context) (rows []runstore.RunRow, unreadable []error, err error)
	// Judged lists recently judged samples, from which the lowest and
	// the slowest are picked.
	Judged func(ctx context.Context) ([]Judged, error)
	// Top is how many samples each list shows (0: DefaultTop); MaxRuns
	// how many runs (0: DefaultRuns).
	Top, MaxRuns int
	// Now is the clock, for Data.Generated when there is no monitor; nil
	// means time.Now.
	Now func() time.Time
}

// Dashboard implements Source. Its error is ctx's, when ctx ends.
func (s Sources) Dashboard(ctx context.Context) (Data, error) {
	d := Data{Metrics: []Metric{}, Alerts: []Alert{}, Lowest: []Sample{}, Slowest: []Sample{}, Runs: []Run{}}
	switch {
	case s.Live != nil:
		fromSnapshot(&d, s.Live.Snapshot())
	case s.Now != nil:
		d.Generated = s.Now()
	default:
		d.Generated = time.Now()
	}
	if s.Judged != nil {
		js, err := s.Judged(ctx)
		if err != nil {
			d.Problems = append(d.Problems, "judged samples: "+err.Error())
		}
		d.Lowest, d.Slowest = pick(js, cmp.Or(s.Top, DefaultTop))
	}
	if s.Runs != nil {
		rows, unreadable, err := s.Runs(ctx)
		if err != nil {
			d.Problems = append(d.Problems, "runs: "+err.Error())
		}
		most := cmp.Or(s.MaxRuns, DefaultRuns)
		for _, r := range rows[:min(len(rows), most)] {
			d.Runs = append(d.Runs, runOf(r))
		}
		if len(unreadable) > 0 {
			d.Problems = append(d.Problems, unreadableRuns(unreadable, most))
		}
	}
	return d, ctx.Err()
}

// unreadableRuns says how many rows of the run store do not read back,
// and names the first most by their ids, escaped (termtext.Visible): what
// a row holds is shown as text, never as markup or a line of its own.
func unreadableRuns(errs []error, most int) string {
	var ids []string
	others := 0
	for _, err := range errs {
		if ue, ok := errors.AsType[*runstore.UnreadableRunError](err); ok && len(ids) < most {
			ids = append(ids, termtext.Visible(ue.ID))
			continue
		}
		others++
	}
	msg := fmt.Sprintf("runs: %d run(s) of the run store do not read back and are not listed", len(errs))
	if len(ids) > 0 {
		msg += ": " + strings.Join(ids, ", ")
		if others > 0 {
			msg += fmt.Sprintf(" and %d more", others)
		}
	}
	return msg + " (assay runs list says why; record them again or delete their rows)"
}

// fromSnapshot fills d's metrics, alerts and rule from a monitor's
// snapshot.
func fromSnapshot(d *Data, snap live.Snapshot) {
	d.Generated = snap.At
	r := snap.Rule
	d.Critical = r.Critical
	d.Rule = fmt.Sprintf("Warning when the mean of the last %d judgements is under %.2f × its baseline, critical under %.2f; interval: %s.",
		r.Window, r.WarnRatio, r.Critical, r.Interval)
	if r.MaxAge > 0 {
		d.Rule = strings.Replace(d.Rule, "judgements", "judgements (at most "+r.MaxAge.String()+" old)", 1)
	}
	for _, m := range snap.Metrics {
		dm := Metric{
			Name: m.Metric, Mean: m.Mean, Low: m.Low, High: m.High, Scored: m.Scored,
			N: m.N, Defaulted: m.Defaulted, DefaultRate: m.DefaultRate,
			Baseline: m.Baseline, BaselineFrom: m.BaselineFrom,
			Stalled: m.Stalled, StallReason: m.StallReason, LastSuccess: m.LastSuccess,
			Days: make([]Day, len(m.Days)),
		}
		if m.Alert != nil {
			dm.Severity = m.Alert.Severity
		}
		for i, day := range m.Days {
			dm.Days[i] = Day{Day: day.Day, Mean: day.Mean, N: day.N, Defaulted: day.Defaulted}
		}
		d.Metrics = append(d.Metrics, dm)
	}
	for _, a := range snap.Open {
		msgs := make([]string, len(a.Alerts))
		for i, q := range a.Alerts {
			msgs[i] = fmt.Sprintf("%s: %.3f < %.3f", q.Message, q.CurrentValue, q.Threshold)
		}
		d.Alerts = append(d.Alerts, Alert{
			Metric: a.Metric, Severity: a.Severity, Message: strings.Join(msgs, "; "),
			Mean: a.Mean, Baseline: a.Baseline, Since: a.Since,
		})
	}
}

// pick returns the top samples with the lowest values (defaults and
// skipped ones left out: their value measures nothing) and those whose
// judging took longest.
func pick(js []Judged, top int) (lowest, slowest []Sample) {
	scored := slices.DeleteFunc(slices.Clone(js), func(j Judged) bool { return j.Result.Defaulted || j.Result.Skipped })
	slices.SortStableFunc(scored, func(a, b Judged) int {
		return cmp.Or(cmp.Compare(a.Result.Value, b.Result.Value), b.At.Compare(a.At))
	})
	timed := slices.DeleteFunc(slices.Clone(js), func(j Judged) bool { return j.Result.Skipped || j.Result.Usage.Latency <= 0 })
	slices.SortStableFunc(timed, func(a, b Judged) int {
		return cmp.Or(cmp.Compare(b.Result.Usage.Latency, a.Result.Usage.Latency), b.At.Compare(a.At))
	})
	lowest, slowest = []Sample{}, []Sample{}
	for _, j := range scored[:min(top, len(scored))] {
		lowest = append(lowest, sampleOf(j))
	}
	for _, j := range timed[:min(top, len(timed))] {
		slowest = append(slowest, sampleOf(j))
	}
	return lowest, slowest
}

// Excerpt lengths, in characters.
const (
	questionChars = 200
	answerChars   = 280
	reasonChars   = 400
	evidenceLines = 6
)

func sampleOf(j Judged) Sample {
	r := j.Result
	reason := r.Reason
	if r.Error != "" && !strings.Contains(reason, r.Error) {
		reason = strings.TrimSpace(reason + " (" + r.Error + ")")
	}
	return Sample{
		ID: j.SampleID, Metric: r.Metric,
		Question: excerpt(j.Question, questionChars), Answer: excerpt(j.Answer, answerChars),
		Value: r.Value, Reason: excerpt(reason, reasonChars), Evidence: evidenceOf(r.Evidence),
		LatencyMS: latencyMS(r.Usage.Latency), Defaulted: r.Defaulted, At: j.At,
	}
}

// latencyMS is d in milliseconds, undefined (null) when d was not
// measured: 0 is no latency, never one of 0 ms.
func latencyMS(d time.Duration) run.Num {
	if d <= 0 {
		return run.Num(math.NaN())
	}
	return run.Num(float64(d) / float64(time.Millisecond))
}

// evidenceOf lists what a low value rests on: the claims not supported
// first, then gaps and issues.
func evidenceOf(e eval.Evidence) []string {
	var out []string
	for _, c := range e.Claims {
		switch c.Verdict {
		case eval.VerdictSupported, eval.VerdictCited:
		default:
			out = append(out, c.Verdict+": "+excerpt(c.Text, 160))
		}
	}
	for _, g := range e.Gaps {
		out = append(out, "gap: "+excerpt(g, 160))
	}
	for _, i := range e.Issues {
		out = append(out, "issue: "+excerpt(i, 160))
	}
	return out[:min(len(out), evidenceLines)]
}

// excerpt is s on one line, cut to at most n characters with an ellipsis.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func runOf(r runstore.RunRow) Run {
	out := Run{ID: r.ID, Started: r.Started, Dataset: r.Dataset, Metrics: r.Metrics, Status: runstore.RunStatus(r.Summary), Means: []MetricMean{}}
	if out.Metrics == nil {
		out.Metrics = []string{}
	}
	for _, m := range r.Summary.Metrics {
		out.Means = append(out.Means, MetricMean{Metric: m.Metric, Mean: m.Mean})
	}
	return out
}
