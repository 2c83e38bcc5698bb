package web

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// SearxNG searches the web through a SearxNG instance's JSON API
// (GET {BaseURL}/search?q=...&format=json&pageno=1). The instance must allow
// the json format (search.formats in its settings.yml); a 403 says it does
// not.
//
// Results carry no Text: the caller fetches the pages it keeps. Only the
// first page is asked for (SearxNG returns 10 to 30 results on it), so
// Limit cannot raise the count above that. The zero Client means
// http.DefaultClient. A SearxNG is safe for concurrent use.
type SearxNG struct {
	// BaseURL is the instance, with any path prefix:
	// "http://localhost:8888" or "https://example.org/searx".
	BaseURL string
	// Client sends the requests; nil means http.DefaultClient. Its timeout,
	// Timeout and the ctx of Search all bound a request.
	Client *http.Client
	// Timeout bounds one search, reply included. Zero means
	// DefaultSearxNGTimeout (30s). An instance that sends no reply within
	// it is unreachable: a run waits no longer for a hung instance.
	Timeout time.Duration
}

// DefaultSearxNGTimeout is the Timeout of a SearxNG whose field is zero:
// an instance asks its engines for a few seconds each, so a reply later
// than this is not coming.
const DefaultSearxNGTimeout = 30 * time.Second

// SearxNGName is the Backend name of SearxNG results.
const SearxNGName = "searxng"

// SearxNGError is a reply from SearxNG other than 200 OK. Test for it with
// errors.As; StatusCode 429 means the instance (or an engine behind it) is
// rate limiting, and is worth retrying after RetryAfter.
type SearxNGError struct {
	StatusCode int
	// RetryAfter is the reply's Retry-After header, as sent; "" if none.
	RetryAfter string
	// Body is the start of the reply body, for the message.
	Body string
}

func (e *SearxNGError) Error() string {
	msg := fmt.Sprintf("searxng: HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.StatusCode == http.StatusForbidden {
		msg += " (is the json format enabled in search.formats of settings.yml?)"
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Name is the backend name, "searxng".
func (s *SearxNG) Name() string { return SearxNGName }

// maxSearxNGReply caps the bytes read of one reply.
const maxSearxNGReply = 8 << 20

// searxngReply is the part of SearxNG's JSON reply that is read.
type searxngReply struct {
	Results []struct {
		URL           string  `json:"url"`
		Title         string  `json:"title"`
		Content       string  `json:"content"`
		PublishedDate *string `json:"publishedDate"`
		Engine        string  `json:"engine"`
		Score         float64 `json:"score"`
	} `json:"results"`
}

// Search asks SearxNG for q.Text and returns its results in SearxNG's
// order, without non-HTTP URLs and duplicates (the first of the results
// with one DocumentKey is kept), with ExcludeDomains, PreferDomains and
// Limit applied here (SearxNG does not know them). Empty
// text returns no results without a request. An instance that cannot be
// reached (no reply at all) is an *UnreachableError; a status other than
// 200 is a *SearxNGError; a reply that is not SearxNG JSON, or is larger
// than 8 MB, is an error too.
func (s *SearxNG) Search(ctx context.Context, q Query) ([]Result, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, nil
	}
	base, err := url.Parse(strings.TrimSpace(s.BaseURL))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("searxng: base URL %q is not an http(s) URL", s.BaseURL)
	}
	u := base.JoinPath("search")
	u.RawQuery = url.Values{"q": {text}, "format": {"json"}, "pageno": {"1"}}.Encode()
	timeout := cmp.Or(s.Timeout, DefaultSearxNGTimeout)
	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("searxng: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("searxng: %w", err)
		}
		// No reply at all: the instance is down, hung, or the URL is
		// wrong. The request's method and URL are left out; Backend
		// names the URL.
		var ue *url.Error
		switch {
		case reqCtx.Err() != nil:
			err = fmt.Errorf("no reply within %s", timeout)
		case errors.As(err, &ue):
			err = ue.Err
		}
		return nil, &UnreachableError{Backend: SearxNGName + ":" + s.BaseURL, Err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, &SearxNGError{
			StatusCode: resp.StatusCode,
			RetryAfter: resp.Header.Get("Retry-After"),
			Body:       corpusSpaces(string(head)),
		}
	}
	var reply searxngReply
	body := &io.LimitedReader{R: resp.Body, N: maxSearxNGReply + 1}
	if err := json.NewDecoder(body).Decode(&reply); err != nil {
		switch {
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			return nil, fmt.Errorf("searxng: read reply: %w", err)
		case body.N == 0:
			// Cut at the cap, the JSON ends early: it is not
			// malformed, it is too long.
			return nil, fmt.Errorf("searxng: reply larger than %s", formatSize(maxSearxNGReply))
		}
		return nil, fmt.Errorf("searxng: reply is not SearxNG JSON (%s): %w", resp.Header.Get("Content-Type"), err)
	}

	results := make([]Result, 0, len(reply.Results))
	for _, r := range reply.Results {
		ru, err := url.Parse(strings.TrimSpace(r.URL))
		if err != nil || (ru.Scheme != "http" && ru.Scheme != "https") || ru.Host == "" {
			continue
		}
		res := Result{
			URL:     ru.String(),
			Title:   searxngLine(r.Title),
			Snippet: searxngLine(r.Content),
			Score:   r.Score,
			Backend: SearxNGName,
		}
		if r.PublishedDate != nil {
			res.Published = searxngDate(*r.PublishedDate)
		}
		results = append(results, res)
	}
	urlOf := func(r Result) string { return r.URL }
	return applyDomainRules(newDomainRules(q), firstOfEachDocument(results, urlOf), urlOf, q.limit()), nil
}

// searxngLine is text of a result as one line, without control and
// bidirectional formatting characters (cleanText): what the engines
// behind SearxNG took from pages is quoted in reports.
func searxngLine(s string) string {
	s, _ = cleanText(s)
	return corpusSpaces(s)
}

// searxngDate parses the publishedDate forms SearxNG engines send (ISO 8601
// with or without a zone, or a bare date); the zero time when none fits.
func searxngDate(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}
