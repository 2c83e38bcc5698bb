package serve

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/serve/annotate"
	"github.com/assaylabs/assay/serve/dashboard"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// operation is what the OpenAPI document says of a route.
type operation struct {
	// id is the operationId, when not the one the route gives.
	id      string
	summary string
	// request is the component schema of the JSON body ("" for none),
	// example a valid body.
	request string
	example any
	// status is the success status, response its component schema; ""
	// with contentType for an answer that is not JSON.
	status      int
	response    string
	contentType string
	params      []param
	// errors are the error statuses the route answers (ErrorBody).
	errors []int
	// form are the fields of a form body (in place of request); public
	// routes need no token; errorType is the content type of the error
	// answers when not ErrorBody's JSON.
	form      []string
	public    bool
	errorType string
	// errorSchema is the component schema of the error answers when not
	// Error's.
	errorSchema string
}

type param struct {
	name, in, description string
	required              bool
}

// qualityInput, rankedChunk and assembledContext document seed 002's
// QualityInput, which eval.DecodeContextSample decodes (the document's
// schema; the decoder is the one `assay score --profile context` uses).
type qualityInput struct {
	Query   string            `json:"query" jsonschema:"the user's query"`
	Chunks  []rankedChunk     `json:"chunks" jsonschema:"the retrieved chunks, in rank order"`
	Context *assembledContext `json:"context,omitempty" jsonschema:"the context assembled from the chunks for the generator"`
}

type rankedChunk struct {
	Content     string         `json:"content"`
	Score       float64        `json:"score" jsonschema:"the retrieval (vector similarity) score, any finite number (negative and zero included, as the seed does not clamp)"`
	RerankScore *float64       `json:"rerankScore,omitempty" jsonschema:"the reranker's score, any finite number (cross-encoder logits included), used in place of score when given"`
	DocumentID  string         `json:"documentId"`
	Metadata    map[string]any `json:"metadata,omitempty" jsonschema:"carried through; sectionTitle counts for diversity"`
}

type assembledContext struct {
	Text       *string `json:"text,omitempty" jsonschema:"the assembled text; missing or null scores a context sufficiency of 0 and is named in notes"`
	TokenCount *int    `json:"tokenCount,omitempty" jsonschema:"the context's tokens, a whole number >= 0; needed when text is not empty"`
}

// components are the document's schemas, by name, and the Go types they
// are made from.
var components = map[string]reflect.Type{
	"QualityInput":        reflect.TypeFor[qualityInput](),
	"ContextQualityScore": reflect.TypeFor[agent.ContextView](),
	"ScoreRequest":        reflect.TypeFor[ScoreRequest](),
	"JudgeRequest":        reflect.TypeFor[JudgeRequest](),
	"JudgeResponse":       reflect.TypeFor[JudgeResponse](),
	"RunRequest":          reflect.TypeFor[RunRequest](),
	"RunStatus":           reflect.TypeFor[RunStatus](),
	"RunList":             reflect.TypeFor[RunList](),
	"TracesRequest":       reflect.TypeFor[TracesRequest](),
	"TracesResponse":      reflect.TypeFor[TracesResponse](),
	"TraceSummary":        reflect.TypeFor[TraceSummary](),
	"Trace":               reflect.TypeFor[Trace](),
	"Health":              reflect.TypeFor[HealthResponse](),
	"Alerts":              reflect.TypeFor[AlertsResponse](),
	"Dashboard":           reflect.TypeFor[dashboard.Data](),
	"Queue":               reflect.TypeFor[annotate.QueueResponse](),
	"LabelRequest":        reflect.TypeFor[annotate.LabelRequest](),
	"LabelResponse":       reflect.TypeFor[annotate.LabelResponse](),
	"Error":               reflect.TypeFor[ErrorBody](),
}

// recordSchema is a sample as a dataset line has it (dataset.Read's
// fields); other fields are ignored.
func recordSchema() *jsonschema.Schema {
	str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	strs := func(d string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: d}
	}
	obj := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "object", Description: d} }
	return &jsonschema.Schema{
		Type:        "object",
		Description: "A sample, with the fields of a dataset line: Assay's names or those of RAGAS and DeepEval. Other fields are ignored.",
		Properties: map[string]*jsonschema.Schema{
			"id":                 {Types: []string{"string", "number"}, Description: "the sample's id"},
			"query":              str("the question"),
			"question":           str("the question (RAGAS v1)"),
			"user_input":         str("the question (RAGAS v2)"),
			"input":              str("the question (DeepEval)"),
			"answer":             str("the answer judged"),
			"response":           str("the answer (RAGAS v2)"),
			"actual_output":      str("the answer (DeepEval)"),
			"contexts":           strs("the retrieved contexts, in rank order"),
			"retrieved_contexts": strs("the contexts (RAGAS v2)"),
			"retrieval_context":  strs("the contexts (DeepEval)"),
			"sources":            {Type: "array", Items: obj("a source: id, url, title, text, score..."), Description: "Assay's sources, in place of contexts"},
			"reference":          str("a reference answer"),
			"expected_output":    str("a reference answer (DeepEval)"),
			"ground_truth":       {Types: []string{"string", "object"}, Description: "a reference answer (RAGAS), or known values by name"},
			"metadata":           obj("carried through; traces are grouped by its fields"),
			"human":              obj("human labels"),
		},
	}
}

// schemaOptions map the types whose JSON is not their fields'.
func schemaOptions() *jsonschema.ForOptions {
	num := &jsonschema.Schema{Types: []string{"number", "null"}}
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): recordSchema(),
		reflect.TypeFor[run.Num]():         num,
		reflect.TypeFor[run.Summary](): {Type: "object", Description: "the run's summary.json: per metric its mean, interval, " +
			"passes, defaults and skips; the gates, the baseline and the alerts"},
		reflect.TypeFor[agent.CRAGAction](): {Type: "object", Required: []string{"type"}, Properties: map[string]*jsonschema.Schema{
			"type":        {Type: "string", Enum: []any{"use_retrieved", "decompose_and_recompose", "supplemental_search"}},
			"subQueries":  {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			"searchQuery": {Type: "string"},
		}},
	}}
}

// schemas builds the component schemas once.
var schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	out := map[string]*jsonschema.Schema{}
	for name, t := range components {
		s, err := jsonschema.ForType(t, schemaOptions())
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", name, err)
		}
		out[name] = s
	}
	// Seed 002's chunks carry the fields their pipeline adds: allowed.
	chunk := out["QualityInput"].Properties["chunks"].Items
	chunk.AdditionalProperties = nil
	zero := 0.0
	chunk.Properties["score"].Minimum = &zero
	chunk.Properties["rerankScore"].Minimum = &zero
	out["QualityInput"].Properties["context"].AdditionalProperties = nil
	// A run's request gives samples or a dataset, not both.
	out["RunRequest"].Properties["format"].Enum = []any{"jsonl", "json", "csv", "tsv"}
	// A label's value is a pass or fail, or a grade.
	out["LabelRequest"].Properties["value"] = &jsonschema.Schema{Types: []string{"boolean", "integer"},
		Description: "true (pass) or false (fail) on a binary queue, or a grade from 1 to 5 on a graded one"}
	out["Card"] = &jsonschema.Schema{Type: "object", Description: "the card `assay score --format json` prints: " +
		"a research card (total, status, scores, fixes), a context card (ContextQualityScore) or a daily result"}
	return out, nil
})

// Document is the server's OpenAPI 3.1 document.
func (s *Server) Document() (map[string]any, error) {
	comps, err := schemas()
	if err != nil {
		return nil, err
	}
	paths := map[string]map[string]any{}
	for _, rt := range s.routes {
		method, path, _ := strings.Cut(docPattern(rt.pattern), " ")
		op := rt.doc
		o := map[string]any{"summary": op.summary, "operationId": cmp.Or(op.id, operationID(rt.pattern))}
		var params []any
		for _, p := range op.params {
			params = append(params, map[string]any{"name": p.name, "in": p.in, "required": p.required || p.in == "path",
				"description": p.description, "schema": map[string]any{"type": "string"}})
		}
		if params != nil {
			o["parameters"] = params
		}
		if op.request != "" {
			o["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{
				"schema": ref(op.request), "example": op.example}}}
		}
		if op.form != nil {
			props := map[string]any{}
			for _, f := range op.form {
				props[f] = map[string]any{"type": "string"}
			}
			o["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/x-www-form-urlencoded": map[string]any{
				"schema": map[string]any{"type": "object", "properties": props, "required": op.form}}}}
		}
		resp := map[string]any{}
		ok := map[string]any{"description": http.StatusText(op.status)}
		switch {
		case op.response != "":
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": ref(op.response)}}
		case op.contentType != "":
			ok["content"] = map[string]any{op.contentType: map[string]any{"schema": map[string]any{"type": "string"}}}
		}
		resp[fmt.Sprint(op.status)] = ok
		errs := slices.Concat(op.errors, s.guardStatuses(rt, method, path))
		if op.public && s.cfg.Token != "" {
			o["security"] = []any{} // no token asked
		}
		for _, code := range errs {
			content := map[string]any{"application/json": map[string]any{"schema": ref(cmp.Or(op.errorSchema, "Error"))}}
			if op.errorType != "" {
				content = map[string]any{op.errorType: map[string]any{"schema": map[string]any{"type": "string"}}}
			}
			resp[fmt.Sprint(code)] = map[string]any{"description": http.StatusText(code), "content": content}
		}
		o["responses"] = resp
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(method)] = o
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Assay", "version": s.cfg.Version, "description": "assay serve: seed 002's context score on the hot path, " +
			"judging of samples, runs and sampled production traces, the same library as the assay command line."},
		"paths":      paths,
		"components": map[string]any{"schemas": comps},
	}
	if s.cfg.Token != "" {
		doc["components"].(map[string]any)["securitySchemes"] = map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}}
		doc["security"] = []any{map[string]any{"bearer": []any{}}}
	}
	return doc, nil
}

// guardStatuses are the error statuses every route of its kind may
// answer beside its own: 403 (a Host not the server's, a cross-origin
// write: guard), 408 (a body that does not come in time: receive), 401
// and 429 (no token, a wrong one, too many wrong ones: auth).
func (s *Server) guardStatuses(rt route, method, path string) []int {
	var out []int
	if s.cfg.hostCheck() != nil || method != http.MethodGet {
		out = append(out, http.StatusForbidden)
	}
	if rt.api && (rt.doc.request != "" || rt.doc.form != nil) {
		out = append(out, http.StatusRequestTimeout)
	}
	if s.cfg.Token != "" && path != "/healthz" && path != "/readyz" {
		if !rt.doc.public {
			out = append(out, http.StatusUnauthorized)
		}
		out = append(out, http.StatusTooManyRequests)
	}
	return out
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// operationID is a route's id: "POST /v1/context-score" is
// postV1ContextScore.
func operationID(pattern string) string {
	method, path, _ := strings.Cut(pattern, " ")
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '-' || r == '{' || r == '}' || r == '.' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	doc, err := s.Document()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	httpjson.Encoded(w, http.StatusOK, b.Bytes())
	return nil
}

// docPattern is a route's method and path as the document has them: the
// mux's "/{$}" (the root alone) is "/".
func docPattern(pattern string) string { return strings.Replace(pattern, "{$}", "", 1) }

// Paths are the document's paths and methods, sorted, for checks.
func (s *Server) paths() []string {
	var out []string
	for _, rt := range s.routes {
		out = append(out, docPattern(rt.pattern))
	}
	sort.Strings(out)
	return out
}

// Examples of the document, each a valid request.
var (
	exampleContext = map[string]any{
		"query": "How does QUIC avoid head-of-line blocking?",
		"chunks": []any{
			map[string]any{"content": "QUIC delivers each stream independently: a lost datagram blocks only its own stream. RFC 9000 was published in May 2021.",
				"score": 0.91, "rerankScore": 0.94, "documentId": "rfc9000", "metadata": map[string]any{"sectionTitle": "Streams"}},
			map[string]any{"content": "In HTTP/2 all streams share one TCP connection, so a single lost segment blocks every stream.",
				"score": 0.88, "documentId": "rfc9113"},
		},
		"context": map[string]any{"text": "QUIC delivers each stream independently, so a lost datagram blocks only its own stream.", "tokenCount": 420},
	}
	exampleSample = map[string]any{
		"id":       "eiffel",
		"question": "When was the Eiffel Tower completed?",
		"answer":   "The Eiffel Tower was completed in 1889.",
		"contexts": []any{"The Eiffel Tower in Paris was completed in 1889 as the entrance arch of that year's World's Fair."},
		"metadata": map[string]any{"tenant": "acme", "model": "gen-v2"},
	}
	exampleScore = map[string]any{"profile": "research", "query": "How does HTTP/3 differ from HTTP/2?",
		"report": "# HTTP/3\n\nHTTP/3 runs over QUIC [RFC 9114](https://www.rfc-editor.org/rfc/rfc9114 \"HTTP/3 runs over QUIC\").\n"}
	exampleJudge  = map[string]any{"sample": exampleSample, "metrics": []any{"faithfulness", "answer_relevancy_grade"}}
	exampleRun    = map[string]any{"metrics": []any{"faithfulness"}, "samples": []any{exampleSample}}
	exampleTraces = map[string]any{"traces": []any{map[string]any{"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "sample": exampleSample}}}
	exampleLabel  = map[string]any{"metric": "faithfulness", "item": "4bf92f3577b34da6a3ce929d0e0e4736", "value": true,
		"note": "the year is in the context", "labeler": "ana"}
)

// The annotation queue's query parameters.
var (
	queueSourceParams = []param{
		{name: "run", in: "query", description: "a stored run's id (or the start of one); absent: the sampled traces this server judged"},
		{name: "metric", in: "query", description: "the judgements' metric; absent: the source's only one"},
	}
	queueViewParams = []param{
		{name: "order", in: "query", description: "active (default: a random order, fixed per queue, that favours where the judge is least certain; labels taken in it, weighted by 1/their chance, keep the estimate unbiased wherever one stops), worth (where the judge is least certain, or its draws split, first) or draw (a uniform random draw, fixed per queue)"},
		{name: "scale", in: "query", description: "binary (default) or graded (1 to 5); a queue with labels keeps theirs"},
		{name: "limit", in: "query", description: "how many items, 0 to 5000, default 200"},
	}
	exportParams = []param{{name: "label", in: "query", description: "the label's name in the export (human.NAME): letters, digits, _ and -; default the metric's name"},
		{name: "scale", in: "query", description: "binary (default) or graded, for a queue with no label yet"}}
)

var (
	docContextScore = operation{summary: "Seed 002's context quality score and CRAG action of a retrieval (no model call)",
		request: "QualityInput", example: exampleContext, status: http.StatusOK, response: "ContextQualityScore",
		errors: []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable}}
	docScore = operation{summary: "Score a report (research, daily or context profile) into its card, as assay score does",
		request: "ScoreRequest", example: exampleScore, status: http.StatusOK, response: "Card",
		errors: []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable, http.StatusGatewayTimeout}}
	docJudge = operation{summary: "Judge one sample with metrics, within the request's time",
		request: "JudgeRequest", example: exampleJudge, status: http.StatusOK, response: "JudgeResponse",
		errors: []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable, http.StatusGatewayTimeout}}
	docRuns = operation{summary: "Start a run over a dataset in the background (a run folder and a run store row, resumed after a restart)",
		request: "RunRequest", example: exampleRun, status: http.StatusAccepted, response: "RunStatus",
		errors: []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable}}
	docRunList = operation{summary: "The runs this server started, newest first", status: http.StatusOK, response: "RunList"}
	docRun     = operation{summary: "A run's progress, and its summary once done", status: http.StatusOK, response: "RunStatus",
		params: []param{{name: "id", in: "path", description: "the run's id"}}, errors: []int{http.StatusNotFound}}
	docTraces = operation{summary: "Production samples for online evaluation: sampled by trace id, journaled (or stored by a shared queue), judged in the background",
		request: "TracesRequest", example: exampleTraces, status: http.StatusAccepted, response: "TracesResponse",
		errors: []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests, http.StatusServiceUnavailable}}
	docOTLP = operation{summary: "OTLP/HTTP trace export (protobuf or JSON): spans assembled into conversations, sampled by conversation id, judged in the background",
		status: http.StatusOK, contentType: "application/json",
		errors: []int{http.StatusBadRequest, http.StatusUnsupportedMediaType, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests, http.StatusServiceUnavailable}}
	docSummary = operation{summary: "Trace scores grouped by day, metric and a metadata field", status: http.StatusOK, response: "TraceSummary",
		params: []param{
			{name: "by", in: "query", description: "a metadata field to group by (tenant, model...)"},
			{name: "metric", in: "query", description: "only this metric"},
			{name: "from", in: "query", description: "first day, YYYY-MM-DD"},
			{name: "to", in: "query", description: "last day, YYYY-MM-DD"},
		}, errors: []int{http.StatusBadRequest}}
	docTrace = operation{summary: "A journaled trace and its scores", status: http.StatusOK, response: "Trace",
		params: []param{{name: "id", in: "path", description: "the trace id (printable text of 1 to 256 bytes)"}}, errors: []int{http.StatusBadRequest, http.StatusNotFound}}
	docAlerts = operation{summary: "Live alerts: the open ones (seed 002's rule over each metric's recent scores), the stalled judges, the last events stored and their delivery",
		status: http.StatusOK, response: "Alerts",
		params: []param{{name: "limit", in: "query", description: "how many events, newest first: 1 to 1000, default 50"}}, errors: []int{http.StatusBadRequest}}
	docDash = operation{id: "getDashboardPage", summary: "The dashboard: per metric the recent mean and interval, the trend by day, the default rate, " +
		"open alerts, the lowest and slowest judged samples with their evidence, the runs (one HTML page, nothing fetched from elsewhere)",
		status: http.StatusOK, contentType: "text/html"}
	docDashAPI = operation{summary: "The dashboard's data, as JSON (the page refreshes from it)", status: http.StatusOK, response: "Dashboard"}
	docQueue   = operation{summary: "The annotation queue of a stored run or of the sampled traces: its items (question, answer, contexts or the conversation, " +
		"the judge's verdict, score, reason and evidence, the label so far) in the order asked (active by default), each with its chance in the active order, the counts, the PPI++ estimate of the mean label " +
		"and how much more labels would narrow its interval", status: http.StatusOK, response: "Queue",
		params: slices.Concat(queueSourceParams, queueViewParams), errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}}
	docQueueLabels = operation{summary: "Label an item of the annotation queue (pass or fail, or a grade, with a note): stored with who and when " +
		"in place of the item's last label; answered with the queue's counts and estimate", request: "LabelRequest", example: exampleLabel,
		status: http.StatusOK, response: "LabelResponse",
		errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnsupportedMediaType, http.StatusRequestEntityTooLarge}}
	docQueueExport = operation{summary: "The queue's labels as a dataset (JSON Lines) that assay agree reads: a line per item the judge scored, " +
		"metadata.judge_score (and judge_grade on a graded queue) and human.LABEL; assay agree --score meta.judge_score --label LABEL --estimate FILE",
		status: http.StatusOK, contentType: "application/x-ndjson", params: slices.Concat(queueSourceParams, exportParams),
		errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}}
	docQueuePage = operation{id: "getQueuePage", summary: "The annotation queue's page, for a person: one sample at a time with the judge's verdict and evidence, " +
		"labelled from the keyboard (p/f or 1-5, j/k, n for a note), the estimate and its projection beside (one HTML page, nothing fetched from elsewhere)",
		status: http.StatusOK, contentType: "text/html", params: slices.Concat(queueSourceParams, queueViewParams),
		errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}, errorType: "text/html"}
	docHealth = operation{summary: "Liveness, the judge, the trace queue and the requests in flight", status: http.StatusOK, response: "Health"}
	docReady  = operation{summary: "Readiness: 200 while an API request would be taken, 503 (status busy, the Health body) while every place in flight is taken",
		status: http.StatusOK, response: "Health", public: true, errors: []int{http.StatusServiceUnavailable}, errorSchema: "Health"}
	docMetrics = operation{summary: "Prometheus metrics", status: http.StatusOK, contentType: "text/plain"}
	docOpenAPI = operation{summary: "This document", status: http.StatusOK, contentType: "application/json"}
	docLogin   = operation{summary: "The dashboard's login, for a browser: the token as a form field sets a session cookie " +
		"(HttpOnly, SameSite=Strict, an HMAC of the token) that lets GET / and GET /v1/dashboard through, nothing else; " +
		"then to / (303). A wrong token is the login form again; past 10 wrong tokens from one address, one more every 6 s (429, Retry-After)",
		form: []string{"token"}, public: true, status: http.StatusSeeOther, errors: []int{http.StatusUnauthorized}, errorType: "text/html"}
)
