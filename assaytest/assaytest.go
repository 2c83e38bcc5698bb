// Package assaytest judges RAG answers from go test, as DeepEval's pytest
// plugin does from pytest: a test names the metrics a sample must reach,
// and fails with the evidence when one is not reached.
//
//	func TestAnswer(t *testing.T) {
//		s := eval.Sample{Query: q, Answer: answer, Sources: retrieved}
//		assaytest.Require(t, s, "faithfulness>=0.8", "answer_relevancy>=0.7")
//	}
//
// A dataset file (JSON, JSON Lines, CSV or TSV, as `assay judge` reads it) is
// judged whole and checked against gates on its statistics, the gates of
// `assay bench --gate`:
//
//	assaytest.RequireDataset(t, "testdata/rag.jsonl", "faithfulness.mean>=0.7", "faithfulness.min>=0.3")
//
// The judges use the model the assay command would use: $ASSAY_LLM, else
// openai:gpt-4o-mini when $OPENAI_API_KEY is set, else the offline judges
// (deterministic and approximate), so tests run offline by default.
// [New] with [WithModel] judges with a model of the test's own.
//
// A judge that failed and fell back on its neutral default fails the test:
// nothing was measured, so nothing passed. So does a sample with nothing to
// judge (no answer, no claim).
package assaytest

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm/setup"
)

// TB is the part of testing.TB the helpers use; *testing.T and *testing.B
// are ones. A test of a helper of its own can pass a TB that records.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Name() string
}

// Judge judges samples for tests with one model. The zero value judges
// with the offline judges, under context.Background(), 8 judgements of a
// dataset at a time; New judges with the model of the environment.
type Judge struct {
	model judges.Model
	// modelErr is why the model from the environment could not be built.
	modelErr error
	ctx      context.Context
	// concurrency bounds the judgements of a dataset in flight.
	concurrency int
}

// Option configures a Judge.
type Option func(*Judge)

// WithModel judges with m (an *llm.Client is one) instead of the model the
// environment names. Nil is the offline judges.
func WithModel(m judges.Model) Option {
	return func(j *Judge) { j.model, j.modelErr = m, nil }
}

// WithContext judges under ctx (a test's t.Context(), or one with a
// deadline); the default, and a nil ctx, is context.Background().
func WithContext(ctx context.Context) Option {
	return func(j *Judge) { j.ctx = ctx }
}

// WithConcurrency sets how many judgements of a dataset run at once
// (default 8).
func WithConcurrency(n int) Option {
	return func(j *Judge) { j.concurrency = max(n, 1) }
}

// context is the context j judges under: context.Background() unless
// WithContext gave one.
func (j *Judge) context() context.Context {
	if j.ctx == nil {
		return context.Background()
	}
	return j.ctx
}

// limit is how many judgements of a dataset j runs at once.
func (j *Judge) limit() int {
	if j.concurrency < 1 {
		return 8
	}
	return j.concurrency
}

// New returns a Judge with the model of the environment (see the package
// documentation) unless WithModel gives one.
func New(opts ...Option) *Judge {
	j := &Judge{ctx: context.Background(), concurrency: 8}
	j.model, j.modelErr = envModel()
	for _, o := range opts {
		o(j)
	}
	return j
}

// envModel is the model of the process's environment, built once and kept
// for the life of the test binary (its connections and response cache stay
// open until the process ends).
var envModel = sync.OnceValues(func() (judges.Model, error) { return openModel(os.Getenv) })

// openModel builds the model env names, as the assay command does.
func openModel(env func(string) string) (judges.Model, error) {
	c, _, err := setup.Open(setup.DefaultConfig(), env)
	if err != nil {
		return nil, fmt.Errorf("assaytest: the judge model from the environment ($ASSAY_LLM, $OPENAI_API_KEY): %w; fix the variable or pass assaytest.WithModel", err)
	}
	return c, nil
}

// Require judges s with the metric of each check and fails t when a value
// is under its floor, with the judge's reason and evidence. A check is
// "METRIC OP NUMBER", OP one of >=, >, <=, < ("faithfulness>=0.8"), or a
// metric's name alone for its default threshold. It returns the scores,
// one per metric in the order first named.
func Require(t TB, s eval.Sample, checks ...string) []eval.Score {
	t.Helper()
	return New().Require(t, s, checks...)
}

// Require is the package's Require, judged with j's model.
func (j *Judge) Require(t TB, s eval.Sample, checks ...string) []eval.Score {
	t.Helper()
	if j.modelErr != nil {
		t.Fatalf("%s", shown(j.modelErr))
		return nil
	}
	if len(checks) == 0 {
		t.Fatalf("assaytest.Require: name at least one check, such as \"faithfulness>=0.8\" (metrics: %s)", strings.Join(agent.Builtins().Metrics(), ", "))
		return nil
	}
	parsed := make([]check, 0, len(checks))
	var metrics []string
	for _, c := range checks {
		ch, err := parseCheck(c, j.model)
		if err != nil {
			t.Fatalf("assaytest.Require: %s", shown(err))
			return nil
		}
		parsed = append(parsed, ch)
		if !slices.Contains(metrics, ch.metric) {
			metrics = append(metrics, ch.metric)
		}
	}
	scorers, err := j.scorers(metrics)
	if err != nil {
		t.Fatalf("assaytest.Require: %s", shown(err))
		return nil
	}
	scores := make([]eval.Score, len(metrics))
	for i, sc := range scorers {
		if c, ok := sc.(judges.Checker); ok {
			if err := c.Check(s); err != nil {
				t.Fatalf("assaytest.Require: sample %s cannot be judged: %s", sampleName(s), shown(err))
				return nil
			}
		}
		if scores[i], err = sc.Score(j.context(), s); err != nil {
			t.Fatalf("assaytest.Require: judging %s of sample %s: %s", metrics[i], sampleName(s), shown(err))
			return nil
		}
	}
	for _, ch := range parsed {
		sc := scores[slices.Index(metrics, ch.metric)]
		if msg := ch.fails(sc); msg != "" {
			t.Errorf("%s of sample %s: %s\n%s", ch.text, sampleName(s), msg, Explain(sc))
		}
	}
	return scores
}

// scorers builds the judge of each metric with j's model.
func (j *Judge) scorers(metrics []string) ([]eval.Scorer, error) {
	out := make([]eval.Scorer, len(metrics))
	for i, m := range metrics {
		sc, err := agent.Builtins().New(m, j.model)
		if err != nil {
			return nil, err
		}
		out[i] = sc
	}
	return out, nil
}

// check is one parsed "METRIC OP NUMBER".
type check struct {
	text, metric, op string
	want             float64
}

// ops are the comparison operators, longest first so that ">=" is not
// read as ">".
var ops = []string{">=", "<=", ">", "<"}

func parseCheck(text string, m judges.Model) (check, error) {
	s := strings.TrimSpace(text)
	for _, op := range ops {
		metric, num, ok := strings.Cut(s, op)
		if !ok {
			continue
		}
		metric = strings.TrimSpace(metric)
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || metric == "" || strings.ContainsAny(metric, " =!<>") || math.IsNaN(v) {
			return check{}, fmt.Errorf("check %q: want METRIC OP NUMBER, such as \"faithfulness>=0.8\" (OP: >=, >, <=, <)", text)
		}
		return check{text: s, metric: metric, op: op, want: v}, nil
	}
	if s == "" || strings.ContainsAny(s, " =!") {
		return check{}, fmt.Errorf("check %q: want METRIC OP NUMBER, such as \"faithfulness>=0.8\" (OP: >=, >, <=, <), or a metric's name for its default threshold", text)
	}
	// A name alone: its default threshold.
	t := agent.Builtins().DefaultThreshold(s, m)
	return check{text: s + ">=" + strconv.FormatFloat(t, 'g', -1, 64), metric: s, op: ">=", want: t}, nil
}

// fails says why sc does not pass the check, or "".
func (c check) fails(sc eval.Score) string {
	switch {
	case sc.Defaulted:
		return fmt.Sprintf("the judge failed and its neutral default %.2f was used (%s): a default passes no check", sc.Value, shown(sc.Err))
	case sc.Skipped:
		return "nothing was judged: " + sc.Reason
	case compare(sc.Value, c.op, c.want):
		return ""
	}
	return fmt.Sprintf("got %.4g", sc.Value)
}

func compare(got float64, op string, want float64) bool {
	switch op {
	case ">=":
		return got >= want
	case ">":
		return got > want
	case "<=":
		return got <= want
	case "<":
		return got < want
	}
	return false
}

func sampleName(s eval.Sample) string {
	if s.ID != "" {
		return strconv.Quote(s.ID)
	}
	q := s.Query
	if r := []rune(q); len(r) > 60 {
		q = string(r[:57]) + "..."
	}
	return strconv.Quote(q)
}

// shown is err's text as a failure prints it: what a sample, a dataset
// or a model's reply brought into it with its control and bidi characters
// escaped (termtext.Message), since a test's output is read on a terminal.
func shown(err error) string {
	if err == nil {
		return "<nil>"
	}
	return termtext.Message(err.Error())
}

// Explain writes a score as a failed test shows it: the value, how it was
// judged, the reason, and the evidence (claims and verdicts, sources and
// ratings, gaps, issues), indented. What the sample and the judge wrote
// (a claim, a reason, a URL) has its control and bidi characters escaped,
// so that a terminal shows it rather than obeys it.
func Explain(sc eval.Score) string {
	v := termtext.Visible
	var b strings.Builder
	state := strconv.FormatFloat(sc.Value, 'f', 4, 64)
	switch {
	case sc.Defaulted:
		state += " (neutral default)"
	case sc.Skipped:
		state = "skipped"
	}
	fmt.Fprintf(&b, "    %s = %s", v(sc.Metric), state)
	if sc.Method != "" {
		fmt.Fprintf(&b, " [%s]", v(sc.Method))
	}
	b.WriteByte('\n')
	if sc.Reason != "" {
		fmt.Fprintf(&b, "    reason: %s\n", v(sc.Reason))
	}
	ev := sc.Evidence
	if len(ev.Claims) > 0 {
		b.WriteString("    claims:\n")
		for _, c := range ev.Claims {
			fmt.Fprintf(&b, "      [%s] %s", v(c.Verdict), v(c.Text))
			if c.SourceID != "" {
				fmt.Fprintf(&b, " (%s)", v(c.SourceID))
			}
			b.WriteByte('\n')
		}
	}
	if len(ev.Sources) > 0 {
		b.WriteString("    sources:\n")
		for _, s := range ev.Sources {
			fmt.Fprintf(&b, "      %.2f %s", s.Rating, v(s.URL))
			if s.Basis != "" {
				fmt.Fprintf(&b, " (%s)", v(s.Basis))
			}
			b.WriteByte('\n')
		}
	}
	for _, l := range []struct {
		name  string
		items []string
	}{{"gaps", ev.Gaps}, {"issues", ev.Issues}} {
		if len(l.items) > 0 {
			fmt.Fprintf(&b, "    %s:\n", l.name)
			for _, it := range l.items {
				fmt.Fprintf(&b, "      - %s\n", v(it))
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
