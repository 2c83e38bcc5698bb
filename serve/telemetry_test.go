package serve

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/telemetry"
	"github.com/assaylabs/assay/telemetry/telemetrytest"
)

// The tests here install the global tracer provider, as telemetry.Setup
// does: none of them runs in parallel (the package's parallel tests wait
// until they are done).

// The caller's trace: its id and the span the requests come from.
const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
	traceparent = "00-" + callerTrace + "-" + callerSpan + "-01"
)

// tokenModel is a fake model server answering the judges, with the token
// counts the chat spans must carry.
func tokenModel(t *testing.T) *llmtest.Server {
	return llmtest.New(t, llmtest.Quiet(), llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		r := llmtest.JudgeReplies(req)
		r.PromptTokens, r.CompletionTokens = 120, 15
		return r
	}))
}

// tracedSample is one record whose first of two contexts the fake model
// finds useful: context precision 1.
var tracedSample = map[string]any{"id": "s1", "question": "What helps memory?", "answer": "Sleep helps memory.",
	"contexts": []string{"Sleep consolidates memory in adults.", "Coffee is a drink."}}

// precisionEvent is the evaluation event of tracedSample's context
// precision.
var precisionEvent = map[attribute.Key]attribute.Value{
	"gen_ai.evaluation.name":        attribute.StringValue("context_precision"),
	"gen_ai.evaluation.score.value": attribute.Float64Value(1),
	"gen_ai.evaluation.score.label": attribute.StringValue("pass"),
	"gen_ai.evaluation.explanation": attribute.StringValue("1 of 2 contexts useful; rank-weighted precision 1.00"),
	"assay.score.method":            attribute.StringValue("llm:openai:gpt-4o-mini (vs answer, no reference)"),
}

// chatAttrs are the attributes of a context-precision call to the fake
// model, its tag apart.
var chatAttrs = map[attribute.Key]attribute.Value{
	"gen_ai.operation.name":      attribute.StringValue("chat"),
	"gen_ai.provider.name":       attribute.StringValue("openai"),
	"gen_ai.request.model":       attribute.StringValue("gpt-4o-mini"),
	"gen_ai.request.temperature": attribute.Float64Value(0),
	"gen_ai.output.type":         attribute.StringValue("json"),
	"gen_ai.response.model":      attribute.StringValue("gpt-4o-mini"),
	"gen_ai.response.id":         attribute.StringValue("chatcmpl-llmtest"),
	"gen_ai.usage.input_tokens":  attribute.IntValue(120),
	"gen_ai.usage.output_tokens": attribute.IntValue(15),
	"assay.llm.tag":              attribute.StringValue("context.precision"),
}

func TestJudgeIsTracedInTheCallersTrace(t *testing.T) {
	exp := telemetrytest.Record(t)
	model := tokenModel(t)
	s := start(t, withModel(Config{}, model.URL()))
	code, body := call(t, http.MethodPost, s.URL+"/v1/judge",
		mustJSON(t, map[string]any{"sample": tracedSample, "metrics": []string{"context_precision"}}), "traceparent", traceparent)
	require.Equal(t, http.StatusOK, code, body)

	spans := inTrace(t, exp.GetSpans(), callerTrace)
	server := telemetrytest.Only(t, spans, "POST /v1/judge")
	assert.Equal(t, trace.SpanKindServer, server.SpanKind)
	assert.Equal(t, callerSpan, server.Parent.SpanID().String(), "the request's span is the caller's child")
	assert.True(t, server.Parent.IsRemote())
	sa := telemetrytest.Attrs(server.Attributes)
	assert.Equal(t, attribute.StringValue("/v1/judge"), sa["http.route"])
	assert.Equal(t, attribute.StringValue("POST"), sa["http.request.method"])
	assert.Equal(t, attribute.IntValue(200), sa["http.response.status_code"])

	run := telemetrytest.Only(t, spans, "assay.judge")
	assert.Equal(t, server.SpanContext.SpanID(), run.Parent.SpanID(), "the judgement is the request's child")
	assert.Equal(t, codes.Unset, run.Status.Code)
	assert.Equal(t, map[attribute.Key]attribute.Value{
		"assay.metrics":     attribute.StringSliceValue([]string{"context_precision"}),
		"assay.run.records": attribute.IntValue(1),
		"assay.run.judged":  attribute.IntValue(1),
	}, telemetrytest.Attrs(run.Attributes))

	smp := telemetrytest.Only(t, spans, "assay.sample")
	assert.Equal(t, run.SpanContext.SpanID(), smp.Parent.SpanID(), "the sample is the run's child")
	assert.Equal(t, map[attribute.Key]attribute.Value{
		"assay.sample.id": attribute.StringValue("s1"), "assay.sample.line": attribute.IntValue(0),
	}, telemetrytest.Attrs(smp.Attributes))
	assert.Equal(t, []map[attribute.Key]attribute.Value{precisionEvent}, telemetrytest.Events(smp, telemetry.EventEvaluation))

	chat := telemetrytest.Only(t, spans, "chat gpt-4o-mini")
	assert.Equal(t, smp.SpanContext.SpanID(), chat.Parent.SpanID(), "the model call is the sample's child")
	assert.Equal(t, trace.SpanKindClient, chat.SpanKind)
	assert.Equal(t, chatAttrs, telemetrytest.Attrs(chat.Attributes))
	assert.Len(t, spans, 4, "the request, the run, the sample and one call")
}

// judgedSignal is an Observer that tells when a metric's score is seen.
type judgedSignal chan string

func (j judgedSignal) Observe(metric string, _ eval.Score, _ map[string]string, _ time.Time) {
	j <- metric
}

func TestASampledTraceIsJudgedInTheCallersTrace(t *testing.T) {
	exp := telemetrytest.Record(t)
	model := tokenModel(t)
	judged := make(judgedSignal, 4)
	s := start(t, withModel(Config{TraceMetrics: []string{"context_precision"}, Observers: []Observer{judged}}, model.URL()))
	body := mustJSON(t, map[string]any{"traces": []any{map[string]any{"trace_id": "t-1", "sample": tracedSample}}})
	code, resp := call(t, http.MethodPost, s.URL+"/v1/traces", body, "traceparent", traceparent)
	require.Equal(t, http.StatusAccepted, code, resp)
	var tr TracesResponse
	require.NoError(t, json.Unmarshal([]byte(resp), &tr))
	require.Equal(t, 1, tr.Sampled)
	select {
	case m := <-judged: // observed after its sample's span ended
		require.Equal(t, "context_precision", m)
	case <-time.After(time.Minute):
		t.Fatal("the trace was not judged within a minute")
	}

	spans := inTrace(t, exp.GetSpans(), callerTrace)
	server := telemetrytest.Only(t, spans, "POST /v1/traces")
	assert.Equal(t, callerSpan, server.Parent.SpanID().String())
	assert.Equal(t, attribute.IntValue(202), telemetrytest.Attrs(server.Attributes)["http.response.status_code"])
	smp := telemetrytest.Only(t, spans, "assay.sample")
	assert.Equal(t, server.SpanContext.SpanID(), smp.Parent.SpanID(), "the judgement is the posting request's child")
	assert.Equal(t, map[attribute.Key]attribute.Value{
		"assay.sample.id": attribute.StringValue("t-1"), "assay.sample.line": attribute.IntValue(0),
	}, telemetrytest.Attrs(smp.Attributes), "the sample is named by its trace id")
	assert.Equal(t, []map[attribute.Key]attribute.Value{precisionEvent}, telemetrytest.Events(smp, telemetry.EventEvaluation))
	chat := telemetrytest.Only(t, spans, "chat gpt-4o-mini")
	assert.Equal(t, smp.SpanContext.SpanID(), chat.Parent.SpanID())
	assert.Equal(t, chatAttrs, telemetrytest.Attrs(chat.Attributes))
	assert.Len(t, spans, 3, "the request, the sample and one call")
}

func TestARunIsTracedUnderItsRequest(t *testing.T) {
	exp := telemetrytest.Record(t)
	model := tokenModel(t)
	s := start(t, withModel(Config{}, model.URL()))
	code, body := call(t, http.MethodPost, s.URL+"/v1/runs",
		mustJSON(t, map[string]any{"metrics": []string{"context_precision"}, "samples": []any{tracedSample}}), "traceparent", traceparent)
	require.Equal(t, http.StatusAccepted, code, body)
	var st RunStatus
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	deadline := time.Now().Add(time.Minute)
	for st.State != RunDone {
		require.True(t, time.Now().Before(deadline), "the run never finished: %+v", st)
		time.Sleep(5 * time.Millisecond)
		_, body = call(t, http.MethodGet, s.URL+"/v1/runs/"+st.ID, "")
		require.NoError(t, json.Unmarshal([]byte(body), &st))
	}

	spans := inTrace(t, exp.GetSpans(), callerTrace)
	server := telemetrytest.Only(t, spans, "POST /v1/runs")
	assert.Equal(t, callerSpan, server.Parent.SpanID().String())
	// Two runs: the request's checks (a dry run, no model call) and the run.
	var run tracetest.SpanStub
	benches := telemetrytest.Named(spans, "assay.bench")
	require.Len(t, benches, 2)
	for _, b := range benches {
		assert.Equal(t, server.SpanContext.SpanID(), b.Parent.SpanID(), "a run is the request's child")
		if telemetrytest.Attrs(b.Attributes)["assay.run.judged"] == attribute.IntValue(1) {
			run = b
		}
	}
	require.True(t, run.SpanContext.IsValid(), "no run judged the sample")
	assert.Equal(t, attribute.StringValue(st.ID), telemetrytest.Attrs(run.Attributes)["assay.run.id"])
	smp := telemetrytest.Only(t, spans, "assay.sample")
	assert.Equal(t, run.SpanContext.SpanID(), smp.Parent.SpanID())
	assert.Equal(t, []map[attribute.Key]attribute.Value{precisionEvent}, telemetrytest.Events(smp, telemetry.EventEvaluation))
	chat := telemetrytest.Only(t, spans, "chat gpt-4o-mini")
	assert.Equal(t, smp.SpanContext.SpanID(), chat.Parent.SpanID())
}

func TestARequestWithoutTraceparentStartsATrace(t *testing.T) {
	exp := telemetrytest.Record(t)
	s := start(t, Config{})
	code, body := call(t, http.MethodPost, s.URL+"/v1/context-score", mustJSON(t, exampleContext))
	require.Equal(t, http.StatusOK, code, body)
	code, _ = call(t, http.MethodGet, s.URL+"/nowhere", "")
	require.Equal(t, http.StatusNotFound, code)
	spans := exp.GetSpans()
	srv := telemetrytest.Only(t, spans, "POST /v1/context-score")
	assert.False(t, srv.Parent.IsValid(), "no traceparent: the request's span is a root")
	assert.Equal(t, attribute.StringValue("/v1/context-score"), telemetrytest.Attrs(srv.Attributes)["http.route"])
	nowhere := telemetrytest.Only(t, spans, "GET")
	assert.Equal(t, attribute.IntValue(404), telemetrytest.Attrs(nowhere.Attributes)["http.response.status_code"])
}

// inTrace are the spans of trace id.
func inTrace(t *testing.T, spans tracetest.SpanStubs, id string) tracetest.SpanStubs {
	t.Helper()
	var out tracetest.SpanStubs
	for _, s := range spans {
		if s.SpanContext.TraceID().String() == id {
			out = append(out, s)
		}
	}
	return out
}
