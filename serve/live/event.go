package live

import (
	"context"
	"time"

	"github.com/assaylabs/assay/run"
)

// Kinds of Event.
const (
	// EventOpen: a metric with no alert has one (warning or critical).
	EventOpen = "open"
	// EventEscalate: a warning became critical.
	EventEscalate = "escalate"
	// EventDeescalate: a critical alert is a warning again (the mean is
	// back over the floor, still under the baseline's share).
	EventDeescalate = "deescalate"
	// EventResolve: the alert is over.
	EventResolve = "resolve"
	// EventStalled: the metric's judge stopped answering.
	EventStalled = "stalled"
	// EventRecovered: a stalled metric's judge answered again.
	EventRecovered = "recovered"
)

// Event is a change of a metric's alert state, or of its judge's health.
type Event struct {
	Kind   string `json:"kind"`
	Metric string `json:"metric"`
	// Severity is the state after the change (bench.SeverityWarning or
	// bench.SeverityCritical; empty when resolved), Previous the state
	// before it. Both are empty in stall events.
	Severity string `json:"severity,omitempty"`
	Previous string `json:"previous,omitempty"`
	// Message says what happened in a sentence.
	Message string `json:"message"`
	// Mean is the window's mean over Scored values; Baseline the mean it
	// is compared with (null when the metric has none yet).
	Mean     run.Num `json:"mean"`
	Baseline run.Num `json:"baseline"`
	Scored   int     `json:"scored"`
	// Alerts are seed 002's alerts that hold after the change (a
	// degradation warning, a threshold critical, both or none).
	Alerts []run.QualityAlert `json:"alerts"`
	// At is when the change was seen (the monitor's clock).
	At time.Time `json:"at"`
	// Meta is the metadata of the observation that caused the change
	// (a trace id, say), within MaxMetaKeys, MaxMetaKey and MaxMetaValue;
	// nil for a change seen in a Snapshot.
	Meta map[string]string `json:"meta,omitempty"`
}

// Sink receives every event, one at a time and in order, from a goroutine
// of the monitor's own (a store writer, a metrics counter). An error is
// counted in the snapshot's Sink.Failed. ctx ends when the monitor closes.
type Sink interface {
	Alert(ctx context.Context, e Event) error
}

// Claimer decides which of several monitors delivers an event, when they
// see the same observations in the same order (the replicas of a service
// reading one shared sequence of results) and so compute the same events:
// Claim is asked once for each event, from a goroutine of the monitor's
// own and in order, and only the monitor told true (one of them, the
// claimer's job) hands the event to its sink and its webhook. An error
// (after the claimer's own retries) is counted in the snapshot's
// Claims.Failed, and the event is not delivered. ctx ends when the
// monitor closes.
type Claimer interface {
	Claim(ctx context.Context, e Event) (mine bool, err error)
}

// ClaimFunc is a function as a Claimer.
type ClaimFunc func(ctx context.Context, e Event) (bool, error)

// Claim calls f.
func (f ClaimFunc) Claim(ctx context.Context, e Event) (bool, error) { return f(ctx, e) }

// SinkFunc is a function as a Sink.
type SinkFunc func(ctx context.Context, e Event) error

// Alert calls f.
func (f SinkFunc) Alert(ctx context.Context, e Event) error { return f(ctx, e) }
