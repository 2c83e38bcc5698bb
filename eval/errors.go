package eval

import "errors"

// ErrNoClaims is returned (wrapped) in a Score's Err, and named in reasons,
// when an answer has no verifiable claim to check. Test with errors.Is.
var ErrNoClaims = errors.New("no verifiable claims")

// ErrNoAnswer is a Score's Err, and named in its reason, when the sample
// has no answer (missing, empty or blank) for a judge that judges the
// answer; the score is Skipped. Test with errors.Is.
var ErrNoAnswer = errors.New("no answer to judge")
