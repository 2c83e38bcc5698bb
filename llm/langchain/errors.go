package langchain

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/assaylabs/assay/llm"
)

// Transport wraps base (http.DefaultTransport when nil) so that what the
// server said reaches Chat and Embed: a failed response's status code and
// Retry-After, which they return as *llm.StatusError, and an error sent in
// the body of a success reply (see llm.ReplyError), which langchaingo
// reports only as an empty or undecodable response. Give it to a
// langchaingo provider's HTTP client:
//
//	hc := &http.Client{Transport: langchain.Transport(nil)}
//	m, err := ollama.New(ollama.WithModel("llama3.1"), ollama.WithHTTPClient(hc))
//
// It records only requests made with the context Chat or Embed passed down,
// so one client can serve many concurrent calls.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return statusTransport{base: base}
}

type statusTransport struct{ base http.RoundTripper }

func (t statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	rec, ok := req.Context().Value(recorderKey{}).(*recorder)
	if err != nil || !ok {
		return resp, err
	}
	retryAfter := llm.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if resp.StatusCode >= http.StatusBadRequest {
		rec.set(resp.StatusCode, retryAfter)
	} else {
		resp.Body = &headReader{HeadReader: llm.HeadReader{ReadCloser: resp.Body}, rec: rec, status: resp.StatusCode, retryAfter: retryAfter}
	}
	return resp, err
}

// headReader keeps the start of a success reply's body as the provider
// reads it, and hands it to the call's recorder when the body is closed
// (langchaingo closes it before it returns).
type headReader struct {
	llm.HeadReader
	rec        *recorder
	status     int
	retryAfter time.Duration
}

func (h *headReader) Close() error {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	h.rec.reply = h
	return h.ReadCloser.Close()
}

type recorderKey struct{}

// recorder holds what the HTTP responses of one call said: the last failed
// status, and the last success reply read.
type recorder struct {
	mu         sync.Mutex
	code       int
	retryAfter time.Duration
	reply      *headReader
}

func withRecorder(ctx context.Context) (context.Context, *recorder) {
	rec := &recorder{}
	return context.WithValue(ctx, recorderKey{}, rec), rec
}

func (r *recorder) set(code int, retryAfter time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.code, r.retryAfter = code, retryAfter
}

func (r *recorder) get() (int, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.code, r.retryAfter
}

// replyError is the error stated by the body of the last success reply,
// or nil.
func (r *recorder) replyError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reply == nil {
		return nil
	}
	return llm.ReplyError(r.reply.status, r.reply.Head, r.reply.retryAfter)
}

// statusOf maps the langchaingo error codes that correspond to an HTTP
// status. Timeouts and cancellations are left alone: they already match
// context.DeadlineExceeded and context.Canceled with errors.Is. Quota
// errors are left permanent on purpose: retrying an exhausted quota is
// futile, even though some providers send it as a 429.
var statusOf = map[llms.ErrorCode]int{
	llms.ErrCodeRateLimit:           http.StatusTooManyRequests,
	llms.ErrCodeProviderUnavailable: http.StatusServiceUnavailable,
	llms.ErrCodeAuthentication:      http.StatusUnauthorized,
	llms.ErrCodeInvalidRequest:      http.StatusBadRequest,
	llms.ErrCodeResourceNotFound:    http.StatusNotFound,
	llms.ErrCodeTokenLimit:          http.StatusBadRequest,
}

// classify turns a provider error into what the server said, when the
// Transport saw it: *llm.StatusError for a failed response, or the error
// in the body of a success reply (llm.ReplyError). Failing that, a typed
// *llms.Error with a known code becomes *llm.StatusError. Other errors
// (transport failures, context errors, untyped errors from models not
// built with Transport) are wrapped unchanged.
func classify(name string, rec *recorder, err error) error {
	if code, ra := rec.get(); code != 0 {
		return fmt.Errorf("%s: %w", name, &llm.StatusError{Code: code, RetryAfter: ra, Err: err})
	}
	if rerr := rec.replyError(); rerr != nil {
		// The provider's own error ("no response", a JSON type error) says
		// less than the server did.
		return fmt.Errorf("%s: %w", name, rerr)
	}
	var le *llms.Error
	if errors.As(err, &le) {
		if code, ok := statusOf[le.Code]; ok {
			return fmt.Errorf("%s: %w", name, &llm.StatusError{Code: code, Err: err})
		}
	}
	return fmt.Errorf("%s: %w", name, err)
}
