package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
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

// Errors of the Client that callers branch on with errors.Is.
var (
	// ErrAuth is returned when the model server refused the credentials
	// (401 or 403). The Client keeps the first one: every later call
	// returns it without being sent, so a bad key stops a run at once.
	// It wraps the server's *StatusError and message.
	ErrAuth = errors.New("llm: the model server refused the credentials")
	// ErrUnreachable is returned, without sending the call, while the
	// Client takes the model server as down (BreakerPolicy). Its text
	// names the last error the server gave no answer with.
	ErrUnreachable = errors.New("model server unreachable")
)

// authErr is the error a 401 or 403 becomes: ErrAuth with the server's
// status and message, and what to do.
func authErr(err error) error {
	return fmt.Errorf("%w: %w (check the API key and this model's access; no further calls are sent)", ErrAuth, err)
}

// isAuth reports whether err is the server refusing the credentials.
func isAuth(err error) bool {
	se, ok := errors.AsType[*StatusError](err)
	return ok && (se.Code == http.StatusUnauthorized || se.Code == http.StatusForbidden)
}

// MaxReply is the most a model reply may hold, in bytes: 1 MiB, some
// hundred times what a judge's verdict needs. A reply over it is not read
// further and is an invalid reply (ReplyTooLargeError, errors.Is
// ErrInvalidOutput and ErrReplyTooLarge): ChatJSON asks once more, for a
// short reply, and the judge then takes its neutral default. Backends that
// read HTTP bodies stop reading at MaxReplyBody.
const MaxReply = 1 << 20

// MaxReplyBody is the most of a reply's HTTP body a backend reads: the
// reply and room for the JSON around it.
const MaxReplyBody = MaxReply + 64<<10

// ErrReplyTooLarge is in the chain of a reply over MaxReply; it wraps
// ErrInvalidOutput.
var ErrReplyTooLarge = fmt.Errorf("%w: reply over %d bytes", ErrInvalidOutput, MaxReply)

// ReplyTooLargeError is a reply over the size cap. Size is how much of it
// was seen before reading stopped (of its body, for a backend that stops
// reading at MaxReplyBody): past the cap, not its whole size.
type ReplyTooLargeError struct {
	Size int64
}

func (e *ReplyTooLargeError) Error() string {
	return fmt.Sprintf("reply over the cap of %d bytes (llm.MaxReply): %d bytes or more, not read further", MaxReply, e.Size)
}

func (e *ReplyTooLargeError) Unwrap() error { return ErrReplyTooLarge }

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
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		serverClosedIdle(err)
}

// IsUnreachable reports whether err is a call that found no model server
// to answer it: ErrUnreachable (the Client took the server as down), or,
// once the Client's retries are spent, a connection that was refused,
// reset, had no route, or could not be made in time, or a host name that
// does not resolve. An HTTP status, however bad, is an answer and not
// this, nor is a reply slower than the call's timeout, nor the caller
// going away. A worker of a queue that sees it gives its task back and
// waits for its server rather than judge with neutral defaults.
func IsUnreachable(err error) bool {
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return false
	case errors.Is(err, ErrUnreachable):
		return true
	case errors.As(err, new(*StatusError)):
		return false
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return true
	case errors.As(err, new(*net.DNSError)):
		return true
	}
	oe, ok := errors.AsType[*net.OpError](err)
	return ok && oe.Op == "dial"
}

// serverClosedIdle reports whether err is net/http's report of a server
// that closed a kept-alive connection as a request went out on it (a
// server stopped or restarted): the io.EOF of a POST, which net/http does
// not send again itself. Its error is unexported, so its text is all
// there is to know it by.
func serverClosedIdle(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "http: server closed idle connection" {
			return true
		}
	}
	return false
}

// retryAfter returns the Retry-After hint carried by err, if any.
func retryAfter(err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) {
		return se.RetryAfter
	}
	return 0
}

// DurationOf is n units as a Duration, for a server's hint of a wait:
// zero when n is not above zero or not a number ("NaN", "inf"), and the
// longest Duration when n units are longer, rather than a conversion that
// overflows into a negative wait, which would be taken as no hint at all.
func DurationOf(n float64, unit time.Duration) time.Duration {
	switch d := n * float64(unit); {
	case !(n > 0) || math.IsInf(n, 1):
		return 0
	case d >= math.MaxInt64:
		return math.MaxInt64
	default:
		return time.Duration(d)
	}
}

// ParseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (relative to now). Unparseable or past values give zero.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return DurationOf(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// HeadSize bounds what a HeadReader keeps: enough for an error body,
// without copying every long reply whole.
const HeadSize = 16 << 10

// HeadReader is a response body that keeps its first HeadSize bytes in
// Head as they are read, so that a backend can still find the error a
// success reply states in its body (ReplyError) after an SDK has consumed
// the body and reported only an empty or undecodable result.
type HeadReader struct {
	io.ReadCloser
	Head []byte
	// Max, when positive, caps the body: a Read past it fails with
	// *ReplyTooLargeError (MaxReplyBody for replies).
	Max  int64
	read int64
}

func (h *HeadReader) Read(p []byte) (int, error) {
	if h.Max > 0 {
		if h.read > h.Max {
			return 0, &ReplyTooLargeError{Size: h.read}
		}
		// Read no further than one byte past the cap.
		p = p[:min(int64(len(p)), h.Max-h.read+1)]
	}
	n, err := h.ReadCloser.Read(p)
	h.read += int64(n)
	if room := HeadSize - len(h.Head); room > 0 {
		h.Head = append(h.Head, p[:min(n, room)]...)
	}
	if h.Max > 0 && h.read > h.Max {
		return n, &ReplyTooLargeError{Size: h.read}
	}
	return n, err
}

// ReplyError is the error that body, the body of a reply with a success
// status, states in place of a result, or nil when body is not an error
// body. Some proxies and servers (LiteLLM, OpenRouter, vLLM and Ollama
// setups) answer 200 with one. Its code or type then decides as a status
// would: a code from 400 to 599, or one implied (429 for a rate limit, 500
// for a server error, 503 for an overload), gives a *StatusError with that
// code and retryAfter, retried or not as Temporary says; an error that
// names neither is permanent.
func ReplyError(status int, body []byte, retryAfter time.Duration) error {
	e, ok := parseErrorBody(body)
	if !ok {
		return nil
	}
	err := errors.New(e.message)
	if code := e.status(); code != 0 {
		err = &StatusError{Code: code, RetryAfter: retryAfter, Message: e.message}
	}
	return fmt.Errorf("error in a %d reply: %w", status, err)
}

// ErrorMessage is the server's message in an error body of any shape
// ReplyError reads, else the body itself (an HTML page from a proxy),
// clipped either way.
func ErrorMessage(body []byte) string {
	e, _ := parseErrorBody(body)
	return e.message
}

// errorBody is what an error body says. Servers send it in three shapes:
// OpenAI's object, {"error": {"message", "type", "code"}}; a string,
// {"error": "text"} (Ollama, LM Studio); or the fields at the top level,
// {"object": "error", "message", "type", "code"} (vLLM).
type errorBody struct {
	message string
	typ     string
	// code is a number (vLLM, OpenRouter), digits in a string (LiteLLM) or
	// a name (OpenAI's "rate_limit_exceeded"), as JSON decodes into any.
	code any
}

// parseErrorBody reads body as an error body of any of those shapes; ok is
// false when it is none of them. The message is the server's, else the
// body itself, clipped either way. A field of an unexpected type is left
// empty. At the top level, only a string message makes an error body: an
// object there is a reply's message (Ollama's chat).
func parseErrorBody(body []byte) (e errorBody, ok bool) {
	e.message = clip(string(body), 300)
	var top, fields map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return e, false
	}
	var msg string
	switch raw := top["error"]; {
	case len(raw) == 0 || string(raw) == "null":
		if json.Unmarshal(top["message"], &msg) != nil {
			return e, false
		}
		fields = top
	case json.Unmarshal(raw, &fields) != nil:
		fields = map[string]json.RawMessage{"message": raw}
	}
	if json.Unmarshal(fields["message"], &msg) == nil && msg != "" {
		e.message = clip(msg, 300)
	}
	_ = json.Unmarshal(fields["type"], &e.typ)
	_ = json.Unmarshal(fields["code"], &e.code)
	return e, true
}

// status is the HTTP status an error body gives as its code (400 to 599),
// or implies by its type or code name: 429 for a rate limit, 500 for a
// server error, 503 for an overload. It is 0 when the body says none of
// these.
func (e errorBody) status() int {
	names := []string{e.typ}
	switch c := e.code.(type) {
	case float64:
		if c >= 400 && c < 600 {
			return int(c)
		}
	case string:
		if n, err := strconv.Atoi(c); err == nil && n >= 400 && n < 600 {
			return n
		}
		names = append(names, c)
	}
	for _, n := range names {
		switch n = strings.ToLower(n); {
		case strings.HasPrefix(n, "rate_limit"):
			return http.StatusTooManyRequests
		case n == "server_error":
			return http.StatusInternalServerError
		case n == "overloaded_error", n == "unavailable_error", n == "service_unavailable":
			return http.StatusServiceUnavailable
		}
	}
	return 0
}

// ErrStaleReply is a reply the cache holds that does not read as its
// request asks now (Request.Stale): the model was asked again. It comes
// in a "cache_error" Event:
//
//	if errors.Is(e.Err, llm.ErrStaleReply) { ... }
var ErrStaleReply = errors.New("llm cache: a stored reply does not read as its request asks now")
