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
		Ready: func(m Model) error {
			if Offline(m) || embeds(m) {
				return nil
			}
			return noEmbeddings(m)
		},
	}
}

// answerRelevancyGradeMetric is the registry entry of the direct grade of
// answer relevancy.
func answerRelevancyGradeMetric() metric.Entry {
	return metric.Entry{
		Name: MetricAnswerRelevancyGrade, Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsAnswer,
		Build:  func(m Model) eval.Scorer { return AnswerRelevancyGrade{Model: m} },
		DryRun: gradeStandIn,
	}
}

// relevancyStandIn writes three committal questions.
func relevancyStandIn(req llm.Request, _ func(string) int) (string, int, bool) {
	if !asks(req, generatedSchema()) {
		return "", 0, false
	}
	return `{"questions":["What does the answer explain?","Which facts does it give?","Why does it matter?"],"noncommittal":false}`, 60, true
}

// ErrNoEmbeddingModel is the error of answer relevancy judged with a model
// that has no embedding model: RAGAS's method compares embeddings, and
// another method (a direct grade) is another metric,
// answer_relevancy_grade, never this one's value under its name. It wraps
// llm.ErrNoEmbeddings and comes as an *eval.InputError about --metric: the
// run stops, exit 2. Test with errors.Is.
var ErrNoEmbeddingModel = fmt.Errorf("%s compares embeddings: %w", MetricAnswerRelevancy, llm.ErrNoEmbeddings)

// noEmbeddings is ErrNoEmbeddingModel as the input error it is, naming the
// model and what to do.
func noEmbeddings(m Model) error {
	return &eval.InputError{Field: "--metric", Err: ErrNoEmbeddingModel, Msg: fmt.Sprintf(
		"%s compares embeddings, and %s has no embedding model: set ASSAY_EMBEDDING_MODEL, or ask for %s (the model's direct 1-5 grade, another metric)",
		MetricAnswerRelevancy, Method(m), MetricAnswerRelevancyGrade)}
}

// embeds reports whether m can embed: false when it says it has no
// embedding model (as *llm.Client does), true when it cannot say.
func embeds(m Model) bool {
	e, ok := m.(interface{ Embeds() bool })
	return !ok || e.Embeds()
}

// AnswerRelevancy is RAGAS answer relevancy: the model writes the questions
// the answer would answer, and the value is the mean cosine similarity of
// their embeddings to the query's; a noncommittal answer scores 0. The
// score's Method names what ran: "llm:X (questions+embeddings)" or
// "llm:X (questions: noncommittal)" (no embedding needed). Offline it is
// the lexical passage relevance of the answer to the query.
//
// It needs an embedding model: with a model that has none it makes no call
// and returns ErrNoEmbeddingModel (an input error, which stops a run). The
// model's direct 1-5 grade of the answer is another quantity, and another
// metric: AnswerRelevancyGrade.
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
		return skip(MetricAnswerRelevancy, Method(a.Model), 1, eval.ErrNoAnswer, eval.Usage{}), nil
	}
	if blank(s.Query) {
		return skip(MetricAnswerRelevancy, Method(a.Model), 1, eval.ErrNoQuestion, eval.Usage{}), nil
	}
	if Offline(a.Model) {
		v := heuristics.PassageRelevance(s.Query, s.Answer)
		reason := fmt.Sprintf("lexical relevance of the answer to the query %.2f", v)
		if noncommittal().MatchString(s.Answer) {
			v, reason = 0, "the answer is noncommittal"
		}
		return eval.Score{Metric: MetricAnswerRelevancy, Value: v, Points: v, Max: 1, Method: MethodOffline, Reason: reason}, nil
	}
	if !embeds(a.Model) {
		return eval.Score{}, noEmbeddings(a.Model)
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
			Reason: "the answer is noncommittal", Usage: u.Recorded()}
		return sc, nil
	}
	g.Questions = nonBlank(g.Questions, n)
	vecs, eu, err := a.Model.Embed(ctx, append([]string{s.Query}, g.Questions...))
	u = u.Add(eu)
	if errors.Is(err, llm.ErrNoEmbeddings) {
		return eval.Score{}, noEmbeddings(a.Model)
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
		Usage:    u.Recorded(),
	}, nil
}

// AnswerRelevancyGrade is answer_relevancy_grade: the model grades 1-5 how
// well the answer addresses the query (5 directly and fully, 1 not at
// all), one call, no embeddings; the value is (grade-1)/4. It is not
// RAGAS answer relevancy (AnswerRelevancy), which measures how closely the
// questions the answer answers match the query: the two are different
// quantities with different names, kept apart in every result, summary,
// run and trend. Offline it is the lexical relevance of the answer to the
// query as a 1-5 grade on source relevance's cut-points, 1 for a
// noncommittal answer. A missing or blank answer is Skipped
// (eval.ErrNoAnswer).
type AnswerRelevancyGrade struct {
	Model Model
}

var _ eval.Scorer = AnswerRelevancyGrade{}

// Score implements eval.Scorer.
func (a AnswerRelevancyGrade) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if blank(s.Answer) {
		return skip(MetricAnswerRelevancyGrade, Method(a.Model), 5, eval.ErrNoAnswer, eval.Usage{}), nil
	}
	if blank(s.Query) {
		return skip(MetricAnswerRelevancyGrade, Method(a.Model), 5, eval.ErrNoQuestion, eval.Usage{}), nil
	}
	if Offline(a.Model) {
		rel := heuristics.Explain(s.Query, s.Answer)
		g := grade{Grade: heuristics.GradeOfRelevance(rel.Value), Reason: fmt.Sprintf("lexical relevance %.2f: %s", rel.Value, rel)}
		if noncommittal().MatchString(s.Answer) {
			g = grade{Grade: 1, Reason: "the answer is noncommittal"}
		}
		return gradeScore(MetricAnswerRelevancyGrade, MethodOffline, g, eval.Usage{}), nil
	}
	var g grade
	u, err := ask(ctx, a.Model, "relevancy.rate", prompts.QA{Question: s.Query, Answer: s.Answer}, &g, gradeSchema())
	if err != nil {
		return fail(ctx, MetricAnswerRelevancyGrade, a.Model, 5, fmt.Errorf("rate: %w", err), u)
	}
	return gradeScore(MetricAnswerRelevancyGrade, Method(a.Model), g, u), nil
}

func gradeScore(metric, meth string, g grade, u eval.Usage) eval.Score {
	v := float64(g.Grade-1) / 4
	return eval.Score{Metric: metric, Value: v, Points: float64(g.Grade), Max: 5, Method: meth, Reason: g.Reason, Usage: u.Recorded()}
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
