package bench

import (
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/telemetry"
)

// traced is what the run's span says of o, or of err when the run stopped
// on one (o is nil then).
func (o *Outcome) traced(err error) telemetry.RunEnd {
	if o == nil || o.Plan != nil {
		return telemetry.RunEnd{Err: err}
	}
	return telemetry.RunEnd{ID: o.Config.RunID, Records: o.Records, Judged: countComplete(o.Summary), Failures: failureKinds(o.Failures), Err: err}
}

// traced is what the run's span says of o, or of err when the run stopped
// on one (o is nil then).
func (o *JudgeOutcome) traced(err error) telemetry.RunEnd {
	if o == nil || o.Plan != nil {
		return telemetry.RunEnd{Err: err}
	}
	return telemetry.RunEnd{Records: o.Records, Judged: o.Done, Failures: failureKinds(o.Failures), Err: err}
}

// failureKinds names the kind of each failure, in order.
func failureKinds(fs judging.Failures) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Kind.String()
	}
	return out
}
