package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// StatusError is an HTTP error from a model server. Backends return it so
// that retry decisions never depend on an SDK's error types or strings.
type StatusError struct {
	Code int
	// RetryAfter is the server's Retry-After hint, zero when absent.
	RetryAfter time.Duration
	Message    string
	Err        error
}

func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if msg == "" {
		msg = http.StatusText(e.Code)
	}
	return fmt.Sprintf("status %d: %s", e.Code, msg)
}

func (e *StatusError) Unwrap() error { return e.Err }

// RefusalError is a reply in which the model declined to answer.
type RefusalError struct{ Reason string }

func (e *RefusalError) Error() string { return "model refused: " + e.Reason }

// Temporary reports whether err is worth retrying: 408, 409, 429 and 5xx
// statuses, timeouts, connection resets and refusals, and bodies cut off in
// transit. Cancellation of the caller's context is never temporary.
func Temporary(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var se *StatusError
	if errors.As(err, &se) {
		switch {
		case se.Code == http.StatusRequestTimeout, se.Code == http.StatusConflict,
			se.Code == http.StatusTooManyRequests, se.Code >= 500:
			return true
		}
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// A per-attempt timeout of the HTTP client; the caller's own deadline
		// is checked by the retry loop before it tries again.
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// retryAfter returns the Retry-After hint carried by err, if any.
func retryAfter(err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) {
		return se.RetryAfter
	}
	return 0
}

// ParseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (relative to now). Unparseable or past values give zero.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
