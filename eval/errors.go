package eval

import "errors"

// ErrNoClaims is returned (wrapped) in a Score's Err, and named in reasons,
// when an answer has no verifiable claim to check. Test with errors.Is.
var ErrNoClaims = errors.New("no verifiable claims")
