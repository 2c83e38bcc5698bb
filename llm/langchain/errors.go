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

// Transport wraps base (http.DefaultTransport when nil) so that a failed
// response's status code and Retry-After reach Chat and Embed, which return
// them as *llm.StatusError. Give it to a langchaingo provider's HTTP client:
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
	if err == nil && resp.StatusCode >= http.StatusBadRequest {
		if rec, ok := req.Context().Value(recorderKey{}).(*recorder); ok {
			rec.set(resp.StatusCode, llm.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()))
		}
	}
	return resp, err
}

type recorderKey struct{}

// recorder holds the last failed HTTP status of one call.
type recorder struct {
	mu         sync.Mutex
	code       int
	retryAfter time.Duration
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

// classify turns a provider error into *llm.StatusError when its status is
// known: first from the HTTP response the Transport saw, then from a typed
// *llms.Error. Other errors (transport failures, context errors, untyped
// errors from models not built with Transport) are wrapped unchanged.
func classify(name string, rec *recorder, err error) error {
	if code, ra := rec.get(); code != 0 {
		return fmt.Errorf("%s: %w", name, &llm.StatusError{Code: code, RetryAfter: ra, Err: err})
	}
	var le *llms.Error
	if errors.As(err, &le) {
		if code, ok := statusOf[le.Code]; ok {
			return fmt.Errorf("%s: %w", name, &llm.StatusError{Code: code, Err: err})
		}
	}
	return fmt.Errorf("%s: %w", name, err)
}
