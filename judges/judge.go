package judges

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/prompts"
)

// Model is what a judge needs from the model client; *llm.Client is one.
type Model interface {
	llm.Chatter
	Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error)
	Name() string
}

// MethodOffline labels scores computed without a model.
const MethodOffline = "offline (approximate)"

// offline reports whether m can generate text: nil and the offline backend
// cannot.
func offline(m Model) bool { return m == nil || m.Name() == "offline" }

func method(m Model) string {
	if offline(m) {
		return MethodOffline
	}
	return "llm:" + m.Name()
}

// Metric names, as used by --metric and in cards.
const (
	MetricFaithfulness     = "faithfulness"
	MetricAnswerRelevancy  = "answer_relevancy"
	MetricContextPrecision = "context_precision"
	MetricContextRecall    = "context_recall"
	MetricCompleteness     = "completeness"
	MetricSourceRelevance  = "source_relevance"
	MetricReasoning        = "reasoning"
)

// New returns the judge for a metric name.
func New(metric string, m Model) (eval.Scorer, error) {
	switch metric {
	case MetricFaithfulness:
		return Faithfulness{Model: m}, nil
	case MetricAnswerRelevancy:
		return AnswerRelevancy{Model: m}, nil
	case MetricContextPrecision:
		return ContextPrecision{Model: m}, nil
	case MetricContextRecall:
		return ContextRecall{Model: m}, nil
	case MetricCompleteness:
		return Completeness{Model: m}, nil
	case MetricSourceRelevance:
		return SourceRelevance{Model: m}, nil
	case MetricReasoning:
		return Reasoning{Model: m}, nil
	}
	return nil, fmt.Errorf("unknown metric %q (have %s)", metric, strings.Join(Metrics(), ", "))
}

// Metrics lists the judges' metric names.
func Metrics() []string {
	out := []string{MetricFaithfulness, MetricAnswerRelevancy, MetricContextPrecision,
		MetricContextRecall, MetricCompleteness, MetricSourceRelevance, MetricReasoning}
	sort.Strings(out)
	return out
}

// neutral is the score a judge falls back on when its model fails: grade 3
// of 5, value 0.5, flagged and explained. maxPts is the metric's native
// maximum (1 for ratios, 5 for grades).
func neutral(metric, meth string, maxPts float64, err error, u llm.Usage) eval.Score {
	return eval.Score{
		Metric: metric, Value: 0.5, Points: 0.5 * maxPts, Max: maxPts,
		Method: meth, Defaulted: true, Err: err, Usage: UsageOf(u),
		Reason: "judge failed, neutral grade 3 of 5 used: " + err.Error(),
	}
}

// fail turns a judge error into its result: cancellation and refused
// credentials (llm.ErrAuth: no later call can succeed) stop the run,
// anything else becomes the neutral default.
func fail(ctx context.Context, metric string, m Model, maxPts float64, err error, u llm.Usage) (eval.Score, error) {
	if ctx.Err() != nil {
		return eval.Score{}, ctx.Err()
	}
	if errors.Is(err, llm.ErrAuth) {
		return eval.Score{}, err
	}
	return neutral(metric, method(m), maxPts, err, u), nil
}

// UsageOf is a model client's usage as a Score or Event records it.
func UsageOf(u llm.Usage) eval.Usage {
	return eval.Usage{Calls: u.Calls, TokensIn: u.TokensIn, TokensOut: u.TokensOut, Latency: u.Latency, CostUSD: u.CostUSD}
}

// Ask renders the named prompt template with data, sends it asking for
// schema's JSON, and decodes the reply into out (one repair request, see
// llm.ChatJSON). maxTokens 0 leaves the reply's length to the backend.
func Ask(ctx context.Context, m llm.Chatter, name string, data, out any, schema *llm.Schema, maxTokens int) (llm.Usage, error) {
	r, err := prompts.MustGet(name).Render(data)
	if err != nil {
		return llm.Usage{}, err
	}
	return llm.ChatJSON(ctx, m, llm.Request{
		Messages:  []llm.Message{{Role: llm.System, Content: r.System}, {Role: llm.User, Content: r.User}},
		Schema:    schema,
		MaxTokens: maxTokens,
		Key:       r.Key,
		Tag:       name,
	}, out)
}

// ask is Ask with the backend's reply length, for the judges.
func ask(ctx context.Context, m Model, name string, data, out any, schema *llm.Schema) (llm.Usage, error) {
	return Ask(ctx, m, name, data, out, schema, 0)
}

// passages are the sample's contexts in retrieval order, with ids.
func passages(s eval.Sample) []prompts.Passage {
	var out []prompts.Passage
	for i, src := range s.Sources {
		id := src.ID
		if id == "" {
			id = fmt.Sprintf("c%d", i+1)
		}
		out = append(out, prompts.Passage{ID: id, Title: src.Title, Text: src.Text})
	}
	if len(out) == 0 && s.Context != nil && s.Context.Text != "" {
		out = append(out, prompts.Passage{ID: "c1", Text: s.Context.Text})
	}
	return out
}

func texts(ps []prompts.Passage) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Text
	}
	return out
}

// ErrNoContexts is returned by judges that need retrieved contexts when the
// sample has none.
var ErrNoContexts = errors.New("sample has no contexts or sources")

// Checker is a judge that needs more of a sample than every judge does. Its
// Check returns, without any call, the error its Score would return for s
// because s lacks something (wrapping ErrNoReference or ErrNoContexts), or
// nil; a dataset can so be checked whole before a run spends anything.
type Checker interface {
	Check(s eval.Sample) error
}

// grade is a 1-5 rating with a reason.
type grade struct {
	Grade  int    `json:"grade" jsonschema:"minimum=1,maximum=5"`
	Reason string `json:"reason"`
}

func (g grade) Validate() error {
	if g.Grade < 1 || g.Grade > 5 {
		return fmt.Errorf("grade %d is outside 1-5", g.Grade)
	}
	return nil
}

// gradeSchema, like each reply schema of the judges, is reflected from its
// type on first use rather than at start-up, which every command would pay
// for.
var gradeSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[grade]("grade") })
