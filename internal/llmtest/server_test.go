package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const chatBody = `{"model":"m","messages":[{"role":"user","content":"hello there"}],"temperature":1e-45}`

// answer is what post read of a reply, its body already closed.
type answer struct {
	status int
	header http.Header
}

func post(ctx context.Context, t testing.TB, url, body string) (answer, []byte, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, nil, err
	}
	data, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header}, data, errors.Join(err, resp.Body.Close())
}

func TestWireFormat(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		reply      Reply
		status     int
		retryAfter string
		body       string // JSON, compared with JSONEq
	}{
		"content with usage": {
			reply:  Reply{Content: `{"ok":true}`},
			status: 200,
			body: `{"id":"chatcmpl-llmtest","object":"chat.completion","created":1700000000,"model":"m",
				"choices":[{"index":0,"message":{"role":"assistant","content":"{\"ok\":true}"},"finish_reason":"stop"}],
				"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}`,
		},
		"refusal has null content": {
			reply:  Reply{Refusal: "no", PromptTokens: 10, CompletionTokens: 1},
			status: 200,
			body: `{"id":"chatcmpl-llmtest","object":"chat.completion","created":1700000000,"model":"m",
				"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"no"},"finish_reason":"stop"}],
				"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`,
		},
		"empty has no choices": {
			reply:  Reply{Empty: true, FinishReason: "length"},
			status: 200,
			body: `{"id":"chatcmpl-llmtest","object":"chat.completion","created":1700000000,"model":"m",
				"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":0,"total_tokens":3}}`,
		},
		"429 is an OpenAI error with Retry-After": {
			reply:      Reply{Status: 429, RetryAfter: "2"},
			status:     429,
			retryAfter: "2",
			body:       `{"error":{"message":"llmtest: scripted Too Many Requests","type":"rate_limit_error","code":"rate_limit_exceeded"}}`,
		},
		"raw body is sent verbatim": {
			reply:  Reply{Status: 502, Body: `{"broken":`},
			status: 502,
			body:   "",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := New(t, Script(tc.reply))
			resp, data, err := post(t.Context(), t, s.URL()+"/chat/completions", chatBody)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.status)
			assert.Equal(t, tc.retryAfter, resp.header.Get("Retry-After"))
			if tc.body == "" {
				assert.Equal(t, tc.reply.Body, string(data))
			} else {
				assert.JSONEq(t, tc.body, string(data))
			}
			assert.Equal(t, 1, s.Calls())
		})
	}
}

func TestScriptThenFuncThenDefault(t *testing.T) {
	t.Parallel()
	s := New(t,
		Script(Reply{Content: "first"}),
		Func(func(req openai.ChatCompletionRequest) Reply {
			return Reply{Content: "echo " + req.Messages[len(req.Messages)-1].Content}
		}))
	var got []string
	for range 2 {
		_, data, err := post(t.Context(), t, s.URL()+"/chat/completions", chatBody)
		require.NoError(t, err)
		var r openai.ChatCompletionResponse
		require.NoError(t, json.Unmarshal(data, &r))
		got = append(got, r.Choices[0].Message.Content)
	}
	assert.Equal(t, []string{"first", "echo hello there"}, got)
	require.Len(t, s.Requests(), 2)
	assert.Equal(t, "m", s.Requests()[1].Model)
	assert.JSONEq(t, chatBody, string(s.RawRequests()[0]))

	d := New(t)
	_, data, err := post(t.Context(), t, d.URL()+"/chat/completions", chatBody)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"content":"{}"`, "the default reply")
}

func TestDelayEndsWhenTheClientGoesAway(t *testing.T) {
	t.Parallel()
	s := New(t, Script(Reply{Delay: time.Hour}))
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, _, err := post(ctx, t, s.URL()+"/chat/completions", chatBody)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	// The handler returns too: Close, at cleanup, would otherwise wait a
	// minute, and goleak would see the goroutine.
}

func TestResetClosesTheConnection(t *testing.T) {
	t.Parallel()
	s := New(t, Script(Reply{Reset: true}))
	_, _, err := post(t.Context(), t, s.URL()+"/chat/completions", chatBody)
	require.Error(t, err)
	assert.Equal(t, 1, s.Calls())
}

func TestEmbeddings(t *testing.T) {
	t.Parallel()
	s := New(t, Dim(3), EmbedScript(Reply{Status: 503}))
	body := `{"model":"e","input":["a","bb"]}`
	resp, _, err := post(t.Context(), t, s.URL()+"/embeddings", body)
	require.NoError(t, err)
	assert.Equal(t, 503, resp.status)
	_, data, err := post(t.Context(), t, s.URL()+"/embeddings", body)
	require.NoError(t, err)
	var r openai.EmbeddingResponse
	require.NoError(t, json.Unmarshal(data, &r))
	require.Len(t, r.Data, 2)
	assert.Equal(t, Vector("bb", 3), r.Data[1].Embedding)
	assert.Equal(t, 1, r.Data[1].Index)
	assert.Equal(t, 2, r.Usage.PromptTokens)
	assert.Equal(t, 2, s.EmbedCalls())
	assert.Equal(t, [][]string{{"a", "bb"}, {"a", "bb"}}, s.EmbedInputs())
}

// BenchmarkServer is the fake's own cost per call, 32 clients at a time,
// without latency: what it adds to a benchmark of judges.
func BenchmarkServer(b *testing.B) {
	s := New(b, Default(Reply{Content: `{"score":4,"reason":"fine"}`}))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	url := s.URL() + "/chat/completions"
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequestWithContext(b.Context(), http.MethodPost, url, bytes.NewReader([]byte(chatBody)))
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
	})
}

// TestLatency runs 600 calls at concurrency 32 against a 50 ms server:
// each call waits out the latency, and the calls overlap, at most 32 at
// once (the server counts them), so the run takes at least 600/32 x 50 ms
// and not 30 s.
func TestLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("1 s of wall time")
	}
	t.Parallel()
	s := New(t, Latency(50*time.Millisecond))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	start := time.Now()
	failed, err := Drive(t.Context(), client, s.URL(), 600, 32)
	require.NoError(t, err)
	assert.Zero(t, failed)
	took := time.Since(start)
	assert.Equal(t, 600, s.Calls())
	assert.GreaterOrEqual(t, took, 19*50*time.Millisecond, "a sleep lasts at least its time")
	assert.Greater(t, s.PeakWaiting(), 1, "the calls overlapped")
	assert.LessOrEqual(t, s.PeakWaiting(), 32, "never more than the client's concurrency")
	t.Logf("600 calls, 32 at a time, 50 ms each: %v, %d at once at most", took, s.PeakWaiting())
}

// BenchmarkFloor is the fan-out benchmark's floor on this machine: the
// same 800 calls at concurrency 32 against a 50 ms fake, made by bare
// net/http with no judge, prompt or JSON work at all. What a judge run
// takes beyond this is Assay's own cost; what this takes beyond the ideal
// (800 x 50 ms / 32 = 1.25 s) is the machine's and the fake server's.
func BenchmarkFloor(b *testing.B) {
	const calls, conc, latency = 800, 32, 50 * time.Millisecond
	s := New(b, Latency(latency), Quiet())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	ideal := calls * latency / conc
	for b.Loop() {
		if _, err := Drive(b.Context(), client, s.URL(), calls, conc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(ideal), "x-ideal")
}

// TestDrive checks that the floor client counts every failed call and
// keeps the first failure, as a run with errors must not pass for a fast
// one.
func TestDrive(t *testing.T) {
	tests := []struct {
		name    string
		script  []Reply
		failed  int
		wantErr string
	}{
		{name: "all answered", failed: 0},
		{name: "server errors", script: []Reply{{Status: 500}, {Status: 503}}, failed: 2, wantErr: "50"},
		{name: "reset", script: []Reply{{Reset: true}}, failed: 1, wantErr: "/v1/chat/completions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, Script(tt.script...))
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			failed, err := Drive(t.Context(), client, s.URL(), 6, 3)
			assert.Equal(t, 6, s.Calls())
			assert.Equal(t, tt.failed, failed)
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.wantErr)
			}
		})
	}
}

// TestOutages: Stop refuses connections until Restart, at the same URL;
// Stall holds requests until it ends and then answers them; At starts a
// fault at the n-th chat call.
func TestOutages(t *testing.T) {
	t.Parallel()
	stalled := make(chan struct{})
	s := New(t, At(2, func(s *Server) {
		close(stalled)
		s.Stall(50 * time.Millisecond)
	}))
	url := s.URL() + "/chat/completions"
	a, _, err := post(t.Context(), t, url, chatBody)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, a.status)

	// The second call starts the stall and is held by it, then answered.
	a, _, err = post(t.Context(), t, url, chatBody)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, a.status)
	<-stalled

	s.Stop()
	_, _, err = post(t.Context(), t, url, chatBody)
	require.Error(t, err, "refused while stopped")
	s.Restart()
	assert.Equal(t, url, s.URL()+"/chat/completions")
	a, _, err = post(t.Context(), t, url, chatBody)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, 3, s.Calls(), "the refused call never reached it")
}

// TestBulkReply: Bulk makes the content a valid JSON object of about that
// many bytes.
func TestBulkReply(t *testing.T) {
	t.Parallel()
	s := New(t, Default(Reply{Bulk: 1 << 20}))
	_, body, err := post(t.Context(), t, s.URL()+"/chat/completions", chatBody)
	require.NoError(t, err)
	var resp openai.ChatCompletionResponse
	require.NoError(t, json.Unmarshal(body, &resp))
	content := resp.Choices[0].Message.Content
	assert.InDelta(t, 1<<20, len(content), 16)
	var v struct{ Claims []string }
	require.NoError(t, json.Unmarshal([]byte(content), &v))
	assert.Len(t, v.Claims, 1)
}

// TestMix: a mix serves each fault at about its share, the same draws for
// the same seed, and refuses a spec it cannot read.
func TestMix(t *testing.T) {
	t.Parallel()
	ok := func(openai.ChatCompletionRequest) Reply { return Reply{Content: "{}"} }
	const calls = 20_000
	draw := func(seed uint64) map[string]int {
		m, err := Mix("500=0.05,hang=0.01,reset=0.01", seed, ok)
		require.NoError(t, err)
		for range calls {
			m.Reply(openai.ChatCompletionRequest{})
		}
		return m.Counts()
	}
	got := draw(1)
	assert.InDelta(t, 0.05*calls, got["500"], 0.01*calls)
	assert.InDelta(t, 0.01*calls, got["hang"], 0.005*calls)
	assert.InDelta(t, 0.01*calls, got["reset"], 0.005*calls)
	assert.Equal(t, calls, got["ok"]+got["500"]+got["hang"]+got["reset"])
	assert.Equal(t, got, draw(1), "the same seed, the same draws")

	for _, bad := range []string{"500", "500=x", "500=2", "nope=0.1", "500=0.6,hang=0.6"} {
		_, err := Mix(bad, 1, ok)
		assert.Error(t, err, bad)
	}
}
