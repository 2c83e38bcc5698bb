package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/serve/dashboard"
	"github.com/assaylabs/assay/serve/internal/httpjson"
)

// contextMeta is what observers see of a context score's sample.
var contextMeta = map[string]string{"source": "context-score"}

// postContextScore is POST /v1/context-score: seed 002's QualityInput
// (query, chunks with their scores and optional rerank scores, optional
// assembled context) to its ContextQualityScore, sub-scores, warning and
// CRAG classification, as `assay score --profile context --format json`
// prints them: the same decoder (eval.DecodeContextSample), scorer
// (agent.Score with the context profile) and card (agent.NewContextView).
// No model call, no disk write.
func (s *Server) postContextScore(w http.ResponseWriter, r *http.Request) error {
	body, err := bodyBytes(r)
	if err != nil {
		return err
	}
	sample, err := eval.DecodeContextSample("request", body)
	if err != nil {
		return err
	}
	card, err := agent.Score(r.Context(), s.context, sample, agent.Options{NoRecency: true, Concurrency: 1})
	if err != nil {
		return err
	}
	view := agent.NewContextView(s.context, card, sample)
	httpjson.Write(w, http.StatusOK, view)
	if sc, ok := card.Get(agent.MetricContextQuality); ok {
		s.observe(sc, contextMeta, s.cfg.Now())
	}
	return nil
}

// ScoreRequest is the body of POST /v1/score: a report and what
// `assay score` reads beside it.
type ScoreRequest struct {
	// Profile is research (the default), daily or context, or a profile
	// of the server's folder (Config.Profiles) by its name; never a path.
	Profile string `json:"profile,omitempty" jsonschema:"research (the default), daily or context, or the name of a profile in the server's --profiles folder (never a path)"`
	// Report is the report's text (Markdown), or for the context profile
	// a retrieval sample's JSON text.
	Report string `json:"report"`
	// Query is the research query the report answers (default: its title).
	Query string `json:"query,omitempty"`
	// Sources are the report's sources (as --sources FILE has them).
	Sources json.RawMessage `json:"sources,omitempty"`
	// Truth and Telemetry are the daily profile's TRUTH.json and RUN.json.
	Truth     json.RawMessage `json:"truth,omitempty"`
	Telemetry json.RawMessage `json:"telemetry,omitempty"`
}

// postScore is POST /v1/score: a report to its card, by the library call
// of `assay score` (agent.ScoreBytes), answered as `assay score --format
// json` prints it.
func (s *Server) postScore(w http.ResponseWriter, r *http.Request) error {
	var req ScoreRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	profile, err := s.profiles.resolve("profile", req.Profile)
	if err != nil {
		return err
	}
	if req.Report == "" {
		return badRequest("report", "report: missing or empty: the report's text to score")
	}
	judging := s.cfg.Judging
	judging.Model = s.judger.Session().Model() // the server's client, kept open
	job := agent.ScoreJob{Profile: profile, Query: req.Query, Registry: s.cfg.Registry, Judging: judging,
		Env: s.cfg.Env, Log: s.cfg.Log, Now: s.cfg.Now}
	if job.Profile == "" {
		job.Profile = "research"
	}
	in := agent.ScoreInput{Name: "report", Data: []byte(req.Report), SourcesName: "sources", TruthName: "truth", TelemetryName: "telemetry"}
	for _, f := range []struct {
		raw json.RawMessage
		dst *[]byte
	}{{req.Sources, &in.Sources}, {req.Truth, &in.Truth}, {req.Telemetry, &in.Telemetry}} {
		if len(f.raw) > 0 && !bytes.Equal(f.raw, []byte("null")) {
			*f.dst = f.raw
		}
	}
	if err := eval.CheckText("report", in.Data); err != nil {
		return scoreError(err, in)
	}
	out, err := agent.ScoreBytes(r.Context(), job, in)
	if err != nil {
		return scoreError(err, in)
	}
	var b bytes.Buffer
	if err := out.Write(&b, "json"); err != nil {
		return err
	}
	httpjson.Encoded(w, http.StatusOK, b.Bytes())
	return nil
}

// scoreError is an error of a score as the request's: an input error
// in one of the documents the request holds (the report, its sources,
// truth or telemetry: in names each by its field) is a 400 whose field
// is the request's path to it ("sources[1].url", "report.chunks[0].score"),
// with the line and column in that document; anything else as it is.
func scoreError(err error, in agent.ScoreInput) error {
	ie, ok := errors.AsType[*eval.InputError](err)
	if !ok || ie.File == "" || !slices.Contains([]string{in.Name, in.SourcesName, in.TruthName, in.TelemetryName}, ie.File) {
		return err
	}
	inner := ie.Field
	// A document's errors may name it already (sources[1].url).
	if rest, ok := strings.CutPrefix(inner, ie.File); ok && (rest == "" || rest[0] == '[' || rest[0] == '.') {
		inner = strings.TrimPrefix(rest, ".")
	}
	field := joinField(ie.File, inner)
	return &httpError{Status: http.StatusBadRequest, Body: ErrorBody{Error: field + ": " + ie.Msg, Field: field, Line: ie.Line, Column: ie.Col}}
}

// JudgeRequest is the body of POST /v1/judge.
type JudgeRequest struct {
	// Sample is one record, as a dataset line has it.
	Sample json.RawMessage `json:"sample"`
	// Metrics are the judges to run, in the order of the results.
	Metrics []string `json:"metrics"`
}

// JudgeResponse is the answer of POST /v1/judge: a result per metric, as
// `assay judge --format json` prints them.
type JudgeResponse struct {
	Results []run.Result `json:"results"`
}

// postJudge is POST /v1/judge: one sample judged with metrics, in the
// request's time, by the judges of `assay judge` (bench.Judger). The
// judgement is a run span (assay.judge) under the request's, its sample
// and model calls beneath, as `assay judge` traces a run.
func (s *Server) postJudge(w http.ResponseWriter, r *http.Request) error {
	var req JudgeRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	if len(req.Sample) == 0 {
		return badRequest("sample", "sample: missing: the record to judge (question, answer, contexts...)")
	}
	if len(req.Metrics) == 0 {
		return badRequest("metrics", "metrics: name at least one metric (faithfulness, answer_relevancy...)")
	}
	rec, err := dataset.DecodeRecord("sample", req.Sample)
	if err != nil {
		return sampleError("sample", err)
	}
	// Checked first, so that a metric the monitor is told of is a real one.
	if err := s.judger.Check(rec.Sample, req.Metrics); err != nil {
		return judgeError(err)
	}
	end := s.begin(req.Metrics)
	defer end()
	ctx, endRun := startJudgeRun(r.Context(), req.Metrics) // the request's child
	scores, err := s.judger.Judge(ctx, rec.Sample, req.Metrics)
	endRun(scores, err)
	if err != nil {
		return judgeError(err)
	}
	if err := r.Context().Err(); err != nil {
		return fmt.Errorf("judging took longer than %s: %w", s.cfg.RequestTimeout, err)
	}
	resp := JudgeResponse{Results: make([]run.Result, len(scores))}
	meta := metaOf(rec.Sample.Metadata, "judge", "")
	at := s.cfg.Now()
	for i, sc := range scores {
		res := run.ResultOf(rec.ID, sc)
		res.Value, res.Points = run.Round(res.Value), run.Round(res.Points)
		resp.Results[i] = res
		s.observe(sc, meta, at)
	}
	httpjson.Write(w, http.StatusOK, resp)
	return nil
}

// judgeError is a judgement's input error as a 400 naming the field:
// metrics for an unknown metric, else the sample's.
func judgeError(err error) error {
	if ie, ok := errors.AsType[*eval.InputError](err); ok && ie.Field == "--metric" {
		return inputError("metrics", &eval.InputError{Msg: ie.Msg})
	}
	return sampleError("sample", err)
}

// apiRoutes are the server's routes and what the OpenAPI document says
// of each.
func (s *Server) apiRoutes() []route {
	routes := []route{
		{pattern: routeContext, handle: s.postContextScore, api: true, cpu: true, doc: docContextScore},
		{pattern: routeScore, handle: s.postScore, api: true, doc: docScore},
		{pattern: routeJudge, handle: s.postJudge, api: true, doc: docJudge},
		{pattern: routeRuns, handle: s.postRun, api: true, doc: docRuns},
		{pattern: routeRunList, handle: s.getRuns, api: true, doc: docRunList},
		{pattern: routeRun, handle: s.getRun, api: true, doc: docRun},
		{pattern: routeTraces, handle: s.postTraces, api: true, doc: docTraces},
		{pattern: routeOTLP, handle: s.postOTLP, api: true, doc: docOTLP},
		{pattern: routeSummary, handle: s.getTraceSummary, api: true, doc: docSummary},
		{pattern: routeTrace, handle: s.getTrace, api: true, doc: docTrace},
		{pattern: routeAlerts, handle: s.getAlerts, api: true, doc: docAlerts},
		{pattern: routeDash, handle: handler(dashboard.Handler(s.dash)), api: true, doc: docDash},
		{pattern: routeDashAPI, handle: handler(dashboard.JSONHandler(s.dash)), api: true, doc: docDashAPI},
		{pattern: routeQueue, handle: s.getQueue, api: true, doc: docQueue},
		{pattern: routeQueueLabels, handle: s.postLabel, api: true, doc: docQueueLabels},
		{pattern: routeQueueExport, handle: s.getExport, api: true, doc: docQueueExport},
		{pattern: routeQueuePage, handle: s.getQueuePage, api: true, doc: docQueuePage},
		{pattern: routeHealth, handle: s.healthz, doc: docHealth},
		{pattern: routeReady, handle: s.readyz, doc: docReady},
		{pattern: routeMetrics, handle: s.metricsHandler(), doc: docMetrics},
		{pattern: routeOpenAPI, handle: s.openAPI, doc: docOpenAPI},
	}
	if s.cfg.Token != "" {
		routes = append(routes, route{pattern: routeLogin, handle: s.postLogin, api: true, doc: docLogin})
	}
	return routes
}

// itoa is strconv.Itoa, for building field paths.
func itoa(i int) string { return strconv.Itoa(i) }
