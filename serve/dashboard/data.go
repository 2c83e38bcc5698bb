// Package dashboard is the page served at "/" by assay serve: per metric
// the recent mean with its interval, the trend by day, the default rate
// and the judge's health; the open alerts; the lowest and slowest judged
// samples with their evidence; and the runs. The page is one HTML file
// embedded in the binary, with its CSS, script and charts inline (no CDN,
// no build step); it renders the Data it was served with and refreshes
// from the JSON route (JSONHandler) on an interval.
package dashboard

import (
	"time"

	"github.com/assaylabs/assay/run"
)

// Data is everything the page shows.
type Data struct {
	Generated time.Time `json:"generated"`
	// Rule says how alerts are raised ("warning under 0.85 x baseline,
	// critical under 0.4, over the last 100 scores").
	Rule string `json:"rule,omitempty"`
	// Critical is the floor the trend charts draw (0.4); 0 draws none.
	Critical float64  `json:"critical,omitempty"`
	Metrics  []Metric `json:"metrics"`
	Alerts   []Alert  `json:"alerts"`
	// Lowest are the judged samples with the lowest values, Slowest the
	// ones whose judging took longest.
	Lowest  []Sample `json:"lowest"`
	Slowest []Sample `json:"slowest"`
	Runs    []Run    `json:"runs"`
	// Problems are what could not be read (the run store, say): the page
	// shows the rest, and these.
	Problems []string `json:"problems,omitempty"`
}

// Metric is one metric's recent state.
type Metric struct {
	Name string `json:"name"`
	// Mean is over Scored recent values, Low and High its 95% interval
	// (null when nothing is scored).
	Mean   run.Num `json:"mean"`
	Low    run.Num `json:"ci95_low"`
	High   run.Num `json:"ci95_high"`
	Scored int     `json:"scored"`
	// N recent judgements, Defaulted of them defaults; DefaultRate is
	// Defaulted / N (null when N is 0).
	N           int     `json:"n"`
	Defaulted   int     `json:"defaulted"`
	DefaultRate run.Num `json:"default_rate"`
	// Baseline is what the mean is compared with, BaselineFrom where it
	// came from.
	Baseline     run.Num `json:"baseline"`
	BaselineFrom string  `json:"baseline_from,omitempty"`
	// Severity is the open alert's ("warning", "critical"), empty when
	// none.
	Severity string `json:"severity,omitempty"`
	// Stalled says the judge seems to have stopped answering, and why.
	Stalled     bool      `json:"stalled"`
	StallReason string    `json:"stall_reason,omitempty"`
	LastSuccess time.Time `json:"last_success,omitzero"`
	Days        []Day     `json:"days"`
}

// Day is one day of a metric's trend.
type Day struct {
	Day       string  `json:"day"` // 2006-01-02
	Mean      run.Num `json:"mean"`
	N         int     `json:"n"`
	Defaulted int     `json:"defaulted"`
}

// Alert is an open alert.
type Alert struct {
	Metric   string    `json:"metric"`
	Severity string    `json:"severity"`
	Message  string    `json:"message"`
	Mean     run.Num   `json:"mean"`
	Baseline run.Num   `json:"baseline"`
	Since    time.Time `json:"since"`
}

// Sample is one judged sample, with what its value rests on.
type Sample struct {
	ID     string `json:"id"`
	Metric string `json:"metric"`
	// Question and Answer are excerpts.
	Question string  `json:"question"`
	Answer   string  `json:"answer"`
	Value    float64 `json:"value"`
	Reason   string  `json:"reason"`
	// Evidence are lines of the score's evidence (unsupported claims,
	// gaps, issues).
	Evidence []string `json:"evidence,omitempty"`
	// LatencyMS is how long judging took, null when it was not measured
	// (an offline judge, a reply from the cache).
	LatencyMS run.Num   `json:"latency_ms"`
	Defaulted bool      `json:"defaulted,omitempty"`
	At        time.Time `json:"at,omitzero"`
}

// Run is one recorded run.
type Run struct {
	ID      string       `json:"id"`
	Started time.Time    `json:"started"`
	Dataset string       `json:"dataset"`
	Metrics []string     `json:"metrics"`
	Status  string       `json:"status"`
	Means   []MetricMean `json:"means"`
}

// MetricMean is a run's mean of one metric.
type MetricMean struct {
	Metric string  `json:"metric"`
	Mean   run.Num `json:"mean"`
}
