package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// Webhook is where events are posted, as JSON (one Event per request),
// when URL is set. A post that fails for a reason a retry may fix (no
// answer, 408, 429, a 5xx) is tried again after a backoff; other answers
// (a 4xx) are given up at once.
type Webhook struct {
	URL string
	// Header is sent with every post (an Authorization, say).
	Header http.Header
	// Client posts; nil means a client with a 10 s timeout per attempt
	// that follows no redirect: a 3xx is given up at once (Go's client
	// would follow a 301, 302 or 303 with a GET and no body, and the
	// event would count as delivered without having been posted).
	Client *http.Client
	// Queue bounds the events waiting to be posted; 0 means DefaultQueue.
	Queue int
	// BackOff returns the retry policy for one event; nil means
	// exponential from 0.5 s to 30 s, at most 8 retries within 5 minutes.
	BackOff func() backoff.BackOff
}

func defaultBackOff() backoff.BackOff {
	b := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(500*time.Millisecond),
		backoff.WithMaxInterval(30*time.Second),
		backoff.WithMaxElapsedTime(5*time.Minute),
	)
	return backoff.WithMaxRetries(b, 8)
}

// StatusError is a webhook's answer other than 2xx. URL names the webhook
// without its secrets (Shown). Location is where a redirect pointed,
// which is not followed.
type StatusError struct {
	URL      string
	Status   int
	Body     string
	Location string
}

func (e *StatusError) Error() string {
	if e.Location != "" {
		return fmt.Sprintf("webhook %s answered %d %s to %s: redirects are not followed, post to the URL it names instead",
			e.URL, e.Status, http.StatusText(e.Status), e.Location)
	}
	return fmt.Sprintf("webhook %s answered %d %s: %s", e.URL, e.Status, http.StatusText(e.Status), e.Body)
}

// retryable says whether a retry may change the answer.
func (e *StatusError) retryable() bool {
	return e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// Shown is a webhook's URL as errors show it: its scheme and host, and
// "/..." for a path or query. A chat service's incoming webhook carries
// its token in the path (Slack's /services/T/B/token) or the query, and a
// URL may carry a password: the errors go to GET /v1/alerts and its
// snapshot, which anyone allowed to read alerts sees.
func Shown(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(the webhook)"
	}
	out := u.Scheme + "://" + u.Host
	if strings.Trim(u.EscapedPath(), "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		out += "/..."
	}
	return out
}

// sendError is the error of a post that got no answer, naming the
// webhook as Shown: Go's own (*url.Error) quotes the whole URL.
func sendError(shown string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("webhook %s: %w", shown, err)
}

// noRedirect makes a client answer a redirect itself rather than follow it.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// poster returns the outbox's delivery function for w: it posts an event
// and says how many retries that took.
func (w Webhook) poster() func(context.Context, Event) (int, error) {
	client := w.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second, CheckRedirect: noRedirect}
	}
	policy := w.BackOff
	if policy == nil {
		policy = defaultBackOff
	}
	shown := Shown(w.URL)
	return func(ctx context.Context, e Event) (int, error) {
		body, err := json.Marshal(e)
		if err != nil {
			return 0, err
		}
		post := func() error {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
			if err != nil {
				return backoff.Permanent(sendError(shown, err))
			}
			for k, vs := range w.Header {
				req.Header[k] = vs
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				return sendError(shown, err)
			}
			defer func() { _ = resp.Body.Close() }() // the answer is read as far as wanted
			text, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			if resp.StatusCode/100 == 2 {
				return nil
			}
			se := &StatusError{URL: shown, Status: resp.StatusCode, Body: string(bytes.TrimSpace(text))}
			if resp.StatusCode/100 == 3 {
				se.Location = resp.Header.Get("Location")
			}
			if !se.retryable() {
				return backoff.Permanent(se)
			}
			return se
		}
		retries := 0
		notify := func(error, time.Duration) { retries++ }
		err = backoff.RetryNotify(post, backoff.WithContext(policy(), ctx), notify)
		return retries, err
	}
}
