package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// batchCalls are three calls, the second of which the server answers
// with a 400 (scripted by its content).
func batchCalls() []llm.BatchCall {
	schema := llm.SchemaFor[verdict]("verdict")
	out := make([]llm.BatchCall, 3)
	for i, text := range []string{"first", "refuse me", "third"} {
		out[i] = llm.BatchCall{ID: "k" + text, Request: llm.Request{Messages: []llm.Message{{Role: llm.User, Content: text}}, Schema: schema}}
	}
	return out
}

func batchServer(t *testing.T) *llmtest.Server {
	t.Helper()
	return llmtest.New(t, llmtest.Func(func(req goopenai.ChatCompletionRequest) llmtest.Reply {
		if req.Messages[0].Content == "refuse me" {
			return llmtest.Reply{Status: http.StatusBadRequest}
		}
		return llmtest.Reply{Content: `{"score": 4, "reason": "` + req.Messages[0].Content + `"}`}
	}))
}

// TestBatchRoundTrip: the calls go up as a batch input file of the
// requests Chat would send, the batch's status follows the server's, and
// its output and error files come back matched by custom_id.
func TestBatchRoundTrip(t *testing.T) {
	t.Parallel()
	srv := batchServer(t)
	b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
	require.NoError(t, err)

	st, err := b.SubmitBatch(t.Context(), batchCalls())
	require.NoError(t, err)
	assert.Equal(t, llm.BatchStatus{ID: "batch_1", Status: "validating", Total: 3}, st)

	// Each line is {custom_id, method, url, body}, the body what Chat sends.
	var lines []map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(srv.BatchInput("batch_1")))
	for dec.More() {
		var l map[string]json.RawMessage
		require.NoError(t, dec.Decode(&l))
		lines = append(lines, l)
	}
	require.Len(t, lines, 3)
	assert.JSONEq(t, `"kfirst"`, string(lines[0]["custom_id"]))
	assert.JSONEq(t, `"POST"`, string(lines[0]["method"]))
	assert.JSONEq(t, `"/v1/chat/completions"`, string(lines[0]["url"]))
	_, err = b.Chat(t.Context(), batchCalls()[0].Request)
	require.NoError(t, err)
	assert.JSONEq(t, string(srv.RawRequests()[0]), string(lines[0]["body"]), "the body is the request Chat sends")

	for _, want := range []string{"validating", "in_progress", "finalizing", "completed"} {
		st, err = b.RetrieveBatch(t.Context(), "batch_1")
		require.NoError(t, err)
		assert.Equal(t, want, st.Status)
		srv.StepBatches()
	}
	assert.True(t, st.Ended())
	assert.Equal(t, 2, st.Completed)
	assert.Equal(t, 1, st.Failed)
	assert.NotEmpty(t, st.OutputFile)
	assert.NotEmpty(t, st.ErrorFile)

	replies, err := b.BatchReplies(t.Context(), st)
	require.NoError(t, err)
	require.Len(t, replies, 3)
	byID := map[string]llm.BatchReply{}
	for _, r := range replies {
		byID[r.ID] = r
	}
	for _, id := range []string{"kfirst", "kthird"} {
		r := byID[id]
		require.NoError(t, r.Err)
		assert.False(t, r.Failed)
		assert.JSONEq(t, `{"score": 4, "reason": "`+id[1:]+`"}`, r.Response.Content)
		assert.Equal(t, llmtest.Tokens(r.Response.Content), r.Response.Usage.TokensOut)
		assert.Positive(t, r.Response.Usage.TokensIn)
	}
	refused := byID["krefuse me"]
	assert.True(t, refused.Failed)
	var se *llm.StatusError
	require.ErrorAs(t, refused.Err, &se)
	assert.Equal(t, http.StatusBadRequest, se.Code)
	assert.Equal(t, llmtest.BatchCounts{Uploads: 1, Created: 1, Retrieved: 4, Lines: 3}, srv.BatchCounts())
}

// TestBatchExpiredAndFailed: an expired batch's unanswered calls come
// back failed (batch_expired); a failed batch says why and has no file.
func TestBatchExpiredAndFailed(t *testing.T) {
	t.Parallel()
	srv := batchServer(t)
	b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
	require.NoError(t, err)
	for range 2 {
		_, err := b.SubmitBatch(t.Context(), batchCalls())
		require.NoError(t, err)
	}
	srv.EndBatch("batch_1", "expired", 1)
	srv.EndBatch("batch_2", "failed", 0)

	st, err := b.RetrieveBatch(t.Context(), "batch_1")
	require.NoError(t, err)
	assert.Equal(t, llm.BatchExpired, st.Status)
	replies, err := b.BatchReplies(t.Context(), st)
	require.NoError(t, err)
	require.Len(t, replies, 3)
	assert.False(t, replies[0].Failed)
	for _, r := range replies[1:] {
		assert.True(t, r.Failed)
		assert.ErrorContains(t, r.Err, "batch_expired")
	}

	st, err = b.RetrieveBatch(t.Context(), "batch_2")
	require.NoError(t, err)
	assert.Equal(t, llm.BatchFailed, st.Status)
	assert.Equal(t, []string{"failed: llmtest: the batch failed as the test asked"}, st.Errors)
	replies, err = b.BatchReplies(t.Context(), st)
	require.NoError(t, err)
	assert.Empty(t, replies)
}

// TestBatchOnAServerWithoutTheEndpoint: the upload's 404 is a
// *llm.StatusError naming the step.
func TestBatchOnAServerWithoutTheEndpoint(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	b, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "judge"})
	require.NoError(t, err)
	_, err = b.SubmitBatch(t.Context(), batchCalls())
	require.ErrorContains(t, err, "openai:judge: upload batch file")
	var se *llm.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusNotFound, se.Code)
}

// TestBatchRepliesRefusesAFileItCannotRead: a line that is not a batch
// line is an error naming the file and the line.
func TestBatchRepliesRefusesAFileItCannotRead(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		body, want string
	}{
		"not JSON":     {`{"custom_id":"a","response":{"status_code":200,"body":{}}}` + "\nnot json\n", "file file-9, line 2: not a batch line"},
		"no custom_id": {`{"response":{"status_code":200,"body":{}}}` + "\n", "file file-9, line 1: no custom_id"},
		"after blank lines": {`{"custom_id":"a","response":{"status_code":200,"body":{}}}` + "\n\n\r\n" + `{"custom_id":"b","response":{"status_code":200,"body":{}}}` + "\nnot json\n",
			"file file-9, line 5: not a batch line"},
		"one line split in two": {`{"custom_id":"a",` + "\n" + `"response":{"status_code":200,"body":{}}}` + "\n", "file file-9, line 1: not a batch line"},
		"two lines in one": {`{"custom_id":"a","response":{"status_code":200,"body":{}}} {"custom_id":"b","response":{"status_code":200,"body":{}}}` + "\n",
			"file file-9, line 1: not a batch line"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(tc.body)) }))
			t.Cleanup(srv.Close)
			b, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "judge"})
			require.NoError(t, err)
			_, err = b.BatchReplies(t.Context(), llm.BatchStatus{ID: "batch_9", Status: llm.BatchCompleted, OutputFile: "file-9"})
			require.ErrorContains(t, err, "openai:judge: batch batch_9: "+tc.want)
		})
	}
}

// TestBatchPastTheLimitsIsNotSent: calls past a batch's limits (the
// requests, the bytes of its input file) are refused before anything is
// uploaded, saying how many fit, rather than sent as a batch the server
// fails in validation.
func TestBatchPastTheLimitsIsNotSent(t *testing.T) {
	t.Parallel()
	// Each line's size, as the input file has it.
	var sizes []int
	{
		srv := batchServer(t)
		b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
		require.NoError(t, err)
		_, err = b.SubmitBatch(t.Context(), batchCalls())
		require.NoError(t, err)
		for line := range bytes.Lines(srv.BatchInput("batch_1")) {
			sizes = append(sizes, len(bytes.TrimSuffix(line, []byte("\n")))+1)
		}
		require.Len(t, sizes, 3)
	}
	for name, tc := range map[string]struct {
		calls, bytes int
		err          *llm.BatchTooLargeError
	}{
		"within both":       {3, sizes[0] + sizes[1] + sizes[2], nil},
		"past the requests": {2, 0, &llm.BatchTooLargeError{Calls: 3, Fits: 2, Limit: "2 calls"}},
		"past the bytes":    {0, sizes[0] + sizes[1] + sizes[2] - 1, &llm.BatchTooLargeError{Calls: 3, Fits: 2, Limit: itoa(sizes[0]+sizes[1]+sizes[2]-1) + " bytes of input file"}},
		"a call past them":  {0, sizes[0] - 1, &llm.BatchTooLargeError{Calls: 3, Fits: 0, Limit: itoa(sizes[0]-1) + " bytes of input file"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := batchServer(t)
			b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge", BatchMaxCalls: tc.calls, BatchMaxBytes: tc.bytes})
			require.NoError(t, err)
			_, err = b.SubmitBatch(t.Context(), batchCalls())
			if tc.err == nil {
				require.NoError(t, err)
				assert.Equal(t, 1, srv.BatchCounts().Created)
				return
			}
			var tl *llm.BatchTooLargeError
			require.ErrorAs(t, err, &tl)
			assert.Equal(t, tc.err, tl)
			assert.Equal(t, llmtest.BatchCounts{}, srv.BatchCounts(), "nothing uploaded")
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// cancelOnCreate calls cancel once the server has made a batch, before
// its answer reaches the client.
type cancelOnCreate struct {
	http.ResponseWriter
	cancel func()
}

func (c cancelOnCreate) WriteHeader(code int) {
	c.cancel()
	c.ResponseWriter.WriteHeader(code)
}

// TestBatchStoppedWhileCreatedKeepsItsID: a stop (an interrupt) that
// comes while the server makes the batch does not lose its id: the batch
// is paid for, and a resume that did not know it would submit its calls
// again. A stop before the file is uploaded creates nothing.
func TestBatchStoppedWhileCreatedKeepsItsID(t *testing.T) {
	t.Parallel()
	srv := batchServer(t)
	target, err := url.Parse(strings.TrimSuffix(srv.URL(), "/v1"))
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	ctx, stop := context.WithCancel(t.Context())
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/batches" {
			w = cancelOnCreate{w, stop}
		}
		proxy.ServeHTTP(w, r.WithContext(context.WithoutCancel(r.Context())))
	}))
	t.Cleanup(front.Close)
	b, err := openai.New(openai.Config{BaseURL: front.URL + "/v1", Model: "judge"})
	require.NoError(t, err)

	st, err := b.SubmitBatch(ctx, batchCalls())
	require.NoError(t, err)
	assert.Equal(t, "batch_1", st.ID)
	require.Error(t, ctx.Err(), "stopped while the batch was made")

	_, err = b.SubmitBatch(ctx, batchCalls())
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, srv.BatchCounts().Created)
}
