package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"
)

// trickle opens a connection to the server at addr and sends a request
// to /v1/context-score whose body stops after its first byte; the
// test's end closes it.
func trickle(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := (&net.Dialer{}).DialContext(t.Context(), "tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	_, err = io.WriteString(c, "POST /v1/context-score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	require.NoError(t, err)
	return c
}

// gauge is the value of a gauge of the server's /metrics.
func gauge(t *testing.T, url, family string) float64 {
	v, _ := sample(scrape(t, url), family)
	return v
}

func readiness(t *testing.T, url string) (int, HealthResponse) {
	t.Helper()
	code, body := call(t, http.MethodGet, url+"/readyz", "")
	var h HealthResponse
	require.NoError(t, json.Unmarshal([]byte(body), &h), body)
	return code, h
}

// TestSlowBodiesHoldNoPlace: ten clients sending their bodies a byte at
// a time hold none of the two places in flight: a normal request is
// answered and /readyz says ready; two requests held at the model take
// both places, and then /readyz says busy (503), as an API request is
// answered 503, until they are answered.
func TestSlowBodiesHoldNoPlace(t *testing.T) {
	t.Parallel()
	g := newGatedModel(t)
	s := serveOn(t, Config{MaxInFlight: 2, ReadTimeout: time.Minute, Env: g.env, Judging: withModel(Config{}, "").Judging})
	addr := strings.TrimPrefix(s.URL, "http://")
	for range 10 {
		trickle(t, addr)
	}
	eventually(t, "ten bodies arriving", func() bool { return gauge(t, s.URL, "assay_http_receiving") == 10 })

	code, body := call(t, http.MethodPost, s.URL+"/v1/context-score", `{"query": "What is QUIC?", "chunks": []}`)
	require.Equal(t, http.StatusOK, code, body)
	code, h := readiness(t, s.URL)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, HealthResponse{Status: "ready", Judge: h.Judge, QueueSize: defaultQueue, InFlight: 0, MaxInFlight: 2}, h)

	judged := make(chan int, 2)
	for range 2 {
		go func() {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/v1/judge", strings.NewReader(mustJSON(t, exampleJudge)))
			if err != nil {
				judged <- 0
				return
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				judged <- 0
				return
			}
			_ = resp.Body.Close()
			judged <- resp.StatusCode
		}()
	}
	eventually(t, "both places taken", func() bool { return gauge(t, s.URL, "assay_http_in_flight") == 2 })
	code, h = readiness(t, s.URL)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "busy", h.Status)
	assert.Equal(t, 2, h.InFlight)
	code, _ = call(t, http.MethodPost, s.URL+"/v1/context-score", `{"query": "q", "chunks": []}`)
	assert.Equal(t, http.StatusServiceUnavailable, code, "readyz said so")
	code, health := call(t, http.MethodGet, s.URL+"/healthz", "")
	assert.Equal(t, http.StatusOK, code, "alive all the same")
	assert.Contains(t, health, `"in_flight": 2`)

	g.release()
	assert.Equal(t, http.StatusOK, <-judged)
	assert.Equal(t, http.StatusOK, <-judged)
	eventually(t, "ready again", func() bool { code, _ := readiness(t, s.URL); return code == http.StatusOK })
}

// TestASlowBodyIsCut: a body that has not come within --read-timeout is
// answered 408 and its connection closed; a request whose body came at
// once is answered however long its judgement takes past that time
// (the read deadline is lifted), shown by a slow body cut meanwhile.
func TestASlowBodyIsCut(t *testing.T) {
	t.Parallel()
	g := newGatedModel(t)
	s := serveOn(t, Config{ReadTimeout: 50 * time.Millisecond, Env: g.env, Judging: withModel(Config{}, "").Judging})
	judged := make(chan int, 1)
	go func() {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/v1/judge", strings.NewReader(mustJSON(t, exampleJudge)))
		if err != nil {
			judged <- 0
			return
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			judged <- 0
			return
		}
		_ = resp.Body.Close()
		judged <- resp.StatusCode
	}()
	<-g.arrived // the judgement is held at the model

	c := trickle(t, strings.TrimPrefix(s.URL, "http://"))
	require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Minute))) // only stops a test that would hang
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	assert.Contains(t, string(b), "request body not received within 50ms (assay serve --read-timeout)")
	assert.True(t, resp.Close, "the connection is closed")

	g.release() // 50 ms have passed: the judgement's request goes on
	assert.Equal(t, http.StatusOK, <-judged)
}

// TestContextBodiesAreNotShared: the context score reads each body into
// a buffer kept between requests; eight clients sending at once, each
// its own chunk score and text of its own length, each get the answer of
// their own body (retrieval confidence 0.7 score + 0.3 for one chunk).
func TestContextBodiesAreNotShared(t *testing.T) {
	t.Parallel()
	s := serveOn(t, Config{})
	var g errgroup.Group
	for c := range 8 {
		g.Go(func() error {
			for i := range 25 {
				score := 0.01 + float64(c*25+i)*0.004
				body, err := json.Marshal(map[string]any{"query": "q", "chunks": []any{map[string]any{
					"content": strings.Repeat("word ", 1+(c*25+i)*37%900), "score": score, "documentId": "d"}}})
				if err != nil {
					return err
				}
				resp, err := http.Post(s.URL+"/v1/context-score", "application/json", bytes.NewReader(body)) //nolint:noctx // the test's server, ended with it
				if err != nil {
					return err
				}
				var got struct {
					RetrievalConfidence float64 `json:"retrievalConfidence"`
				}
				err = json.NewDecoder(resp.Body).Decode(&got)
				_ = resp.Body.Close()
				if err != nil {
					return err
				}
				if want := 0.7*score + 0.3; math.Abs(got.RetrievalConfidence-want) > 1e-12 {
					return fmt.Errorf("client %d request %d: retrieval confidence %v, want %v", c, i, got.RetrievalConfidence, want)
				}
			}
			return nil
		})
	}
	require.NoError(t, g.Wait())
}
