package annotate

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"
	"sync"

	"github.com/assaylabs/assay/serve/internal/httpjson"
)

//go:embed page.html
var queuePageText string

// queuePage is parsed on the first page served, not at package load.
var queuePage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("queue").Parse(queuePageText))
})

// WritePage answers GET /queue: the annotation queue for a person, one
// sample at a time, labelled from the keyboard (package annotation
// orders them; POST /v1/queue/labels stores each label), of data (Get's)
// with status; or, data nil, the page with errText, the reason the queue
// cannot be shown, in the error's status. Every text is the template's
// escaped or the page's script sets it as text.
func WritePage(w http.ResponseWriter, status int, data *QueueResponse, errText string) error {
	page := struct {
		Data  *QueueResponse
		Error string
	}{data, errText}
	var buf bytes.Buffer
	if err := queuePage().Execute(&buf, page); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// The page needs nothing from elsewhere: say so to the browser.
	h.Set("Content-Security-Policy", httpjson.PagePolicy)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes()) // the client went away: nothing to do
	return nil
}
