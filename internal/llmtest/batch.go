package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// The fake batch API: POST /v1/files (multipart, purpose "batch"), GET
// /v1/files/{id}/content, POST /v1/batches and GET /v1/batches/{id}. A
// batch moves validating -> in_progress -> finalizing -> completed one
// step each time the test calls StepBatches (or, with AutoBatches, each
// time it is retrieved), never by the clock; EndBatch ends one as failed,
// expired or cancelled. A completed batch answers each line as a chat
// call would be answered (the script, then Func, then the default): a
// status of 400 or more goes to the error file, the rest to the output
// file. Lines answered are counted apart from chat calls (BatchLines).

// AutoBatches moves a batch one step each time it is retrieved, for runs
// by hand (the fakellm command) and tests that need no stops on the way.
func AutoBatches() Option {
	return func(s *Server) { s.autoBatches = true }
}

// batchState is one batch of the fake.
type batchState struct {
	ID        string
	Input     string
	Status    string
	Total     int
	Completed int
	Failed    int
	Output    string
	ErrorFile string
	Errors    []string
	answering bool
}

// batchSteps is the order a batch goes through.
var batchSteps = []string{"validating", "in_progress", "finalizing", "completed"}

// BatchCounts is what the fake's batch API was asked.
type BatchCounts struct {
	// Uploads are files uploaded, Created batches created, Retrieved
	// retrieves of a batch, Lines the calls answered in batches.
	Uploads, Created, Retrieved, Lines int
}

// BatchCounts is what the batch API was asked so far.
func (s *Server) BatchCounts() BatchCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batchCounts
}

// BatchIDs are the ids of the batches created, in order.
func (s *Server) BatchIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.batches))
	for i, b := range s.batches {
		out[i] = b.ID
	}
	return out
}

// BatchStatus is the status of batch id ("" for none).
func (s *Server) BatchStatus(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.batch(id); b != nil {
		return b.Status
	}
	return ""
}

// BatchInput is the input file of batch id as it was uploaded, nil for
// none.
func (s *Server) BatchInput(id string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.batch(id); b != nil {
		return s.files[b.Input]
	}
	return nil
}

// StepBatches moves every batch that has not ended one step on; one that
// reaches completed answers its lines.
func (s *Server) StepBatches() {
	s.mu.Lock()
	var done []*batchState
	for _, b := range s.batches {
		if s.step(b) {
			done = append(done, b)
		}
	}
	s.mu.Unlock()
	for _, b := range done {
		s.answer(b, -1, "completed")
	}
}

// step moves b one step on, but for the last: it reports whether b is
// to complete now (answer then completes it, its files written). s.mu is
// held.
func (s *Server) step(b *batchState) bool {
	i := slices.Index(batchSteps, b.Status)
	switch {
	case i < 0 || i == len(batchSteps)-1 || b.answering:
		return false
	case i == len(batchSteps)-2:
		b.answering = true
		return true
	}
	b.Status = batchSteps[i+1]
	return false
}

// EndBatch ends batch id as status: "failed" (nothing answered, the
// batch's errors say why), "expired" (its first answered lines answered,
// the rest in the error file as batch_expired) or "cancelled" (likewise,
// as batch_cancelled).
func (s *Server) EndBatch(id, status string, answered int) {
	s.mu.Lock()
	b := s.batch(id)
	if b == nil {
		s.mu.Unlock()
		panic("llmtest: no batch " + id)
	}
	if status == "failed" {
		b.Status = status
		b.Errors = append(b.Errors, "llmtest: the batch failed as the test asked")
	}
	s.mu.Unlock()
	switch status {
	case "failed":
	case "expired", "cancelled":
		s.answer(b, answered, status)
	default:
		panic("llmtest: EndBatch with status " + status)
	}
}

// batch is the batch id, or nil. s.mu is held.
func (s *Server) batch(id string) *batchState {
	for _, b := range s.batches {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// inputLine is a line of a batch input file.
type inputLine struct {
	CustomID string                       `json:"custom_id"`
	Method   string                       `json:"method"`
	URL      string                       `json:"url"`
	Body     openai.ChatCompletionRequest `json:"body"`
}

// outputLine is a line of a batch output or error file.
type outputLine struct {
	ID       string          `json:"id"`
	CustomID string          `json:"custom_id"`
	Response *outputResponse `json:"response"`
	Error    *batchError     `json:"error"`
}

type outputResponse struct {
	StatusCode int    `json:"status_code"`
	RequestID  string `json:"request_id"`
	Body       any    `json:"body"`
}

type batchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// answer answers b's lines, the first n of them (all when n < 0), writes
// its output and error files, then gives it status; the lines past n are
// in the error file as ended with that status.
func (s *Server) answer(b *batchState, n int, status string) {
	s.mu.Lock()
	input := s.files[b.Input]
	s.mu.Unlock()
	var lines []inputLine
	dec := json.NewDecoder(bytes.NewReader(input))
	for {
		var l inputLine
		if dec.Decode(&l) != nil {
			break
		}
		lines = append(lines, l)
	}
	var out, errs bytes.Buffer
	completed, failed := 0, 0
	for i, l := range lines {
		ol := outputLine{ID: fmt.Sprintf("batch_req_%d", i+1), CustomID: l.CustomID}
		if n >= 0 && i >= n {
			ol.Error = &batchError{Code: "batch_" + status, Message: "This request could not be executed before the batch " + status + "."}
			writeLine(&errs, ol)
			failed++
			continue
		}
		reply := s.next(l.Body)
		s.mu.Lock()
		s.batchCounts.Lines++
		s.mu.Unlock()
		status := reply.Status
		if status == 0 {
			status = http.StatusOK
		}
		if status >= 400 {
			typ, code := errorType(status)
			ol.Response = &outputResponse{StatusCode: status, RequestID: "req_llmtest", Body: errorBody{Error: apiError{Message: "llmtest: scripted " + http.StatusText(status), Type: typ, Code: code}}}
			writeLine(&errs, ol)
			failed++
			continue
		}
		ol.Response = &outputResponse{StatusCode: status, RequestID: "req_llmtest", Body: completion(l.Body, reply)}
		writeLine(&out, ol)
		completed++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b.Completed, b.Failed, b.Status = completed, failed, status
	if out.Len() > 0 {
		b.Output = s.addFile(out.Bytes())
	}
	if errs.Len() > 0 {
		b.ErrorFile = s.addFile(errs.Bytes())
	}
}

func writeLine(w *bytes.Buffer, v any) {
	line, err := json.Marshal(v)
	if err != nil {
		panic("llmtest: batch line: " + err.Error())
	}
	w.Write(line)
	w.WriteByte('\n')
}

// addFile keeps data as a file and returns its id. s.mu is held.
func (s *Server) addFile(data []byte) string {
	if s.files == nil {
		s.files = map[string][]byte{}
	}
	id := fmt.Sprintf("file-%d", len(s.files)+1)
	s.files[id] = data
	return id
}

// uploadFile serves POST /v1/files.
func (s *Server) uploadFile(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		writeError(w, http.StatusBadRequest, "not a multipart form: "+err.Error())
		return
	}
	if p := r.FormValue("purpose"); p != "batch" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("purpose %q: the fake takes batch files only", p))
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		writeError(w, http.StatusBadRequest, "no file: "+err.Error())
		return
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(f)
	if err != nil {
		return
	}
	for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l inputLine
		if err := json.Unmarshal([]byte(line), &l); err != nil || l.CustomID == "" || l.Method != http.MethodPost || l.URL != "/v1/chat/completions" {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("line %d is not a batch line {custom_id, method: POST, url: /v1/chat/completions, body}", n+1))
			return
		}
	}
	s.mu.Lock()
	s.batchCounts.Uploads++
	id := s.addFile(data)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "file", "bytes": len(data), "created_at": 1700000000,
		"filename": hdr.Filename, "purpose": "batch"})
}

// fileContent serves GET /v1/files/{id}/content.
func (s *Server) fileContent(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.files[r.PathValue("id")]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "no such file")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(data)
}

// createBatch serves POST /v1/batches.
func (s *Server) createBatch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID      string `json:"input_file_id"`
		Endpoint         string `json:"endpoint"`
		CompletionWindow string `json:"completion_window"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid request body: "+err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	input, ok := s.files[req.InputFileID]
	switch {
	case !ok:
		writeError(w, http.StatusBadRequest, "no input file "+req.InputFileID)
		return
	case req.Endpoint != "/v1/chat/completions" || req.CompletionWindow != "24h":
		writeError(w, http.StatusBadRequest, fmt.Sprintf("endpoint %q, completion_window %q: want /v1/chat/completions, 24h", req.Endpoint, req.CompletionWindow))
		return
	}
	s.batchCounts.Created++
	b := &batchState{ID: fmt.Sprintf("batch_%d", len(s.batches)+1), Input: req.InputFileID, Status: batchSteps[0],
		Total: strings.Count(strings.TrimSpace(string(input)), "\n") + 1}
	s.batches = append(s.batches, b)
	writeJSON(w, http.StatusOK, batchBody(b))
}

// retrieveBatch serves GET /v1/batches/{id}.
func (s *Server) retrieveBatch(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.batchCounts.Retrieved++
	b := s.batch(r.PathValue("id"))
	if b == nil {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "no such batch")
		return
	}
	body := batchBody(b)
	done := s.autoBatches && s.step(b)
	s.mu.Unlock()
	if done {
		s.answer(b, -1, "completed")
	}
	writeJSON(w, http.StatusOK, body)
}

// batchBody is b on the wire. s.mu is held.
func batchBody(b *batchState) map[string]any {
	out := map[string]any{"id": b.ID, "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": b.Input,
		"completion_window": "24h", "status": b.Status, "created_at": 1700000000,
		"request_counts": map[string]int{"total": b.Total, "completed": b.Completed, "failed": b.Failed}}
	if b.Output != "" {
		out["output_file_id"] = b.Output
	}
	if b.ErrorFile != "" {
		out["error_file_id"] = b.ErrorFile
	}
	if len(b.Errors) > 0 {
		var data []batchError
		for _, e := range b.Errors {
			data = append(data, batchError{Code: "failed", Message: e})
		}
		out["errors"] = map[string]any{"object": "list", "data": data}
	}
	return out
}
