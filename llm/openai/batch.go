package openai

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/llm"
)

var _ llm.BatchAPI = (*Backend)(nil)

// OpenAI's limits on one batch: its requests, and the bytes of its input
// file.
const (
	MaxBatchCalls = 50_000
	MaxBatchBytes = 200_000_000
)

// SubmitBatch uploads calls as a batch input file (JSON Lines of
// {custom_id, method, url, body}, each body the request Chat would send)
// with purpose "batch", and creates a batch of it on
// /v1/chat/completions with a 24-hour window; a stop of ctx while the
// batch is created does not lose its id. Calls past the batch limits
// (Config.BatchMaxCalls, BatchMaxBytes) are refused, nothing sent, with
// an *llm.BatchTooLargeError saying how many fit.
func (b *Backend) SubmitBatch(ctx context.Context, calls []llm.BatchCall) (llm.BatchStatus, error) {
	in := openai.UploadBatchFileRequest{FileName: "assay-batch.jsonl"}
	size := 0
	for i, c := range calls {
		in.AddChatCompletion(c.ID, b.chatRequest(c.Request))
		size += len(in.Lines[i].MarshalBatchLineItem()) + 1 // the line and its break
		switch {
		case i >= b.cfg.BatchMaxCalls:
			return llm.BatchStatus{}, &llm.BatchTooLargeError{Calls: len(calls), Fits: i, Limit: fmt.Sprintf("%d calls", b.cfg.BatchMaxCalls)}
		case size > b.cfg.BatchMaxBytes:
			return llm.BatchStatus{}, &llm.BatchTooLargeError{Calls: len(calls), Fits: i, Limit: fmt.Sprintf("%d bytes of input file", b.cfg.BatchMaxBytes)}
		}
	}
	rctx, rec := record(ctx, 0)
	f, err := b.client.UploadBatchFile(rctx, in)
	if err != nil {
		return llm.BatchStatus{}, fmt.Errorf("%s: upload batch file: %w", b.Name(), classify(err, rec))
	}
	if err := ctx.Err(); err != nil {
		return llm.BatchStatus{}, err // stopped before a batch was made
	}
	// A batch the server makes is paid for: once asked for, its answer
	// (its id, kept for a resume) is waited for, a stop of ctx or not, for
	// as long as one call may take.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.Timeout)
	defer cancel()
	rctx, rec = record(cctx, 0)
	resp, err := b.client.CreateBatch(rctx, openai.CreateBatchRequest{
		InputFileID: f.ID, Endpoint: openai.BatchEndpointChatCompletions, CompletionWindow: "24h",
	})
	if err != nil {
		return llm.BatchStatus{}, fmt.Errorf("%s: create batch of file %s: %w", b.Name(), f.ID, classify(err, rec))
	}
	return batchStatus(resp.Batch), nil
}

// RetrieveBatch is the batch's status now.
func (b *Backend) RetrieveBatch(ctx context.Context, id string) (llm.BatchStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	rctx, rec := record(ctx, 0)
	resp, err := b.client.RetrieveBatch(rctx, id)
	if err != nil {
		return llm.BatchStatus{}, fmt.Errorf("%s: retrieve batch %s: %w", b.Name(), id, classify(err, rec))
	}
	return batchStatus(resp.Batch), nil
}

// batchStatus maps go-openai's batch.
func batchStatus(bt openai.Batch) llm.BatchStatus {
	st := llm.BatchStatus{ID: bt.ID, Status: bt.Status, Total: bt.RequestCounts.Total,
		Completed: bt.RequestCounts.Completed, Failed: bt.RequestCounts.Failed}
	if bt.OutputFileID != nil {
		st.OutputFile = *bt.OutputFileID
	}
	if bt.ErrorFileID != nil {
		st.ErrorFile = *bt.ErrorFileID
	}
	if bt.Errors != nil {
		for _, e := range bt.Errors.Data {
			msg := e.Message
			if e.Code != "" {
				msg = e.Code + ": " + msg
			}
			if e.Line != nil {
				msg = fmt.Sprintf("line %d: %s", *e.Line, msg)
			}
			st.Errors = append(st.Errors, msg)
		}
	}
	return st
}

// BatchReplies reads st's output file (the replies) and error file (the
// calls that failed), each a line per call.
func (b *Backend) BatchReplies(ctx context.Context, st llm.BatchStatus) ([]llm.BatchReply, error) {
	var out []llm.BatchReply
	for _, file := range []string{st.OutputFile, st.ErrorFile} {
		if file == "" {
			continue
		}
		rctx, rec := record(ctx, 0)
		body, err := b.client.GetFileContent(rctx, file)
		if err != nil {
			return nil, fmt.Errorf("%s: batch %s: read file %s: %w", b.Name(), st.ID, file, classify(err, rec))
		}
		replies, err := batchLines(body, file)
		_ = body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: batch %s: %w", b.Name(), st.ID, err)
		}
		out = append(out, replies...)
	}
	return out, nil
}

// batchLine is one line of a batch's output or error file.
type batchLine struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// batchLines reads the lines of file, a batch output or error file: a
// reply for each call answered with a chat completion, a failure for each
// that failed (an error status, or an error object: batch_expired). Each
// line holds one JSON object; blank lines are skipped, and an error names
// the line as the file counts it.
func batchLines(r io.Reader, file string) ([]llm.BatchReply, error) {
	br := bufio.NewReader(r)
	var out []llm.BatchReply
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("file %s, line %d: %w", file, n, err)
		}
		if text := bytes.TrimSpace(line); len(text) > 0 {
			var l batchLine
			if err := json.Unmarshal(text, &l); err != nil {
				return nil, fmt.Errorf("file %s, line %d: not a batch line: %w", file, n, err)
			}
			if l.CustomID == "" {
				return nil, fmt.Errorf("file %s, line %d: no custom_id", file, n)
			}
			out = append(out, batchReply(l))
		}
		if err != nil {
			return out, nil // the end of the file
		}
	}
}

// batchReply is the outcome of the call of one line.
func batchReply(l batchLine) llm.BatchReply {
	r := llm.BatchReply{ID: l.CustomID}
	switch {
	case l.Error != nil:
		r.Failed, r.Err = true, fmt.Errorf("%s: %s", cmp.Or(l.Error.Code, "error"), l.Error.Message)
		return r
	case l.Response == nil:
		r.Failed, r.Err = true, errors.New("no response")
		return r
	case l.Response.StatusCode != http.StatusOK:
		r.Failed = true
		r.Err = &llm.StatusError{Code: l.Response.StatusCode, Message: llm.ErrorMessage(l.Response.Body),
			Err: fmt.Errorf("status %d", l.Response.StatusCode)}
		return r
	}
	var resp openai.ChatCompletionResponse
	if err := json.Unmarshal(l.Response.Body, &resp); err != nil {
		r.Failed, r.Err = true, fmt.Errorf("a reply that is not a chat completion: %w", err)
		return r
	}
	r.Response, r.Err = chatResponse(resp)
	if errors.Is(r.Err, llm.ErrEmpty) {
		// The normal path retries what an empty reply says of the server.
		r.Failed = true
		return r
	}
	if len(r.Response.Content) > llm.MaxReply {
		r.Response.Content, r.Err = "", &llm.ReplyTooLargeError{Size: int64(len(r.Response.Content))}
	}
	return r
}
