package serve

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"
	"sync"
)

//go:embed annotate.html
var queuePageText string

// queuePage is parsed on the first page served, not at package load.
var queuePage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("queue").Parse(queuePageText))
})

// getQueuePage is GET /queue: the annotation queue for a person, one
// sample at a time, labelled from the keyboard (package annotation
// orders them; POST /v1/queue/labels stores each label). Its query is
// GET /v1/queue's. A queue that cannot be shown is the page with the
// reason, in the error's status. Every text is the template's escaped
// or the page's script sets it as text.
func (s *Server) getQueuePage(w http.ResponseWriter, r *http.Request) error {
	var page struct {
		Data  *QueueResponse
		Error string
	}
	status := http.StatusOK
	q := r.URL.Query()
	view, err := queueViewOf(q)
	var b *builtQueue
	if err == nil {
		b, err = s.buildQueue(r.Context(), queueParamsOf(q), view.scale)
	}
	if err != nil {
		he := asHTTP(err, "")
		status, page.Error = he.status, he.body.Error
	} else {
		resp := b.response(view.order, view.limit, view.label)
		page.Data = &resp
	}
	var buf bytes.Buffer
	if err := queuePage().Execute(&buf, page); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// The page needs nothing from elsewhere: say so to the browser.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; connect-src 'self'")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes()) // the client went away: nothing to do
	return nil
}
