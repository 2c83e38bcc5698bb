package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/telemetry"
	"github.com/assaylabs/assay/telemetry/telemetrytest"
)

// The tests of this package install the global tracer provider, as Setup
// does, so none of them runs in parallel.

// sample is one RAG record: the fake server's stand-in replies find one
// of its two claims supported and its first context useful.
const sample = `{"id":"s1","question":"What helps memory?","answer":"Sleep helps memory. It consolidates learning.","contexts":["Sleep consolidates memory in adults.","Coffee is a drink."]}` + "\n"

// fake is a model server answering every judge prompt, with the token
// counts the spans must carry.
func fake(t *testing.T) *llmtest.Server {
	return llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		r := llmtest.JudgeReplies(req)
		r.PromptTokens, r.CompletionTokens = 120, 15
		return r
	}))
}

// setting is how a run reaches the fake server: the --llm spec, the
// environment it reads, and the provider its spans must name.
type setting struct {
	spec     string
	env      func(url string) map[string]string
	provider string
}

var openaiSetting = setting{
	spec: "openai:judge",
	env: func(url string) map[string]string {
		return map[string]string{"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k"}
	},
	provider: "openai",
}

// runner runs a bench.Judge or bench.Execute over data and returns the
// run id it kept ("" for Judge).
type runner func(ctx context.Context, t *testing.T, data string, j judging.Config, env func(string) string) string

func judgeRun(ctx context.Context, t *testing.T, data string, j judging.Config, env func(string) string) string {
	_, err := bench.Judge(ctx, bench.JudgeJob{Data: data, Metrics: []string{"faithfulness", "context_precision"},
		Out: io.Discard, Log: io.Discard, Judging: j, Env: env, Quiet: true})
	require.NoError(t, err)
	return ""
}

func executeRun(ctx context.Context, t *testing.T, data string, j judging.Config, env func(string) string) string {
	o, err := bench.Execute(ctx, bench.Job{Data: data, Metrics: []string{"faithfulness", "context_precision"},
		Out: filepath.Join(t.TempDir(), "run"), NoStore: true, Log: io.Discard, Judging: j, Env: env, Quiet: true})
	require.NoError(t, err)
	return o.Config.RunID
}

// judgingOf is the judging of a run against the server at url.
func judgingOf(s setting, url string) (judging.Config, func(string) string) {
	j := judging.Default()
	j.LLM.Spec, j.LLM.NoCache = s.spec, true
	// One attempt at most for a server that fails: the retry has no time.
	j.LLM.MaxRetryTime = 300 * time.Millisecond
	env := s.env(url)
	return j, func(k string) string { return env[k] }
}

// writeData writes content to a file of its own and returns its path.
func writeData(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "data.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestAJudgedSampleIsARunSampleAndChatSpans(t *testing.T) {
	tests := map[string]struct {
		setting setting
		run     runner
		runSpan string
	}{
		"assay judge, openai": {setting: openaiSetting, run: judgeRun, runSpan: "assay.judge"},
		"assay bench, openai": {setting: openaiSetting, run: executeRun, runSpan: "assay.bench"},
		"assay judge, ollama": {
			setting: setting{spec: "ollama:judge", provider: "ollama", env: func(url string) map[string]string {
				return map[string]string{"OLLAMA_HOST": strings.TrimSuffix(url, "/v1")}
			}},
			run: judgeRun, runSpan: "assay.judge",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			exp := telemetrytest.Record(t)
			srv := fake(t)
			j, env := judgingOf(tc.setting, srv.URL())
			data := writeData(t, sample)
			runID := tc.run(t.Context(), t, data, j, env)

			spans := exp.GetSpans()
			run := telemetrytest.Only(t, spans, tc.runSpan)
			assert.False(t, run.Parent.IsValid(), "the run is the root")
			assert.Equal(t, codes.Unset, run.Status.Code)
			want := map[attribute.Key]attribute.Value{
				"assay.dataset":     attribute.StringValue(data),
				"assay.metrics":     attribute.StringSliceValue([]string{"faithfulness", "context_precision"}),
				"assay.run.records": attribute.IntValue(1),
				"assay.run.judged":  attribute.IntValue(1),
			}
			if runID != "" {
				want["assay.run.id"] = attribute.StringValue(runID)
			}
			assert.Equal(t, want, telemetrytest.Attrs(run.Attributes))

			smp := telemetrytest.Only(t, spans, "assay.sample")
			assert.Equal(t, run.SpanContext.SpanID(), smp.Parent.SpanID(), "the sample is the run's child")
			assert.Equal(t, map[attribute.Key]attribute.Value{
				"assay.sample.id": attribute.StringValue("s1"), "assay.sample.line": attribute.IntValue(1),
			}, telemetrytest.Attrs(smp.Attributes))

			chats := telemetrytest.Named(spans, "chat judge")
			require.Len(t, chats, 3, "faithfulness asks twice (claims, verdicts), context precision once")
			tags := []string{}
			for _, c := range chats {
				assert.Equal(t, smp.SpanContext.SpanID(), c.Parent.SpanID(), "a model call is its sample's child")
				assert.Equal(t, trace.SpanKindClient, c.SpanKind)
				assert.Equal(t, codes.Unset, c.Status.Code)
				got := telemetrytest.Attrs(c.Attributes)
				tags = append(tags, got["assay.llm.tag"].AsString())
				delete(got, "assay.llm.tag")
				assert.Equal(t, map[attribute.Key]attribute.Value{
					"gen_ai.operation.name":      attribute.StringValue("chat"),
					"gen_ai.provider.name":       attribute.StringValue(tc.setting.provider),
					"gen_ai.request.model":       attribute.StringValue("judge"),
					"gen_ai.request.temperature": attribute.Float64Value(0),
					"gen_ai.output.type":         attribute.StringValue("json"),
					"gen_ai.response.model":      attribute.StringValue("judge"),
					"gen_ai.response.id":         attribute.StringValue("chatcmpl-llmtest"),
					"gen_ai.usage.input_tokens":  attribute.IntValue(120),
					"gen_ai.usage.output_tokens": attribute.IntValue(15),
				}, got)
			}
			assert.ElementsMatch(t, []string{"faithfulness.claims", "faithfulness.verify", "context.precision"}, tags)

			// The faithfulness threshold is above 0.5; context precision's
			// 1.0 passes any.
			assert.ElementsMatch(t, []map[attribute.Key]attribute.Value{
				{
					"gen_ai.evaluation.name":        attribute.StringValue("faithfulness"),
					"gen_ai.evaluation.score.value": attribute.Float64Value(0.5),
					"gen_ai.evaluation.score.label": attribute.StringValue("fail"),
					"gen_ai.evaluation.explanation": attribute.StringValue("1 of 2 claims supported by the contexts"),
					"assay.score.method":            attribute.StringValue("llm:" + tc.setting.spec),
				},
				{
					"gen_ai.evaluation.name":        attribute.StringValue("context_precision"),
					"gen_ai.evaluation.score.value": attribute.Float64Value(1),
					"gen_ai.evaluation.score.label": attribute.StringValue("pass"),
					"gen_ai.evaluation.explanation": attribute.StringValue("1 of 2 contexts useful; rank-weighted precision 1.00"),
					"assay.score.method":            attribute.StringValue("llm:" + tc.setting.spec + " (vs answer, no reference)"),
				},
			}, telemetrytest.Events(smp, telemetry.EventEvaluation))
			assert.Len(t, spans, 5, "one run, one sample, three calls")
		})
	}
}

func TestAFailingModelCallIsAnErrorSpanAndADefaultedEvaluation(t *testing.T) {
	exp := telemetrytest.Record(t)
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Status: 500}))
	j, env := judgingOf(openaiSetting, srv.URL())
	_, err := bench.Judge(t.Context(), bench.JudgeJob{Data: writeData(t, sample), Metrics: []string{"context_precision"},
		Out: io.Discard, Log: io.Discard, Judging: j, Env: env, Quiet: true})
	require.NoError(t, err)

	spans := exp.GetSpans()
	chats := telemetrytest.Named(spans, "chat judge")
	require.NotEmpty(t, chats)
	require.Len(t, chats, srv.Calls(), "a span per request sent")
	for _, c := range chats {
		assert.Equal(t, codes.Error, c.Status.Code)
		assert.Contains(t, c.Status.Description, "status 500")
		got := telemetrytest.Attrs(c.Attributes)
		assert.Equal(t, attribute.StringValue("500"), got["error.type"])
		assert.NotContains(t, got, attribute.Key("gen_ai.usage.input_tokens"), "a failed call has no usage")
		assert.NotContains(t, got, attribute.Key("gen_ai.response.model"))
	}
	smp := telemetrytest.Only(t, spans, "assay.sample")
	evs := telemetrytest.Events(smp, telemetry.EventEvaluation)
	require.Len(t, evs, 1)
	assert.Equal(t, attribute.StringValue("defaulted"), evs[0]["gen_ai.evaluation.score.label"])
	assert.Equal(t, attribute.StringValue("500"), evs[0]["error.type"])
	assert.NotContains(t, evs[0], attribute.Key("gen_ai.evaluation.score.value"), "a neutral default is no measurement")
	assert.Contains(t, evs[0]["gen_ai.evaluation.explanation"].AsString(), "judge failed, neutral grade 3 of 5 used")

	run := telemetrytest.Only(t, spans, "assay.judge")
	assert.Equal(t, codes.Error, run.Status.Code, "a run over its default rate did not pass")
	assert.Equal(t, attribute.StringSliceValue([]string{"too many defaults"}), telemetrytest.Attrs(run.Attributes)["assay.run.failures"])
}

func TestMiddlewareContinuesTheCallersTrace(t *testing.T) {
	tests := map[string]struct {
		// mount returns the server's handler with judge at POST /v1/judge.
		mount func(judge http.Handler) http.Handler
	}{
		"a route wrapped": {mount: func(judge http.Handler) http.Handler {
			mux := http.NewServeMux()
			mux.Handle("POST /v1/judge", telemetry.Middleware(judge, "/v1/judge"))
			return mux
		}},
		"the whole mux wrapped, the span named after the pattern served": {mount: func(judge http.Handler) http.Handler {
			mux := http.NewServeMux()
			mux.Handle("POST /v1/judge", judge)
			return telemetry.Middleware(mux, "")
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			exp := telemetrytest.Record(t)
			srv := fake(t)
			j, env := judgingOf(openaiSetting, srv.URL())
			data := writeData(t, sample)
			api := httptest.NewServer(tc.mount(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, err := bench.Judge(r.Context(), bench.JudgeJob{Data: data, Metrics: []string{"context_precision"},
					Out: w, Log: io.Discard, Judging: j, Env: env, Quiet: true, Format: report.OutputJSONL})
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
				}
			})))
			t.Cleanup(api.Close)

			const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, api.URL+"/v1/judge", strings.NewReader("{}"))
			require.NoError(t, err)
			req.Header.Set("traceparent", "00-"+traceID+"-"+parentID+"-01")
			resp, err := api.Client().Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, resp.Body.Close())
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, string(body))

			spans := exp.GetSpans()
			server := telemetrytest.Only(t, spans, "POST /v1/judge")
			assert.Equal(t, trace.SpanKindServer, server.SpanKind)
			assert.Equal(t, traceID, server.Parent.TraceID().String())
			assert.Equal(t, parentID, server.Parent.SpanID().String(), "the request's span is the caller's child")
			assert.True(t, server.Parent.IsRemote())
			assert.Equal(t, attribute.IntValue(200), telemetrytest.Attrs(server.Attributes)["http.response.status_code"])
			assert.Equal(t, attribute.StringValue("/v1/judge"), telemetrytest.Attrs(server.Attributes)["http.route"])

			run := telemetrytest.Only(t, spans, "assay.judge")
			assert.Equal(t, server.SpanContext.SpanID(), run.Parent.SpanID(), "the run is the request's child")
			smp := telemetrytest.Only(t, spans, "assay.sample")
			assert.Equal(t, run.SpanContext.SpanID(), smp.Parent.SpanID())
			chat := telemetrytest.Only(t, spans, "chat judge")
			assert.Equal(t, smp.SpanContext.SpanID(), chat.Parent.SpanID())
			for _, s := range spans {
				assert.Equal(t, traceID, s.SpanContext.TraceID().String(), "%s is in the caller's trace", s.Name)
			}
		})
	}
}

func TestMiddlewareNamesARequestNoPatternServed(t *testing.T) {
	exp := telemetrytest.Record(t)
	api := httptest.NewServer(telemetry.Middleware(http.NewServeMux(), ""))
	t.Cleanup(api.Close)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, api.URL+"/nowhere", nil)
	require.NoError(t, err)
	resp, err := api.Client().Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	s := telemetrytest.Only(t, exp.GetSpans(), "GET")
	assert.Equal(t, attribute.IntValue(404), telemetrytest.Attrs(s.Attributes)["http.response.status_code"])
	assert.False(t, s.Parent.IsValid(), "no traceparent: a trace of its own")
}

func TestMiddlewareIsAPassThroughUntilAProviderIsInstalled(t *testing.T) {
	type seen struct {
		// span is the request context's span context; wrapped whether
		// the writer is not the server's own.
		span    trace.SpanContext
		wrapped bool
	}
	var got seen
	var plain http.ResponseWriter
	h := telemetry.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = seen{span: trace.SpanContextFromContext(r.Context()), wrapped: w != plain}
	}), "")
	send := func() seen {
		rec := httptest.NewRecorder()
		plain = rec
		req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/", nil)
		req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		h.ServeHTTP(rec, req)
		return got
	}

	require.False(t, telemetry.Installed(), "no provider installed by this test yet")
	assert.Equal(t, seen{}, send(), "off: the request as it came, no span, the writer unwrapped")

	t.Run("installed", func(t *testing.T) {
		exp := telemetrytest.Record(t)
		require.True(t, telemetry.Installed())
		on := send()
		assert.True(t, on.wrapped)
		assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", on.span.TraceID().String(), "on: the caller's trace continued")
		assert.Len(t, exp.GetSpans(), 1)
	})
	require.False(t, telemetry.Installed(), "the default is back once the test's provider is")
	assert.Equal(t, seen{}, send())
}

func TestTracingOffRecordsNothing(t *testing.T) {
	// The global provider is the no-op one: the hooks run and keep nothing.
	srv := fake(t)
	j, env := judgingOf(openaiSetting, srv.URL())
	ctx, run := telemetry.StartRun(t.Context(), "assay.judge", "d", nil)
	assert.False(t, trace.SpanFromContext(ctx).IsRecording())
	_, smp := telemetry.StartSample(ctx, "s1", 1, 1)
	assert.Nil(t, smp, "no sample span to count down when off")
	smp.Done(nil)
	run.End(telemetry.RunEnd{})
	judgeRun(t.Context(), t, writeData(t, sample), j, env)
	assert.Equal(t, 3, srv.Calls(), "the run judged as it would")
}
