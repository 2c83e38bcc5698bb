package judging

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
)

// DefaultMaxRate is the share of judgements a run may see fall back to the
// neutral default before it counts as failed: a model that is down, a bad
// key or a rate limit that never clears must not pass for a result.
const DefaultMaxRate = 0.05

// Defaults counts how many judgements of a run fell back to the neutral
// default, and keeps the cause of the first. The zero value is ready to
// use; it is not safe for concurrent use.
type Defaults struct {
	// Total is the number of judgements counted, Defaulted of them neutral
	// defaults.
	Total, Defaulted int
	// First is the error of the first default counted; nil when there is
	// none or the score did not say.
	First error
	// Causes counts the defaults by the kind of their cause (CauseKind);
	// nil until one is counted by Add.
	Causes map[string]int
}

// Add counts one score.
func (d *Defaults) Add(s eval.Score) {
	d.Total++
	if !s.Defaulted {
		return
	}
	d.Defaulted++
	if d.First == nil {
		d.First = s.Err
	}
	if d.Causes == nil {
		d.Causes = map[string]int{}
	}
	d.Causes[CauseKind(s.Err)]++
}

// CauseKind names the kind of a default's cause, to count the defaults of
// a run by it: a run whose judges failed in several ways names each, not
// only its first.
func CauseKind(err error) string {
	var se *llm.StatusError
	var re *llm.RefusalError
	var ce *judges.CheckerError
	switch {
	case err == nil:
		return "no cause given"
	case errors.As(err, &ce):
		return "fact checker failed"
	case errors.Is(err, llm.ErrBudget):
		return "budget reached"
	case errors.Is(err, llm.ErrUnreachable):
		return "server unreachable"
	case errors.As(err, &se):
		return "status " + strconv.Itoa(se.Code)
	case errors.As(err, &re):
		return "refusal"
	case errors.Is(err, llm.ErrReplyTooLarge):
		return "reply over the cap"
	case errors.Is(err, llm.ErrNotChat):
		return "not a chat completion"
	case errors.Is(err, llm.ErrInvalidOutput):
		return "reply off the schema"
	case errors.Is(err, judges.ErrMissingVerdicts):
		return "verdicts missing"
	case errors.Is(err, llm.ErrEmpty):
		return "empty reply"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case llm.Temporary(err):
		return "connection failed" // reset, refused, cut off
	}
	return "other error"
}

// Check returns a *DefaultRateError when the share of defaulted
// judgements is over max (0 allows none), else nil.
func (d Defaults) Check(max float64) error {
	if err := CheckDefaultRate(d.Defaulted, d.Total, max, d.First); err != nil {
		return &DefaultRateError{Defaulted: d.Defaulted, Total: d.Total, Max: max, First: d.First, Causes: d.Causes}
	}
	return nil
}

// CheckDefaultRate returns a *DefaultRateError when defaulted of total
// judgements is a share over max, else nil. first is the cause of the
// first default, to name in the error; it may be nil.
func CheckDefaultRate(defaulted, total int, max float64, first error) error {
	if defaulted <= 0 || total <= 0 {
		return nil
	}
	if float64(defaulted)/float64(total) <= max {
		return nil
	}
	return &DefaultRateError{Defaulted: defaulted, Total: total, Max: max, First: first}
}

// DefaultRateError reports a run in which more judgements fell back to the
// neutral default than allowed. Callers branch on it with errors.As; the
// command line maps it to exit 3.
type DefaultRateError struct {
	Defaulted, Total int
	// Max is the largest share of defaults allowed.
	Max float64
	// First is the cause of the first default, or nil.
	First error
	// Causes counts the defaults by the kind of their cause (CauseKind),
	// when they were counted so; nil otherwise.
	Causes map[string]int
}

// Rate is the share of judgements that defaulted, from 0 to 1.
func (e *DefaultRateError) Rate() float64 { return float64(e.Defaulted) / float64(e.Total) }

// Summary says how many judgements defaulted, out of how many, and the
// share as a percentage: "20 of 20 judgements (100%)".
func (e *DefaultRateError) Summary() string {
	pct := math.Round(e.Rate()*1000) / 10 // one decimal: 33.3, 0.1, 100
	return fmt.Sprintf("%d of %d judgements (%s%%)", e.Defaulted, e.Total, strconv.FormatFloat(pct, 'f', -1, 64))
}

// ByCause counts the defaults by the kind of their cause, most first
// ("2 status 500, 1 refusal"), when they had more than one kind; "" when
// they had one, which Cause names.
func (e *DefaultRateError) ByCause() string {
	if len(e.Causes) < 2 {
		return ""
	}
	kinds := slices.SortedFunc(maps.Keys(e.Causes), func(a, b string) int {
		return cmp.Or(cmp.Compare(e.Causes[b], e.Causes[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", e.Causes[k], k)
	}
	return strings.Join(parts, ", ")
}

// Cause is the first line of the first default's error, or a note that
// the scores did not say.
func (e *DefaultRateError) Cause() string {
	if e.First == nil {
		return "the judges gave no cause"
	}
	first, _, _ := strings.Cut(e.First.Error(), "\n")
	return first
}

func (e *DefaultRateError) Error() string {
	return fmt.Sprintf("%s fell back to the neutral default, over the maximum default rate %s: %s",
		e.Summary(), strconv.FormatFloat(e.Max, 'f', -1, 64), e.Cause())
}

func (e *DefaultRateError) Unwrap() error { return e.First }
