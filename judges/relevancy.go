package judges

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// answerRelevancyMetric is the registry entry of answer relevancy.
func answerRelevancyMetric() metric.Entry {
	return metric.Entry{
		Name: MetricAnswerRelevancy, Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsAnswer,
		Build:  func(m Model) eval.Scorer { return AnswerRelevancy{Model: m} },
		DryRun: relevancyStandIn,
	}
}

// relevancyStandIn writes three committal questions, and grades the
// answer with gradeStandIn when there are no embeddings.
func relevancyStandIn(req llm.Request, count func(string) int) (string, int, bool) {
	if !asks(req, generatedSchema()) {
		return gradeStandIn(req, count)
	}
	return `{"questions":["What does the answer explain?","Which facts does it give?","Why does it matter?"],"noncommittal":false}`, 60, true
}

// AnswerRelevancy is RAGAS answer relevancy: the model writes the questions
// the answer would answer, and the value is the mean cosine similarity of
// their embeddings to the query's; a noncommittal answer scores 0. Without
// an embedding model the model grades the answer 1-5 directly. The score's
// Method names what ran: "llm:X (questions+embeddings)", "llm:X (questions:
// noncommittal)" (no embedding needed) or "llm:X (direct 1-5 grade, no
// embeddings)". Offline it is the lexical passage relevance of the answer
// to the query.
//
// Where it differs from RAGAS:
//   - One call writes all the questions and judges noncommittal once, so
//     RAGAS's "any" and "all" readings of the per-question flags agree.
//     Blank questions are dropped and at most Questions are used.
//   - A negative mean cosine is clipped to 0 (RAGAS lets it go below 0);
//     the reason gives the unclipped mean.
//   - A missing or blank answer is Skipped (eval.ErrNoAnswer), not scored,
//     without a call, offline too; RAGAS refuses it. It is not graded 0:
//     relevance is undefined with nothing to relate, and a skip already
//     never passes a gate.
type AnswerRelevancy struct {
	Model Model
	// Questions is how many questions to generate (default 3, RAGAS's
	// strictness).
	Questions int
}

var _ eval.Scorer = AnswerRelevancy{}

type generated struct {
	Questions    []string `json:"questions"`
	Noncommittal bool     `json:"noncommittal"`
}

// Validate implements llm.Validator: a committal answer must give a
// question.
func (g generated) Validate() error {
	if len(nonBlank(g.Questions, len(g.Questions))) == 0 && !g.Noncommittal {
		return errors.New("questions is empty")
	}
	return nil
}

// nonBlank is the first n questions that are not blank.
func nonBlank(qs []string, n int) []string {
	var out []string
	for _, q := range qs {
		if len(out) == n {
			break
		}
		if strings.TrimSpace(q) != "" {
			out = append(out, q)
		}
	}
	return out
}

var generatedSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[generated]("questions") })

// noncommittal matches answers that decline or evade, for the offline path.
var noncommittal = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(i (do not|don't|cannot|can't) (know|say|answer|help)|i'?m not sure|no (information|idea)|unable to (answer|determine)|it depends)\b`)
})

// Score implements eval.Scorer.
func (a AnswerRelevancy) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if blank(s.Answer) {
		return skip(MetricAnswerRelevancy, Method(a.Model), 1, eval.ErrNoAnswer, llm.Usage{}), nil
	}
	if Offline(a.Model) {
		v := heuristics.PassageRelevance(s.Query, s.Answer)
		reason := fmt.Sprintf("lexical relevance of the answer to the query %.2f", v)
		if noncommittal().MatchString(s.Answer) {
			v, reason = 0, "the answer is noncommittal"
		}
		return eval.Score{Metric: MetricAnswerRelevancy, Value: v, Points: v, Max: 1, Method: MethodOffline, Reason: reason}, nil
	}
	n := a.Questions
	if n <= 0 {
		n = 3
	}
	var g generated
	u, err := ask(ctx, a.Model, "relevancy.questions", prompts.GenerateQuestions{Answer: s.Answer, N: n}, &g, generatedSchema())
	if err != nil {
		return fail(ctx, MetricAnswerRelevancy, a.Model, 1, fmt.Errorf("generate questions: %w", err), u)
	}
	if g.Noncommittal {
		sc := eval.Score{Metric: MetricAnswerRelevancy, Value: 0, Max: 1, Method: Method(a.Model) + " (questions: noncommittal)",
			Reason: "the answer is noncommittal", Usage: UsageOf(u)}
		return sc, nil
	}
	g.Questions = nonBlank(g.Questions, n)
	vecs, eu, err := a.Model.Embed(ctx, append([]string{s.Query}, g.Questions...))
	u = u.Add(eu)
	if errors.Is(err, llm.ErrNoEmbeddings) {
		return a.direct(ctx, s, u)
	}
	if err != nil {
		return fail(ctx, MetricAnswerRelevancy, a.Model, 1, fmt.Errorf("embed: %w", err), u)
	}
	if len(vecs) != len(g.Questions)+1 {
		return fail(ctx, MetricAnswerRelevancy, a.Model, 1, fmt.Errorf("embed: %d vectors for %d texts", len(vecs), len(g.Questions)+1), u)
	}
	if err := checkVectors(vecs); err != nil {
		return fail(ctx, MetricAnswerRelevancy, a.Model, 1, fmt.Errorf("embed: %w", err), u)
	}
	sum := 0.0
	for _, v := range vecs[1:] {
		sum += cosine(vecs[0], v)
	}
	mean := sum / float64(len(g.Questions))
	v := max(0, mean)
	reason := fmt.Sprintf("mean cosine %.2f between the query and %d questions the answer answers", mean, len(g.Questions))
	if mean < 0 {
		reason += ", clipped to 0"
	}
	return eval.Score{
		Metric: MetricAnswerRelevancy, Value: v, Points: v, Max: 1,
		Method:   Method(a.Model) + " (questions+embeddings)",
		Reason:   reason,
		Evidence: eval.Evidence{Issues: g.Questions},
		Usage:    UsageOf(u),
	}, nil
}

// direct grades the answer 1-5 when no embedding model is available.
func (a AnswerRelevancy) direct(ctx context.Context, s eval.Sample, u llm.Usage) (eval.Score, error) {
	var g grade
	u2, err := ask(ctx, a.Model, "relevancy.rate", prompts.QA{Question: s.Query, Answer: s.Answer}, &g, gradeSchema())
	u = u.Add(u2)
	if err != nil {
		return fail(ctx, MetricAnswerRelevancy, a.Model, 5, fmt.Errorf("rate: %w", err), u)
	}
	return gradeScore(MetricAnswerRelevancy, Method(a.Model)+" (direct 1-5 grade, no embeddings)", g, u), nil
}

func gradeScore(metric, meth string, g grade, u llm.Usage) eval.Score {
	v := float64(g.Grade-1) / 4
	return eval.Score{Metric: metric, Value: v, Points: float64(g.Grade), Max: 5, Method: meth, Reason: g.Reason, Usage: UsageOf(u)}
}

// checkVectors rejects embeddings a cosine would turn into a silent 0 or
// NaN: empty, all zero, of differing lengths, or holding NaN or infinity.
func checkVectors(vecs [][]float32) error {
	for i, v := range vecs {
		if len(v) != len(vecs[0]) {
			return fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", i, len(v), len(vecs[0]))
		}
		zero := true
		for _, x := range v {
			f := float64(x)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("vector %d holds %v", i, f)
			}
			zero = zero && x == 0
		}
		if zero {
			return fmt.Errorf("vector %d is empty or all zero", i)
		}
	}
	return nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
