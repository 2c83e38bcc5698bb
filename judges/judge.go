package judges

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// Model is what a judge needs from the model client; *llm.Client is one.
// It is metric.Model, the model a registry's scorers are built with.
type Model = metric.Model

// MethodOffline labels scores computed without a model.
const MethodOffline = "offline (approximate)"

// Offline reports whether m cannot generate text: nil, or a model that
// says it is offline.
func Offline(m Model) bool { return metric.Offline(m) }

// Method is the label of what judges with m, the one every card, score and
// summary shows: MethodOffline, or "llm:" and the model's name.
func Method(m Model) string {
	if Offline(m) {
		return MethodOffline
	}
	return methodModel + m.Name()
}

// methodModel begins the Method of a model that is not offline.
const methodModel = "llm:"

// OfflineMethod reports whether method, a label Method gave (the judge a
// stored run or a score records), says that no model judged: it names
// none. MethodOffline is offline, and so is a label of no judge at all.
func OfflineMethod(method string) bool { return !strings.HasPrefix(method, methodModel) }

// Metric names, as used by --metric and in cards.
const (
	MetricFaithfulness    = "faithfulness"
	MetricAnswerRelevancy = "answer_relevancy"
	// MetricAnswerRelevancyGrade is the model's direct 1-5 grade of the
	// answer's relevance: another quantity than answer_relevancy (RAGAS's
	// generated questions and embeddings), under its own name.
	MetricAnswerRelevancyGrade = "answer_relevancy_grade"
	MetricContextPrecision     = "context_precision"
	MetricContextRecall        = "context_recall"
	MetricCompleteness         = "completeness"
	MetricSourceRelevance      = "source_relevance"
	MetricReasoning            = "reasoning"
)

// neutral is the score a judge falls back on when its model fails: grade 3
// of 5, value 0.5, flagged and explained. maxPts is the metric's native
// maximum (1 for ratios, 5 for grades).
func neutral(metric, meth string, maxPts float64, err error, u eval.Usage) eval.Score {
	return eval.Score{
		Metric: metric, Value: 0.5, Points: 0.5 * maxPts, Max: maxPts,
		Method: meth, Defaulted: true, Err: err, Usage: u.Recorded(),
		Reason: "judge failed, neutral grade 3 of 5 used: " + err.Error(),
	}
}

// skip is the score of a sample the judge has nothing to judge in (no
// answer, an answer with no claim): Skipped, not scored, never passing a
// gate, with the cause in Err and Reason.
func skip(metric, meth string, maxPts float64, err error, u eval.Usage) eval.Score {
	return eval.Score{
		Metric: metric, Max: maxPts, Method: meth, Skipped: true, Err: err, Usage: u.Recorded(),
		Reason: "skipped, not scored: " + err.Error(),
	}
}

// blank reports whether an answer is missing, empty or only spaces.
func blank(answer string) bool { return strings.TrimSpace(answer) == "" }

// ErrMissingVerdicts is the Err of a judgement the model left incomplete:
// items it was asked about (claims, statements, contexts) still had no
// verdict after it was asked again about those alone. The whole score is
// then the neutral default; the evidence keeps the verdicts given and
// counts the missing ones as "unjudged". Test with errors.Is.
var ErrMissingVerdicts = errors.New("the model left items without a verdict, even when asked again")

// incomplete turns sc, built from the verdicts given, into the neutral
// default because n of its total items have no verdict (see
// ErrMissingVerdicts): its evidence stays, with the count of unjudged
// items, and its reason keeps what the given verdicts said.
func incomplete(sc eval.Score, n, total int, what string) eval.Score {
	err := fmt.Errorf("%w: %d of %s without a verdict", ErrMissingVerdicts, n, plural.Count(total, what))
	given := sc.Reason
	sc.Value, sc.Points, sc.Defaulted, sc.Err = 0.5, 0.5*sc.Max, true, err
	if sc.Evidence.Counts == nil {
		sc.Evidence.Counts = map[string]float64{}
	}
	sc.Evidence.Counts["unjudged"] = float64(n)
	sc.Reason = "judge failed, neutral grade 3 of 5 used: " + err.Error() + " (from the verdicts given: " + given + ")"
	return sc
}

// fail turns a judge error into its result: cancellation and refused
// credentials (llm.ErrAuth: no later call can succeed) stop the run,
// anything else becomes the neutral default.
func fail(ctx context.Context, metric string, m Model, maxPts float64, err error, u eval.Usage) (eval.Score, error) {
	if err := Stops(ctx, err); err != nil {
		return eval.Score{}, err
	}
	return neutral(metric, Method(m), maxPts, err, u), nil
}

// Stops returns the error that must stop a run rather than become a
// judge's neutral default, or nil: the caller's cancellation, or refused
// credentials (llm.ErrAuth), after which no call can succeed. Every
// caller that falls back on a default when the model fails (judges, the
// research gate and summaries) asks it first.
func Stops(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, llm.ErrAuth) {
		return err
	}
	return nil
}

// Ask renders the named prompt template with data, sends it asking for
// schema's JSON, and decodes the reply into out: validated against the
// schema, then by checks, with one repair request (see llm.ChatJSON).
// maxTokens 0 leaves the reply's length to the backend. Within a Sampled
// judgement the request is at SampleTemperature, seeded with the ask's
// index.
func Ask(ctx context.Context, m llm.Chatter, name string, data, out any, schema *llm.Schema, maxTokens int, checks ...llm.Check) (eval.Usage, error) {
	p, err := prompts.MustGet(name).Prepare(data)
	if err != nil {
		return eval.Usage{}, err
	}
	req := llm.Request{
		Prompt:    messagesOf(p),
		Schema:    schema,
		MaxTokens: maxTokens,
		Key:       p.Key,
		Tag:       name,
	}
	// Ask i of a sampled judgement (Sampled): warm, and seeded with its
	// index, which the cache key includes, so each ask is cached apart.
	if i, ok := sampleOf(ctx); ok {
		req.Temperature, req.Seed = SampleTemperature, &i
	}
	return llm.ChatJSON(ctx, m, req, out, checks...)
}

// messagesOf renders p as a system and a user message when they are
// needed: not for a reply the client's cache holds.
func messagesOf(p prompts.Prepared) func() ([]llm.Message, error) {
	return func() ([]llm.Message, error) {
		r, err := p.Render()
		if err != nil {
			return nil, err
		}
		return []llm.Message{{Role: llm.System, Content: r.System}, {Role: llm.User, Content: r.User}}, nil
	}
}

// ask is Ask with the backend's reply length, for the judges.
func ask(ctx context.Context, m Model, name string, data, out any, schema *llm.Schema, checks ...llm.Check) (eval.Usage, error) {
	return Ask(ctx, m, name, data, out, schema, 0, checks...)
}

// passages are the sample's contexts in retrieval order, each with the id
// of its position, c1, c2, ..., whatever its own id: chunks of one
// document often share the document's id, and a verdict must name one
// context. sampleIDs maps the positions back to the sample's ids.
func passages(s eval.Sample) []prompts.Passage {
	var out []prompts.Passage
	for i, src := range s.Sources {
		out = append(out, prompts.Passage{ID: positionID(i), Title: src.Title, Text: src.Text})
	}
	if len(out) == 0 && s.Context != nil && s.Context.Text != "" {
		out = append(out, prompts.Passage{ID: positionID(0), Text: s.Context.Text})
	}
	return out
}

// sampleIDs are the ids of the sample's contexts by position, as passages
// orders them: each source's own id, or its position id when it has none.
func sampleIDs(s eval.Sample) []string {
	var out []string
	for i, src := range s.Sources {
		id := src.ID
		if id == "" {
			id = positionID(i)
		}
		out = append(out, id)
	}
	if len(out) == 0 && s.Context != nil && s.Context.Text != "" {
		out = append(out, positionID(0))
	}
	return out
}

// positionID is the prompt id of the context at index i.
func positionID(i int) string { return "c" + strconv.Itoa(i+1) }

// knownContext returns a check that an id a reply names, in the named
// field, is one of the prompt's contexts ps; blank says whether an empty
// id is allowed (no supporting context).
func knownContext(ps []prompts.Passage, blank bool) func(field string, id string) error {
	known := make(map[string]bool, len(ps))
	names := make([]string, len(ps))
	for i, p := range ps {
		known[p.ID], names[i] = true, p.ID
	}
	return func(field, id string) error {
		if known[id] || (blank && id == "") {
			return nil
		}
		return fmt.Errorf("%s %q is not one of the contexts given (%s)", field, id, strings.Join(names, ", "))
	}
}

// indexOf is the position of a passage id in ps, or -1.
func indexOf(ps []prompts.Passage, id string) int {
	for i, p := range ps {
		if p.ID == id {
			return i
		}
	}
	return -1
}

func texts(ps []prompts.Passage) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Text
	}
	return out
}

// ErrNoContexts is returned by judges that need retrieved contexts when the
// sample has none. It is metric.ErrNoContexts.
var ErrNoContexts = metric.ErrNoContexts

// Checker is a judge that needs more of a sample than every judge does. Its
// Check returns, without any call, the error its Score would return for s
// because s lacks something (wrapping ErrNoReference or ErrNoContexts), or
// nil; a dataset can so be checked whole before a run spends anything. It
// is metric.Checker.
type Checker = metric.Checker

// grade is a 1-5 rating with a reason; its schema holds the range.
type grade struct {
	Grade  int    `json:"grade" schema:"minimum=1,maximum=5"`
	Reason string `json:"reason"`
}

// gradeSchema, like each reply schema of the judges, is reflected from its
// type on first use rather than at start-up, which every command would pay
// for.
var gradeSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[grade]("grade") })
