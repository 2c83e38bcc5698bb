package judges

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// The judges of an answer against its reference (RAGAS's answer
// correctness, factual correctness and semantic similarity). Each needs
// the sample's reference: a sample without one is refused before any
// call (metric.NeedsReference).

// Metric names of the judges against a reference.
const (
	MetricSemanticSimilarity = "semantic_similarity"
	MetricAnswerCorrectness  = "answer_correctness"
	// MetricFactualCorrectness is factual correctness in RAGAS's default
	// mode, F1; the two others are its precision and recall modes.
	MetricFactualCorrectness = "factual_correctness"
	MetricFactualPrecision   = "factual_correctness_precision"
	MetricFactualRecall      = "factual_correctness_recall"
)

// Factual correctness modes (FactualCorrectness.Mode), RAGAS's names.
const (
	ModeF1        = "f1"
	ModePrecision = "precision"
	ModeRecall    = "recall"
)

// defaultCorrectnessWeights are RAGAS's weights of answer correctness:
// 0.75 for the statements' F-score, 0.25 for semantic similarity.
var defaultCorrectnessWeights = [2]float64{0.75, 0.25}

// referenceMetrics are the registry entries of the judges against a
// reference.
func referenceMetrics() []metric.Entry {
	needs := metric.NeedsAnswer | metric.NeedsReference
	factual := func(name, mode string) metric.Entry {
		return metric.Entry{
			Name: name, Kind: metric.KindJudge, Dataset: true, Needs: needs,
			Build:  func(m Model) eval.Scorer { return FactualCorrectness{Model: m, Mode: mode} },
			DryRun: faithfulnessStandIn, // its claims and verdicts
		}
	}
	return []metric.Entry{
		{
			Name: MetricAnswerCorrectness, Kind: metric.KindJudge, Dataset: true, Needs: needs,
			Build:  func(m Model) eval.Scorer { return AnswerCorrectness{Model: m} },
			DryRun: correctnessStandIn,
		},
		factual(MetricFactualCorrectness, ModeF1),
		factual(MetricFactualPrecision, ModePrecision),
		factual(MetricFactualRecall, ModeRecall),
		{
			Name: MetricSemanticSimilarity, Kind: metric.KindJudge, Dataset: true, Needs: needs,
			Build: func(m Model) eval.Scorer { return SemanticSimilarity{Model: m} },
		},
	}
}

// referenceCheck is the Check of a judge against a reference.
func referenceCheck(name string, s eval.Sample) error {
	return metric.NeedsReference.Check(name, s)
}

// SemanticSimilarity is RAGAS's semantic similarity (answer similarity):
// the cosine of the embeddings of the answer and of the reference, one
// embedding call for both. Offline, or when the model's backend has no
// embedding model, it is heuristics.LexicalSimilarity, the cosine of the
// two texts' bags of content words, labelled MethodOffline: it reads
// words, not meaning.
//
// Where it differs from RAGAS: a negative cosine is clipped to 0 (the
// reason gives it); a missing or blank answer is Skipped (eval.ErrNoAnswer).
type SemanticSimilarity struct {
	Model Model
}

var (
	_ eval.Scorer = SemanticSimilarity{}
	_ Checker     = SemanticSimilarity{}
)

// Check implements Checker: it needs a reference.
func (SemanticSimilarity) Check(s eval.Sample) error {
	return referenceCheck(MetricSemanticSimilarity, s)
}

// Score implements eval.Scorer.
func (j SemanticSimilarity) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := j.Check(s); err != nil {
		return eval.Score{}, err
	}
	if blank(s.Answer) {
		return skip(MetricSemanticSimilarity, Method(j.Model), 1, eval.ErrNoAnswer, eval.Usage{}), nil
	}
	sim, meth, note, u, err := similarity(ctx, j.Model, s.Answer, s.Reference)
	if err != nil {
		return fail(ctx, MetricSemanticSimilarity, j.Model, 1, err, u)
	}
	return eval.Score{
		Metric: MetricSemanticSimilarity, Value: sim, Points: sim, Max: 1, Method: meth,
		Reason:   note,
		Evidence: eval.Evidence{Counts: map[string]float64{"similarity": sim}},
		Usage:    u.Recorded(),
	}, nil
}

// similarity is the semantic similarity of answer and reference with m's
// embeddings, clipped to [0, 1], with the method and a reason; offline or
// without an embedding model, the lexical stand-in.
func similarity(ctx context.Context, m Model, answer, reference string) (float64, string, string, eval.Usage, error) {
	lexical := func(why string) (float64, string, string, eval.Usage, error) {
		v := heuristics.LexicalSimilarity(answer, reference)
		return v, MethodOffline, fmt.Sprintf("lexical similarity %.2f of the answer to the reference (content words, not meaning%s)", v, why), eval.Usage{}, nil
	}
	if Offline(m) {
		return lexical("")
	}
	vecs, u, err := m.Embed(ctx, []string{answer, reference})
	switch {
	case errors.Is(err, llm.ErrNoEmbeddings):
		return lexical("; the model's backend has no embedding model")
	case err != nil:
		return 0, "", "", u, fmt.Errorf("embed: %w", err)
	case len(vecs) != 2:
		return 0, "", "", u, fmt.Errorf("embed: %d vectors for 2 texts", len(vecs))
	}
	if err := checkVectors(vecs); err != nil {
		return 0, "", "", u, fmt.Errorf("embed: %w", err)
	}
	c := cosine(vecs[0], vecs[1])
	v := min(max(c, 0), 1)
	note := fmt.Sprintf("cosine %.2f between the embeddings of the answer and the reference", c)
	if c < 0 {
		note += ", clipped to 0"
	}
	return v, Method(m) + " (embeddings)", note, u, nil
}

// AnswerCorrectness is RAGAS's answer correctness: the answer's and the
// reference's statements are marked against each other, each answer
// statement a true positive (the reference supports it) or a false
// positive, each reference statement covered or a false negative (the
// answer leaves it out); the F-score TP / (TP + (FP + FN) / 2) is then
// averaged with the semantic similarity of the two texts under Weights
// (default defaultCorrectnessWeights, RAGAS's 0.75 and 0.25).
//
// With a model: one call extracts the answer's statements, one the
// reference's (the faithfulness claims prompt), one marks them (the
// correctness.classify prompt, every statement of both lists given exactly
// one verdict, or the repair request), and one embeds both texts. When the
// backend has no embedding model the value is the F-score alone and the
// Method says so, as RAGAS computes it with weights [1, 0]. Offline, the
// statements are sentences, an answer sentence a true positive when the
// reference supports it as offline faithfulness checks a claim, a
// reference sentence a false negative when the answer does not support
// it, and the value the F-score alone: the lexical similarity is no
// embedding.
//
// Where it differs from RAGAS: an answer with no statement (or a missing
// one) is Skipped, as is a reference with none, where RAGAS counts the
// F-score 1 ("assume a perfect match"); a negative cosine is clipped to
// 0; statements repeated word for word are counted once.
type AnswerCorrectness struct {
	Model Model
	// Weights weigh the F-score and the semantic similarity; the zero
	// value is defaultCorrectnessWeights.
	Weights [2]float64
}

var (
	_ eval.Scorer = AnswerCorrectness{}
	_ Checker     = AnswerCorrectness{}
)

// Check implements Checker: it needs a reference.
func (AnswerCorrectness) Check(s eval.Sample) error {
	return referenceCheck(MetricAnswerCorrectness, s)
}

// classVerdict is the verdict on one statement of the answer (TP, FP) or
// of the reference (covered, FN).
type answerClass struct {
	Statement int    `json:"statement" schema:"minimum=1"`
	Verdict   string `json:"verdict" schema:"enum=TP,enum=FP"`
	Reason    string `json:"reason"`
}

type referenceClass struct {
	Statement int    `json:"statement" schema:"minimum=1"`
	Verdict   string `json:"verdict" schema:"enum=covered,enum=FN"`
	Reason    string `json:"reason"`
}

type classification struct {
	Answer    []answerClass    `json:"answer"`
	Reference []referenceClass `json:"reference"`
}

var classificationSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[classification]("classification") })

// eachOnce checks that the statement numbers of a list (field) name each
// of 1..n exactly once.
func eachOnce(field string, nums []int, n int) error {
	seen := make([]bool, n+1)
	for i, k := range nums {
		if k > n {
			return fmt.Errorf("%s[%d].statement %d is not a statement number: they are numbered 1 to %d", field, i, k, n)
		}
		if seen[k] {
			return fmt.Errorf("%s[%d].statement %d is given a second verdict: give each statement one", field, i, k)
		}
		seen[k] = true
	}
	for k := 1; k <= n; k++ {
		if !seen[k] {
			return fmt.Errorf("%s: statement %d has no verdict: give every statement one", field, k)
		}
	}
	return nil
}

// Score implements eval.Scorer.
func (j AnswerCorrectness) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := j.Check(s); err != nil {
		return eval.Score{}, err
	}
	meth := Method(j.Model)
	if blank(s.Answer) {
		return skip(MetricAnswerCorrectness, meth, 1, eval.ErrNoAnswer, eval.Usage{}), nil
	}
	if Offline(j.Model) {
		ans, ref := offlineStatements(s)
		if sc, ok := noStatements(MetricAnswerCorrectness, MethodOffline, ans, ref, true, eval.Usage{}); ok {
			return sc, nil
		}
		tp := heuristics.SupportClaims(ans, []string{s.Reference})
		fn := heuristics.SupportClaims(ref, []string{s.Answer})
		m := marking{answer: ans, reference: ref, tp: make([]bool, len(ans)), covered: make([]bool, len(ref))}
		for i, c := range tp {
			m.tp[i] = c.Supported
		}
		for i, c := range fn {
			m.covered[i] = c.Supported
		}
		sc := m.score(MethodOffline, 0, [2]float64{1, 0}, "", eval.Usage{})
		sc.Reason += "; the F-score alone, as offline there are no embeddings"
		return sc, nil
	}
	ans, ref, u, err := statementsOf(ctx, j.Model, s, true)
	if err != nil {
		return fail(ctx, MetricAnswerCorrectness, j.Model, 1, err, u)
	}
	if sc, ok := noStatements(MetricAnswerCorrectness, meth, ans, ref, true, u); ok {
		return sc, nil
	}
	var cl classification
	check := func(o any) error {
		c := o.(*classification)
		a, r := make([]int, len(c.Answer)), make([]int, len(c.Reference))
		for i, v := range c.Answer {
			a[i] = v.Statement
		}
		for i, v := range c.Reference {
			r[i] = v.Statement
		}
		if err := eachOnce("answer", a, len(ans)); err != nil {
			return err
		}
		return eachOnce("reference", r, len(ref))
	}
	u2, err := ask(ctx, j.Model, "correctness.classify", prompts.ClassifyStatements{Question: s.Query, Answer: ans, Reference: ref}, &cl, classificationSchema(), check)
	u = u.Add(u2)
	if err != nil {
		return fail(ctx, MetricAnswerCorrectness, j.Model, 1, fmt.Errorf("classify statements: %w", err), u)
	}
	m := marking{answer: ans, reference: ref, tp: make([]bool, len(ans)), covered: make([]bool, len(ref))}
	for _, v := range cl.Answer {
		m.tp[v.Statement-1] = v.Verdict == "TP"
	}
	for _, v := range cl.Reference {
		m.covered[v.Statement-1] = v.Verdict == "covered"
	}
	w := j.Weights
	if w == ([2]float64{}) {
		w = defaultCorrectnessWeights
	}
	if w[1] == 0 {
		return m.score(meth+" (F-score alone: similarity weight 0)", 0, w, "", u), nil
	}
	sim, smeth, note, u3, err := similarity(ctx, j.Model, s.Answer, s.Reference)
	u = u.Add(u3)
	if err != nil {
		return fail(ctx, MetricAnswerCorrectness, j.Model, 1, err, u)
	}
	if smeth == MethodOffline { // the backend has no embedding model
		return m.score(meth+" (F-score alone: no embeddings)", 0, [2]float64{1, 0}, "", u), nil
	}
	return m.score(meth+" (statements+embeddings)", sim, w, note, u), nil
}

// statementsOf asks m for the statements of s's answer and, when both is
// set, of its reference (the faithfulness claims prompt), each list with
// repeats dropped.
func statementsOf(ctx context.Context, m Model, s eval.Sample, both bool) (ans, ref []string, u eval.Usage, err error) {
	var cl claimList
	u, err = ask(ctx, m, "faithfulness.claims", prompts.ExtractClaims{Question: s.Query, Answer: s.Answer}, &cl, claimSchema())
	if err != nil {
		return nil, nil, u, fmt.Errorf("extract the answer's statements: %w", err)
	}
	ans, _ = dedupe(cl.Claims)
	if !both || len(ans) == 0 {
		return ans, nil, u, nil
	}
	var rl claimList
	u2, err := ask(ctx, m, "faithfulness.claims", prompts.ExtractClaims{Question: s.Query, Answer: s.Reference}, &rl, claimSchema())
	u = u.Add(u2)
	if err != nil {
		return nil, nil, u, fmt.Errorf("extract the reference's statements: %w", err)
	}
	ref, _ = dedupe(rl.Claims)
	return ans, ref, u, nil
}

// offlineStatements are the sentences of s's answer and of its reference,
// each list with repeats dropped as statementsOf drops the model's.
func offlineStatements(s eval.Sample) (ans, ref []string) {
	ans, _ = dedupe(heuristics.SplitClaims(s.Answer))
	ref, _ = dedupe(heuristics.SplitClaims(s.Reference))
	return ans, ref
}

// errNoAnswerStatement is the cause of a skip for an answer in which no
// statement is found.
var errNoAnswerStatement = fmt.Errorf("%w: the answer states nothing to compare with the reference", eval.ErrNoClaims)

// errNoReferenceStatement is the cause of a skip for a reference in which
// no statement is found.
var errNoReferenceStatement = fmt.Errorf("%w: the reference states nothing to compare the answer with", eval.ErrNoClaims)

// noStatements is the Skipped score of an answer with no statement, or
// (when ofRef) a reference with none; ok is false when both have some.
func noStatements(name, meth string, ans, ref []string, ofRef bool, u eval.Usage) (eval.Score, bool) {
	switch {
	case len(ans) == 0:
		return skip(name, meth, 1, errNoAnswerStatement, u), true
	case ofRef && len(ref) == 0:
		return skip(name, meth, 1, errNoReferenceStatement, u), true
	}
	return eval.Score{}, false
}

// marking is the answer's and the reference's statements marked against
// each other: tp[i] says answer statement i is a true positive (else a
// false positive), covered[i] that reference statement i is in the answer
// (else a false negative).
type marking struct {
	answer, reference []string
	tp, covered       []bool
}

// counts are the true positives, false positives and false negatives.
func (m marking) counts() (tp, fp, fn int) {
	for _, ok := range m.tp {
		if ok {
			tp++
		} else {
			fp++
		}
	}
	for _, ok := range m.covered {
		if !ok {
			fn++
		}
	}
	return tp, fp, fn
}

// fScore is RAGAS's F-score of answer correctness, TP / (TP + (FP+FN)/2),
// which is 2PR / (P + R); 0 without a true positive.
func fScore(tp, fp, fn int) float64 {
	if tp == 0 {
		return 0
	}
	return float64(tp) / (float64(tp) + 0.5*float64(fp+fn))
}

// score is answer correctness from the marking and the similarity sim
// under weights w (w[1] 0: the F-score alone).
func (m marking) score(meth string, sim float64, w [2]float64, simNote string, u eval.Usage) eval.Score {
	tp, fp, fn := m.counts()
	f := fScore(tp, fp, fn)
	v := (w[0]*f + w[1]*sim) / (w[0] + w[1])
	reason := fmt.Sprintf("F-score %.2f of %d true positive, %d false positive and %d false negative statements", f, tp, fp, fn)
	counts := map[string]float64{"tp": float64(tp), "fp": float64(fp), "fn": float64(fn), "f_score": f}
	if w[1] != 0 {
		reason += fmt.Sprintf("; %s; %.2f x %.2f + %.2f x %.2f", simNote, w[0]/(w[0]+w[1]), f, w[1]/(w[0]+w[1]), sim)
		counts["similarity"] = sim
	}
	return eval.Score{
		Metric: MetricAnswerCorrectness, Value: v, Points: v, Max: 1, Method: meth, Reason: reason,
		Evidence: m.evidence(counts), Usage: u.Recorded(),
	}
}

// evidence is the marking as claims (the answer's statements, supported by
// the reference or not) and gaps (the reference's statements the answer
// leaves out).
func (m marking) evidence(counts map[string]float64) eval.Evidence {
	ev := eval.Evidence{Counts: counts}
	for i, a := range m.answer {
		c := eval.Claim{Text: a, Verdict: eval.VerdictUnsupported}
		if m.tp[i] {
			c.Verdict, c.SourceID = eval.VerdictSupported, "reference"
		} else {
			ev.Issues = append(ev.Issues, fmt.Sprintf("not in the reference: %q", clip(a, 80)))
		}
		ev.Claims = append(ev.Claims, c)
	}
	for i, r := range m.reference {
		if !m.covered[i] {
			ev.Gaps = append(ev.Gaps, r)
		}
	}
	return ev
}

// FactualCorrectness is RAGAS's factual correctness: the answer's claims
// are checked against the reference, true positives those it supports and
// false positives the others; in recall and F1 modes the reference's
// claims are checked against the answer too, false negatives those the
// answer does not support. Precision is TP / (TP + FP), recall TP / (TP +
// FN), F1 their harmonic mean, 2PR / (P + R); as in RAGAS, recall is 0
// when TP and FN are both 0 (the answer covers the reference, yet none of
// its claims is in it), and the reason says why. Mode is ModeF1 (the
// default), ModePrecision or ModeRecall; the registry names the three
// factual_correctness, factual_correctness_precision and
// factual_correctness_recall.
//
// With a model the claims are extracted and verified with faithfulness's
// prompts, the reference (or the answer) the one context; offline they
// are sentences checked as offline faithfulness checks claims. Verdicts
// are read as faithfulness reads them (the worse of two kept, the claims a
// reply skips asked about again, the neutral default when any stays
// unjudged).
//
// Where it differs from RAGAS: the value is not rounded to two decimals
// (RAGAS's np.round); an answer with no claim is Skipped, and so is a
// reference with none in recall and F1 modes; claims repeated word for
// word are counted once.
type FactualCorrectness struct {
	Model Model
	Mode  string
}

var (
	_ eval.Scorer = FactualCorrectness{}
	_ Checker     = FactualCorrectness{}
)

// name is the metric's name in its mode.
func (j FactualCorrectness) name() string {
	switch j.Mode {
	case ModePrecision:
		return MetricFactualPrecision
	case ModeRecall:
		return MetricFactualRecall
	}
	return MetricFactualCorrectness
}

// Check implements Checker: it needs a reference.
func (j FactualCorrectness) Check(s eval.Sample) error { return referenceCheck(j.name(), s) }

// Score implements eval.Scorer.
func (j FactualCorrectness) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := j.Check(s); err != nil {
		return eval.Score{}, err
	}
	switch j.Mode {
	case "", ModeF1, ModePrecision, ModeRecall:
	default:
		return eval.Score{}, fmt.Errorf("factual correctness: unknown mode %q (want %s, %s or %s)", j.Mode, ModeF1, ModePrecision, ModeRecall)
	}
	name, meth := j.name(), Method(j.Model)
	both := j.Mode != ModePrecision
	if blank(s.Answer) {
		return skip(name, meth, 1, eval.ErrNoAnswer, eval.Usage{}), nil
	}
	if Offline(j.Model) {
		ans, ref := offlineStatements(s)
		if sc, ok := noStatements(name, MethodOffline, ans, ref, both, eval.Usage{}); ok {
			return sc, nil
		}
		toClaims := func(cs []heuristics.ClaimSupport) []eval.Claim {
			return supportClaims(cs, []string{"reference"})
		}
		var back []eval.Claim
		if both {
			back = toClaims(heuristics.SupportClaims(ref, []string{s.Answer}))
		}
		return j.score(MethodOffline, toClaims(heuristics.SupportClaims(ans, []string{s.Reference})), back, eval.Usage{}), nil
	}
	ans, ref, u, err := statementsOf(ctx, j.Model, s, both)
	if err != nil {
		return fail(ctx, name, j.Model, 1, err, u)
	}
	if sc, ok := noStatements(name, meth, ans, ref, both, u); ok {
		return sc, nil
	}
	fwd, u2, err := verify(ctx, j.Model, ans, []prompts.Passage{{ID: positionID(0), Title: "reference", Text: s.Reference}}, []string{"reference"})
	u = u.Add(u2)
	if err != nil {
		return fail(ctx, name, j.Model, 1, fmt.Errorf("verify the answer's claims against the reference: %w", err), u)
	}
	var back verified
	if both {
		back, u2, err = verify(ctx, j.Model, ref, []prompts.Passage{{ID: positionID(0), Title: "answer", Text: s.Answer}}, []string{"answer"})
		u = u.Add(u2)
		if err != nil {
			return fail(ctx, name, j.Model, 1, fmt.Errorf("verify the reference's claims against the answer: %w", err), u)
		}
	}
	sc := j.score(meth, fwd.claims, back.claims, u)
	repeated := append(fwd.repeated, back.repeated...)
	if len(repeated) > 0 {
		sc.Evidence.Counts["repeated_verdicts"] = float64(len(repeated))
		sc.Evidence.Issues = append(sc.Evidence.Issues, repeated...)
	}
	if n := countVerdict(fwd.claims, eval.VerdictUnjudged) + countVerdict(back.claims, eval.VerdictUnjudged); n > 0 {
		return incomplete(sc, n, len(fwd.claims)+len(back.claims), "claim"), nil
	}
	return sc, nil
}

// score is factual correctness in j's mode from the answer's claims
// checked against the reference (fwd) and the reference's against the
// answer (back, empty in precision mode).
func (j FactualCorrectness) score(meth string, fwd, back []eval.Claim, u eval.Usage) eval.Score {
	tp := countVerdict(fwd, eval.VerdictSupported)
	fp := len(fwd) - tp
	fn := len(back) - countVerdict(back, eval.VerdictSupported)
	p, r := ratio(tp, tp+fp), ratio(tp, tp+fn)
	var v float64
	var reason string
	switch j.Mode {
	case ModePrecision:
		v, reason = p, fmt.Sprintf("precision %.2f: %d of the answer's %s supported by the reference", p, tp, plural.Count(len(fwd), "claim"))
	case ModeRecall:
		v, reason = r, fmt.Sprintf("recall %.2f: %s, %d of the reference's %s not supported by the answer", r, plural.Count(tp, "true positive"), fn, plural.Count(len(back), "claim"))
		if tp == 0 && fn == 0 {
			reason = fmt.Sprintf("recall 0.00: %s", noTruePositive(len(fwd), len(back)))
		}
	default:
		if p+r > 0 {
			v = 2 * p * r / (p + r)
		}
		recall := fmt.Sprintf("%d of the reference's %s missing from the answer", fn, plural.Count(len(back), "claim"))
		if tp == 0 && fn == 0 {
			recall = noTruePositive(len(fwd), len(back))
		}
		reason = fmt.Sprintf("F1 %.2f of precision %.2f (%d of the answer's %s in the reference) and recall %.2f (%s)", v, p, tp, plural.Count(len(fwd), "claim"), r, recall)
	}
	counts := map[string]float64{"tp": float64(tp), "fp": float64(fp), "precision": p}
	if j.Mode != ModePrecision {
		counts["fn"], counts["recall"] = float64(fn), r
	}
	ev := eval.Evidence{Claims: fwd, Counts: counts}
	for _, c := range fwd {
		if c.Verdict != eval.VerdictSupported {
			ev.Issues = append(ev.Issues, fmt.Sprintf("%s by the reference: %q", c.Verdict, clip(c.Text, 80)))
		}
	}
	for _, c := range back {
		if c.Verdict != eval.VerdictSupported {
			ev.Gaps = append(ev.Gaps, c.Text)
		}
	}
	return eval.Score{Metric: j.name(), Value: v, Points: v, Max: 1, Method: meth, Reason: reason, Evidence: ev, Usage: u.Recorded()}
}

// noTruePositive says why recall is 0 when the answer supports every
// claim of the reference (no false negative) yet none of its own claims
// is in the reference (no true positive): RAGAS counts recall as
// TP / (TP + FN), the true positives being the answer's claims the
// reference supports, and takes 0 for 0 / 0.
func noTruePositive(answer, reference int) string {
	return fmt.Sprintf("the answer covers all of the reference's %s, but none of the answer's %s is in the reference, and recall counts the answer's claims the reference supports: TP / (TP + FN) = 0 / 0, taken as 0 as RAGAS does",
		plural.Count(reference, "claim"), plural.Count(answer, "claim"))
}

// ratio is a / b, or 0 when b is 0.
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// correctnessStandIn answers the claims prompt as faithfulness's stand-in
// does, and the classification with every statement given a verdict: odd
// answer statements true positives, even ones false positives; odd
// reference statements covered, even ones false negatives.
func correctnessStandIn(req llm.Request, count func(string) int) (string, int, bool) {
	if !asks(req, classificationSchema()) {
		return faithfulnessStandIn(req, count)
	}
	var ans, ref []string
	if blocks := dataBlocks(last(req)); len(blocks) >= 2 {
		_ = json.Unmarshal([]byte(blocks[len(blocks)-2]), &ans)
		_ = json.Unmarshal([]byte(blocks[len(blocks)-1]), &ref)
	}
	out := classification{Answer: []answerClass{}, Reference: []referenceClass{}}
	for i := range ans {
		v := answerClass{Statement: i + 1, Verdict: "TP", Reason: "the reference states it"}
		if i%2 == 1 {
			v.Verdict, v.Reason = "FP", "not in the reference"
		}
		out.Answer = append(out.Answer, v)
	}
	for i := range ref {
		v := referenceClass{Statement: i + 1, Verdict: "covered", Reason: "the answer states it"}
		if i%2 == 1 {
			v.Verdict, v.Reason = "FN", "the answer leaves it out"
		}
		out.Reference = append(out.Reference, v)
	}
	b, _ := json.Marshal(out)
	return string(b), 30 * (len(ans) + len(ref)), true
}
