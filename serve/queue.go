package serve

import (
	"mime"
	"net/http"
	"strconv"

	"github.com/assaylabs/assay/serve/annotate"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// Route names of the annotation queue (package annotate).
const (
	routeQueue       = "GET /v1/queue"
	routeQueueLabels = "POST /v1/queue/labels"
	routeQueueExport = "GET /v1/queue/export"
	routeQueuePage   = "GET /queue"
	// queuePagePath is where the page is served.
	queuePagePath = "/queue"
)

// annotationQueues are the server's annotation queues: of the run store's
// runs, of the traces the journal holds judged (none with a shared
// queue, whose bucket holds them), labels in serve.db.
func (s *Server) annotationQueues() *annotate.Queues {
	q := &annotate.Queues{Runs: s.runStore, DB: s.store, Now: s.cfg.Now,
		RunThreshold: s.judger.Registry().ThresholdOf,
		TraceThreshold: func(metric string) float64 {
			return s.judger.Registry().DefaultThreshold(metric, s.judger.Session().Model())
		}}
	if s.shared == nil {
		q.Traces = s.store
	}
	return q
}

// getQueue is GET /v1/queue.
func (s *Server) getQueue(w http.ResponseWriter, r *http.Request) error {
	resp, err := s.queues.Get(r.Context(), r.URL.Query())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpjson.Write(w, http.StatusOK, resp)
	return nil
}

// getQueuePage is GET /queue: the queue's page (annotate.WritePage), its
// query GET /v1/queue's. A queue that cannot be shown is the page with
// the reason, in the error's status.
func (s *Server) getQueuePage(w http.ResponseWriter, r *http.Request) error {
	status, msg := http.StatusOK, ""
	resp, err := s.queues.Get(r.Context(), r.URL.Query())
	if err != nil {
		he := asHTTP(err, "")
		status, msg = he.Status, he.Body.Error
	}
	return annotate.WritePage(w, status, resp, msg)
}

// postLabel is POST /v1/queue/labels: the label checked, its item looked
// up in the queue (404 when not there), stored in place of the item's
// last, with who and the server's time.
func (s *Server) postLabel(w http.ResponseWriter, r *http.Request) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return &httpError{Status: http.StatusUnsupportedMediaType, Body: ErrorBody{Error: "send the label as JSON (Content-Type: application/json)"}}
	}
	var req annotate.LabelRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	resp, err := s.queues.Put(r.Context(), req, s.signedInAs(r))
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, resp)
	return nil
}

// getExport is GET /v1/queue/export: the queue's labels as JSON Lines
// (annotate.Queues.Export), the items left out counted in
// X-Assay-Left-Out.
func (s *Server) getExport(w http.ResponseWriter, r *http.Request) error {
	lines, left, err := s.queues.Export(r.Context(), r.URL.Query())
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/x-ndjson")
	h.Set("Content-Disposition", `attachment; filename="labels.jsonl"`)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Assay-Left-Out", strconv.Itoa(left))
	_, _ = w.Write(lines) // the client went away: nothing to do
	return nil
}

// signedInAs is who a request is when it names no labeler: how it was
// let in.
func (s *Server) signedInAs(r *http.Request) string {
	switch {
	case s.cfg.Token == "":
		return "anonymous"
	case r.Header.Get("Authorization") != "":
		return "token"
	}
	return "session"
}
