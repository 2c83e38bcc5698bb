package judging

import "strings"

// FailureKind is why a run that ended did not pass.
type FailureKind uint8

// The kinds of failure. The command line maps the first four to exit 1
// (scored, not passed) and the others to exit 3 (the run itself failed).
const (
	// FailFloor is a value below its --min floor.
	FailFloor FailureKind = iota + 1
	// FailGate is a --gate that does not hold.
	FailGate
	// FailAlert is an alert raised against the baseline.
	FailAlert
	// FailVerdict is a card that did not pass (iterate, fail, rejected)
	// or a daily report held for review: said by the card itself.
	FailVerdict
	// FailDefaults is more neutral defaults than allowed.
	FailDefaults
	// FailBudget is calls the cost budget refused.
	FailBudget
	// FailInterrupted is a run cut short (its context done): resume it.
	FailInterrupted
	// FailNothingScored is a metric with no scored judgement, or more
	// skipped than allowed.
	FailNothingScored
	// FailError is an error that stopped the run or lost what it wrote:
	// a search backend out of reach, a key the model refused, a folder
	// that could not be written.
	FailError
	// FailUnreachable is calls that gave up on a model server that stayed
	// down longer than they could wait (llm.ErrUnreachable).
	FailUnreachable
	// FailUndelivered is pairs of a queued run whose tasks' deliveries to
	// workers ran out (run.Result.Undelivered).
	FailUndelivered
)

// Scored reports whether the kind is a verdict on what was scored (exit
// 1) rather than a failure of the run (exit 3).
func (k FailureKind) Scored() bool { return k <= FailVerdict }

func (k FailureKind) String() string {
	switch k {
	case FailFloor:
		return "below floor"
	case FailGate:
		return "gate failed"
	case FailAlert:
		return "alert"
	case FailVerdict:
		return "not passed"
	case FailDefaults:
		return "too many defaults"
	case FailBudget:
		return "budget reached"
	case FailInterrupted:
		return "interrupted"
	case FailNothingScored:
		return "nothing scored"
	case FailError:
		return "error"
	case FailUnreachable:
		return "model server down"
	case FailUndelivered:
		return "undelivered"
	}
	return "failure"
}

// Failure is one reason a run did not pass, with its message.
type Failure struct {
	Kind FailureKind
	Err  error
}

func (f Failure) Error() string { return f.Err.Error() }

// Unwrap returns the failure's error.
func (f Failure) Unwrap() error { return f.Err }

// Failures are a run's reasons not to pass, in the order they were found.
type Failures []Failure

// Infra returns the first failure of the run itself (not a verdict on
// what was scored), or nil.
func (fs Failures) Infra() *Failure {
	for i := range fs {
		if !fs[i].Kind.Scored() {
			return &fs[i]
		}
	}
	return nil
}

// Scored returns the failures that are verdicts on what was scored.
func (fs Failures) Scored() Failures {
	var out Failures
	for _, f := range fs {
		if f.Kind.Scored() {
			out = append(out, f)
		}
	}
	return out
}

func (fs Failures) Error() string {
	msgs := make([]string, len(fs))
	for i, f := range fs {
		msgs[i] = f.Error()
	}
	return strings.Join(msgs, "\n")
}

// causeError is a message of its own over the error it explains, which
// errors.As still finds.
type causeError struct {
	msg string
	err error
}

func (e *causeError) Error() string { return e.msg }
func (e *causeError) Unwrap() error { return e.err }
