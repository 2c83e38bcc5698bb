// Package llmtest is a fake OpenAI-compatible server for tests: it speaks
// the real wire format of /v1/chat/completions and /v1/embeddings, replays
// scripted replies (errors with Retry-After, malformed bodies, resets,
// delays, refusals) and records what it was sent.
//
//	srv := llmtest.New(t, llmtest.Script(
//		llmtest.Reply{Status: 429, RetryAfter: "1"},
//		llmtest.Reply{Content: `{"score": 4}`},
//	))
//	b, _ := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
//	// ... srv.Calls() == 2
package llmtest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/llm"
)

// Reply is one scripted answer. The zero Reply is a 200 with an empty
// assistant message; set Content for anything useful.
type Reply struct {
	// Status is the HTTP status (default 200). At 400 and above the body is
	// an OpenAI error object unless Body is set.
	Status int
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// Header holds other response headers (retry-after-ms,
	// x-ratelimit-*).
	Header http.Header
	// Body, when set, is sent verbatim instead of a generated body (for
	// malformed or cut-off JSON), as application/json unless Header
	// gives another Content-Type.
	Body string
	// Content is the assistant message; Refusal the message's refusal
	// field; FinishReason defaults to "stop".
	Content      string
	Refusal      string
	FinishReason string
	// PromptTokens and CompletionTokens override the usage the server
	// reports; zero means Tokens of the prompt and of Content.
	PromptTokens, CompletionTokens int
	// Delay holds the reply back; it ends early when the client goes away.
	Delay time.Duration
	// Reset closes the connection (with a TCP RST) instead of answering.
	Reset bool
	// Empty answers with zero choices.
	Empty bool
	// Logprobs are the reply's tokens with their log-probabilities (see
	// Tokenize), sent when the request asks for logprobs, each token's
	// alternatives cut to the top_logprobs it asks for; their texts must
	// make up Content.
	Logprobs []llm.TokenLogprob
	// Bulk, when set, makes Content a valid JSON object of about Bulk
	// bytes (a claims list of one long claim): a reply far over any cap.
	Bulk int
	// Fingerprint, when set, is the reply's system_fingerprint: the name
	// of the model build that answered.
	Fingerprint string
}

// Option configures a Server.
type Option func(*Server)

// Script queues replies for chat calls, answered in order; after the
// queue runs out the Func or the default reply answers.
func Script(replies ...Reply) Option {
	return func(s *Server) { s.queue = append(s.queue, replies...) }
}

// Func answers chat calls the queue does not, from the decoded request. It
// is called from many goroutines at once.
func Func(f func(req openai.ChatCompletionRequest) Reply) Option {
	return func(s *Server) { s.fn = f }
}

// Default sets the reply once the queue is empty and there is no Func
// (default: Content "{}").
func Default(r Reply) Option {
	return func(s *Server) { s.def = r }
}

// EmbedScript queues replies for embedding calls; only the status, header,
// body, delay and reset fields are used. Once it runs out, embeddings
// succeed with Dim-sized vectors derived from each input.
func EmbedScript(replies ...Reply) Option {
	return func(s *Server) { s.embedQueue = append(s.embedQueue, replies...) }
}

// Latency delays every call by d (for benchmarks), before any Reply.Delay.
func Latency(d time.Duration) Option {
	return func(s *Server) { s.latency = d }
}

// Quiet stops the server from keeping every request (for long runs).
func Quiet() Option {
	return func(s *Server) { s.quiet = true }
}

// Dim sets the length of the vectors the embedding endpoint returns
// (default 8).
func Dim(n int) Option {
	return func(s *Server) { s.dim = n }
}

// At runs f when the n-th chat call arrives (counting from 1), on a
// goroutine of its own, for faults in the middle of a run: a blip
// (Server.Down), a stall (Server.Stall). Close waits for it.
func At(n int, f func(*Server)) Option {
	return func(s *Server) { s.at = append(s.at, trigger{n, f}) }
}

type trigger struct {
	n int
	f func(*Server)
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	fn      func(openai.ChatCompletionRequest) Reply
	def     Reply
	latency time.Duration
	dim     int
	quiet   bool
	mux     *http.ServeMux
	url     string
	at      []trigger
	bg      sync.WaitGroup // the goroutines of At
	bucket  *Bucket        // the rate limit, nil: none

	calls, embedCalls atomic.Int64
	// tokensIn and tokensOut sum the usage the chat completions sent
	// reported (Usage).
	tokensIn, tokensOut atomic.Int64
	// waiting is the calls in their latency or delay now; peak, the most
	// at once so far.
	waiting, peak atomic.Int64

	mu         sync.Mutex
	srv        *httptest.Server
	stalled    chan struct{} // closed when a stall ends; nil: none
	queue      []Reply
	embedQueue []Reply
	requests   []openai.ChatCompletionRequest
	// The batch API's files, batches and counts (batch.go).
	files       map[string][]byte
	batches     []*batchState
	batchCounts BatchCounts
	autoBatches bool
	raw         [][]byte
	embeds      [][]string
}

// New starts a Server, closed when t's test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a Server outside a test (the fakellm command); Close stops it.
func Start(opts ...Option) *Server {
	s := &Server{def: Reply{Content: "{}"}, dim: 8}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/embeddings", s.embed)
	mux.HandleFunc("POST /v1/files", s.uploadFile)
	mux.HandleFunc("GET /v1/files/{id}/content", s.fileContent)
	mux.HandleFunc("POST /v1/batches", s.createBatch)
	mux.HandleFunc("GET /v1/batches/{id}", s.retrieveBatch)
	s.mux = mux
	s.srv = httptest.NewServer(mux)
	s.url = s.srv.URL
	return s
}

// Handler serves the fake API, for mounting on another listener.
func (s *Server) Handler() http.Handler { return s.mux }

// Close stops the server and waits for its requests, and the faults At
// started, to finish.
func (s *Server) Close() {
	for {
		s.mu.Lock()
		srv := s.srv
		s.mu.Unlock()
		// Closed, it starts no handler, so no fault: then wait for those
		// under way, one of which may have started the server again.
		srv.Close()
		s.bg.Wait()
		s.mu.Lock()
		same := s.srv == srv
		s.mu.Unlock()
		if same {
			return
		}
	}
}

// URL is the base URL to give a client, ending in /v1. It stays the same
// across Down.
func (s *Server) URL() string { return s.url + "/v1" }

// Down stops the server for d, as a process that is stopped and started
// again (Stop, then Restart after d). It returns once the server is back.
func (s *Server) Down(d time.Duration) {
	s.Stop()
	t := time.NewTimer(d)
	<-t.C
	s.Restart()
}

// Stop stops the server as a process that ends: the connections open are
// cut (requests in flight fail) and new ones are refused, until Restart.
func (s *Server) Stop() {
	s.mu.Lock()
	old := s.srv
	s.mu.Unlock()
	old.CloseClientConnections()
	old.Close()
}

// Restart listens again at the address of the stopped server.
func (s *Server) Restart() {
	s.mu.Lock()
	defer s.mu.Unlock()
	addr := strings.TrimPrefix(s.url, "http://")
	var ln net.Listener
	var err error
	t := time.NewTimer(0)
	for range 100 {
		<-t.C
		// The port may be held for a moment by the old listener's end.
		if ln, err = (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr); err == nil {
			break
		}
		t.Reset(10 * time.Millisecond)
	}
	if err != nil {
		panic("llmtest: listen again at " + addr + ": " + err.Error())
	}
	srv := httptest.NewUnstartedServer(s.mux)
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	s.srv = srv
}

// Stall holds every chat request, those in flight and those arriving,
// for d (the connections stay open), then lets them answer, as a server
// that stops making progress for a while. It returns when the stall ends.
func (s *Server) Stall(d time.Duration) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.stalled = ch
	s.mu.Unlock()
	t := time.NewTimer(d)
	<-t.C
	s.mu.Lock()
	s.stalled = nil
	s.mu.Unlock()
	close(ch)
}

// held waits while a stall is under way; it reports whether the client is
// still there.
func (s *Server) held(r *http.Request) bool {
	s.mu.Lock()
	ch := s.stalled
	s.mu.Unlock()
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Calls is the number of chat requests received, failed ones included.
func (s *Server) Calls() int { return int(s.calls.Load()) }

// Usage is the sum of the prompt and completion tokens the chat
// completions the server sent reported in their usage blocks (not those
// of Body or Bulk replies, whose usage is their own text's): what a
// client's usage figures must add up to.
func (s *Server) Usage() (in, out int) { return int(s.tokensIn.Load()), int(s.tokensOut.Load()) }

// PeakWaiting is the most calls that were in their latency or delay at
// once: how far a client's calls overlapped.
func (s *Server) PeakWaiting() int { return int(s.peak.Load()) }

// EmbedCalls is the number of embedding requests received.
func (s *Server) EmbedCalls() int { return int(s.embedCalls.Load()) }

// Requests returns the decoded chat requests, in arrival order.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), s.requests...)
}

// RawRequests returns the chat request bodies as sent, in arrival order,
// for assertions on the wire format (a field present or absent).
func (s *Server) RawRequests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.raw...)
}

// EmbedInputs returns the inputs of each embedding request.
func (s *Server) EmbedInputs() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.embeds...)
}

// Push appends replies to the chat queue.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	n := s.calls.Add(1)
	for _, tr := range s.at {
		if int64(tr.n) == n {
			s.bg.Go(func() { tr.f(s) })
		}
	}
	if !s.held(r) {
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid request body: "+err.Error())
		return
	}
	if s.bucket != nil && !s.bucket.limit(w) {
		return // refused at once, before any latency
	}
	s.mu.Lock()
	if !s.quiet {
		s.requests = append(s.requests, req)
		s.raw = append(s.raw, body)
	}
	s.mu.Unlock()
	reply := s.next(req)
	if !s.prelude(w, r, reply) || !s.held(r) {
		return
	}
	if reply.Bulk > 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(bulkBody(reply.Bulk))
		return
	}
	resp := completion(req, reply)
	s.tokensIn.Add(int64(resp.Usage.PromptTokens))
	s.tokensOut.Add(int64(resp.Usage.CompletionTokens))
	writeJSON(w, http.StatusOK, resp)
}

// next is the reply to req: the queue's next, else the Func's, else the
// default.
func (s *Server) next(req openai.ChatCompletionRequest) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		var reply Reply
		reply, s.queue = s.queue[0], s.queue[1:]
		s.mu.Unlock()
		return reply
	}
	s.mu.Unlock()
	if s.fn != nil {
		return s.fn(req)
	}
	return s.def
}

// completion is the chat completion that answers req with reply.
func completion(req openai.ChatCompletionRequest, reply Reply) chatResponse {
	resp := chatResponse{
		ID: "chatcmpl-llmtest", Object: "chat.completion", Created: 1700000000, Model: req.Model,
		Choices: []choice{},
		Usage:   usage{PromptTokens: reply.PromptTokens, CompletionTokens: reply.CompletionTokens},

		SystemFingerprint: reply.Fingerprint,
	}
	if resp.Usage.PromptTokens == 0 {
		for _, m := range req.Messages {
			resp.Usage.PromptTokens += Tokens(m.Content)
		}
	}
	if resp.Usage.CompletionTokens == 0 {
		resp.Usage.CompletionTokens = Tokens(reply.Content)
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	if !reply.Empty {
		fr := reply.FinishReason
		if fr == "" {
			fr = "stop"
		}
		c := choice{FinishReason: fr, Message: message{Role: "assistant", Refusal: reply.Refusal}}
		if reply.Content != "" || reply.Refusal == "" {
			c.Message.Content = &reply.Content
		}
		if req.LogProbs && reply.Logprobs != nil {
			c.Logprobs = wireLogprobs(reply.Logprobs, req.TopLogProbs)
		}
		resp.Choices = append(resp.Choices, c)
	}
	return resp
}

func (s *Server) embed(w http.ResponseWriter, r *http.Request) {
	s.embedCalls.Add(1)
	var req struct {
		Input any    `json:"input"`
		Model string `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid request body: "+err.Error())
		return
	}
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, v := range in {
			str, _ := v.(string)
			inputs = append(inputs, str)
		}
	}
	s.mu.Lock()
	if !s.quiet {
		s.embeds = append(s.embeds, inputs)
	}
	var reply Reply
	if len(s.embedQueue) > 0 {
		reply, s.embedQueue = s.embedQueue[0], s.embedQueue[1:]
	}
	s.mu.Unlock()
	if !s.prelude(w, r, reply) {
		return
	}
	resp := embedResponse{Object: "list", Model: req.Model, Data: make([]embedding, len(inputs))}
	for i, in := range inputs {
		resp.Data[i] = embedding{Object: "embedding", Index: i, Embedding: Vector(in, s.dim)}
		resp.Usage.PromptTokens += Tokens(in)
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	writeJSON(w, http.StatusOK, resp)
}

// bulks holds the bodies of Bulk replies by size, built once: encoding
// megabytes for every call would make the server, not the client, the
// slow part of a test.
var bulks sync.Map // int -> []byte

// bulkBody is the body of a chat completion whose content is a valid JSON
// object of about size bytes.
func bulkBody(size int) []byte {
	if b, ok := bulks.Load(size); ok {
		return b.([]byte)
	}
	content := `{"claims":["` + strings.Repeat("a", max(size-16, 0)) + `"]}`
	b, err := json.Marshal(chatResponse{
		ID: "chatcmpl-llmtest", Object: "chat.completion", Created: 1700000000, Model: "bulk",
		Choices: []choice{{FinishReason: "stop", Message: message{Role: "assistant", Content: &content}}},
		Usage:   usage{PromptTokens: 100, CompletionTokens: Tokens(content), TotalTokens: 100 + Tokens(content)},
	})
	if err != nil {
		panic("llmtest: bulk reply: " + err.Error())
	}
	b = append(b, '\n')
	bulks.Store(size, b)
	return b
}

// prelude applies the latency, delay, reset, status and raw body of a
// reply; it reports whether the caller should still write a success body.
func (s *Server) prelude(w http.ResponseWriter, r *http.Request, reply Reply) bool {
	n := s.waiting.Add(1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	ok := wait(r, s.latency+reply.Delay)
	s.waiting.Add(-1)
	if !ok {
		return false
	}
	if reply.Reset {
		reset(w)
		return false
	}
	for k, v := range reply.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = v
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.Body != "" {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.Body)
		return false
	}
	if status >= 400 {
		writeError(w, status, "llmtest: scripted "+http.StatusText(status))
		return false
	}
	return true
}

// wait sleeps for d, or until the client goes away; it reports whether the
// client is still there.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// reset hijacks the connection and closes it with an RST, so the client
// sees "connection reset by peer".
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("llmtest: ResponseWriter cannot hijack")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// errorType gives the OpenAI error type and code for a status.
func errorType(status int) (typ, code string) {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error", "invalid_api_key"
	case status == http.StatusForbidden:
		return "permission_error", "unsupported_country_region_territory"
	case status == http.StatusNotFound:
		return "invalid_request_error", "model_not_found"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error", "rate_limit_exceeded"
	case status >= 500:
		return "server_error", "server_error"
	default:
		return "invalid_request_error", "invalid_request"
	}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	typ, code := errorType(status)
	writeJSON(w, status, errorBody{Error: apiError{Message: msg, Type: typ, Code: code}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Tokens is the fake tokenizer the server reports usage with: one token
// per four bytes, rounded up.
func Tokens(s string) int { return (len(s) + 3) / 4 }

// Vector is the embedding the server returns for text: dim values derived
// from an FNV-1a hash, the same for the same text.
func Vector(text string, dim int) []float32 {
	h := uint32(2166136261)
	for i := 0; i < len(text); i++ {
		h = (h ^ uint32(text[i])) * 16777619
	}
	v := make([]float32, dim)
	for i := range v {
		h = h*1664525 + 1013904223
		v[i] = float32(h>>8)/float32(1<<24)*2 - 1
	}
	return v
}

// Wire types, written here rather than reusing go-openai's so the fake
// checks the client against the documented format, not against itself.
type (
	errorBody struct {
		Error apiError `json:"error"`
	}
	apiError struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    string `json:"code"`
	}
	chatResponse struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   usage    `json:"usage"`
		// SystemFingerprint is Reply.Fingerprint, absent when empty.
		SystemFingerprint string `json:"system_fingerprint,omitempty"`
	}
	choice struct {
		Index        int           `json:"index"`
		Message      message       `json:"message"`
		Logprobs     *logprobsWire `json:"logprobs,omitempty"`
		FinishReason string        `json:"finish_reason"`
	}
	message struct {
		Role    string  `json:"role"`
		Content *string `json:"content"`
		Refusal string  `json:"refusal,omitempty"`
	}
	usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	embedResponse struct {
		Object string      `json:"object"`
		Data   []embedding `json:"data"`
		Model  string      `json:"model"`
		Usage  usage       `json:"usage"`
	}
	embedding struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
)
