package judges

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/datablock"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// faithfulnessMetric is the registry entry of faithfulness.
func faithfulnessMetric() metric.Entry {
	return metric.Entry{
		// No contexts is no refusal: every claim is then unsupported.
		// A report profile may weigh it: the report's claims against the
		// text of its sources.
		Name: MetricFaithfulness, Kind: metric.KindJudge, Dataset: true, Profiles: []string{"report"}, Needs: metric.NeedsAnswer,
		Threshold: metric.Threshold{Offline: heuristics.DefaultFaithfulThreshold, Model: 1}, // model: every claim supported
		Build:     func(m Model) eval.Scorer { return Faithfulness{Model: m} },
		DryRun:    faithfulnessStandIn,
	}
}

// faithfulnessStandIn answers the claims prompt with the answer's
// sentences as its claims, and the verification with verdictStandIn.
func faithfulnessStandIn(req llm.Request, count func(string) int) (string, int, bool) {
	if !asks(req, claimSchema()) {
		return verdictStandIn(req, count)
	}
	answer, _ := datablock.Find(last(req), "answer")
	cl := claimList{Claims: heuristics.SplitClaims(answer)}
	if cl.Claims == nil {
		cl.Claims = []string{}
	}
	b, _ := json.Marshal(cl)
	return string(b), count(answer) + 10, true
}

// Faithfulness is RAGAS faithfulness: the share of the answer's claims that
// the contexts support. With a model, one call extracts the claims and one
// batched call verifies them all; offline, claims are sentences checked by
// stemmed overlap with numbers, names and negation required to agree.
//
// Replies are read strictly (see the package doc): a reply off its schema,
// a statement number outside 1..n or a context id the prompt does not hold
// gets the one repair request, then the neutral default.
//
// Where it deliberately differs from RAGAS:
//   - An answer that is missing or blank, or in which no claim is found,
//     is Skipped, not scored, with eval.ErrNoAnswer or eval.ErrNoClaims in
//     Err and the reason; RAGAS returns NaN, which breaks means and gates.
//   - A claim the model extracts twice (same words, ignoring case, spacing
//     and end punctuation) is verified and counted once, so a repeated
//     sentence does not weigh double.
//   - A statement given two verdicts in one reply keeps the worse one
//     (contradicted, then unsupported, then supported), counted in the
//     evidence as "repeated_verdicts".
//   - Statements the reply skips are asked about once more, alone; when
//     any is still without a verdict, the whole score is the neutral
//     default (ErrMissingVerdicts), its evidence counting them "unjudged".
//   - With no context text at all, every claim is unsupported (value 0)
//     without asking the model; RAGAS refuses such a sample.
type Faithfulness struct {
	Model Model
	// Threshold is the value at or above which an answer counts as faithful
	// in agreement reports (default heuristics.DefaultFaithfulThreshold
	// offline, 1 with a model).
	Threshold float64
	// Checker, when set, verifies each claim in place of the batched
	// verification (see FactChecker); offline, the claims are the
	// answer's sentences.
	Checker *FactChecker
}

var _ eval.Scorer = Faithfulness{}

type claimList struct {
	Claims []string `json:"claims"`
}

// Validate implements llm.Validator: a blank claim is no claim.
func (c claimList) Validate() error {
	for i, s := range c.Claims {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("claims[%d] is empty", i)
		}
	}
	return nil
}

// verdict is one statement's verdict; the schema holds the enum and the
// least statement number, the check of verify the rest.
type verdict struct {
	Statement int    `json:"statement" schema:"minimum=1"`
	Verdict   string `json:"verdict" schema:"enum=supported,enum=unsupported,enum=contradicted"`
	Context   string `json:"context"`
	Reason    string `json:"reason"`
}

type verdictList struct {
	Verdicts []verdict `json:"verdicts"`
}

var (
	claimSchema   = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[claimList]("claims") })
	verdictSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[verdictList]("verdicts") })
)

// Score implements eval.Scorer.
func (f Faithfulness) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if blank(s.Answer) {
		meth := Method(f.Model)
		if f.Checker != nil {
			meth = f.Checker.method(f.Model)
		}
		return skip(MetricFaithfulness, meth, 1, eval.ErrNoAnswer, eval.Usage{}), nil
	}
	ps, ids := passages(s), sampleIDs(s)
	if f.Checker != nil {
		return f.scoreChecked(ctx, s, ps, ids)
	}
	if Offline(f.Model) {
		_, cs := heuristics.FaithfulnessScore(s.Answer, texts(ps))
		if len(cs) == 0 {
			return skip(MetricFaithfulness, MethodOffline, 1, errNoClaimFound, eval.Usage{}), nil
		}
		claims := supportClaims(cs, ids)
		sc := claimScore(MetricFaithfulness, MethodOffline, claims)
		noteNoContexts(&sc, ps)
		return sc, nil
	}
	var cl claimList
	u, err := ask(ctx, f.Model, "faithfulness.claims", prompts.ExtractClaims{Question: s.Query, Answer: s.Answer}, &cl, claimSchema())
	if err != nil {
		return fail(ctx, MetricFaithfulness, f.Model, 1, fmt.Errorf("extract claims: %w", err), u)
	}
	if len(cl.Claims) == 0 {
		return skip(MetricFaithfulness, Method(f.Model), 1, errNoClaimFound, u), nil
	}
	unique, dups := dedupe(cl.Claims)
	v, u2, err := verify(ctx, f.Model, unique, ps, ids)
	u = u.Add(u2)
	if err != nil {
		return fail(ctx, MetricFaithfulness, f.Model, 1, fmt.Errorf("verify claims: %w", err), u)
	}
	sc := v.score(MetricFaithfulness, Method(f.Model), "claim")
	return finish(sc, dups, ps, u), nil
}

// ScoreReport implements heuristics.ReportScorer: the faithfulness of a
// research report on a profile's card. Offline its claims are the
// report's factual sentences, those grounding counts (no heading, no
// citation's markup, no Sources list); with a model they are the model's
// claims of the whole report, as of any answer.
func (f Faithfulness) ScoreReport(ctx context.Context, r *heuristics.Report, s eval.Sample) (eval.Score, error) {
	if !Offline(f.Model) || blank(s.Answer) {
		return f.Score(ctx, s)
	}
	var lines []string
	for _, c := range r.Claims() {
		lines = append(lines, c.Text)
	}
	if len(lines) == 0 {
		meth := MethodOffline
		if f.Checker != nil {
			meth = f.Checker.method(f.Model)
		}
		return skip(MetricFaithfulness, meth, 1, errNoClaimFound, eval.Usage{}), nil
	}
	s.Answer = strings.Join(lines, "\n")
	return f.Score(ctx, s)
}

var _ heuristics.ReportScorer = Faithfulness{}

// scoreChecked is Score with a Checker: the claims from the model (or,
// offline, the answer's sentences), each verified by the checker.
func (f Faithfulness) scoreChecked(ctx context.Context, s eval.Sample, ps []prompts.Passage, ids []string) (eval.Score, error) {
	meth := f.Checker.method(f.Model)
	var claims []string
	var u eval.Usage
	if Offline(f.Model) {
		claims = heuristics.SplitClaims(s.Answer)
	} else {
		var cl claimList
		var err error
		u, err = ask(ctx, f.Model, "faithfulness.claims", prompts.ExtractClaims{Question: s.Query, Answer: s.Answer}, &cl, claimSchema())
		if err != nil {
			return failChecked(ctx, MetricFaithfulness, meth, fmt.Errorf("extract claims: %w", err), u)
		}
		claims = cl.Claims
	}
	if len(claims) == 0 {
		return skip(MetricFaithfulness, meth, 1, errNoClaimFound, u), nil
	}
	unique, dups := dedupe(claims)
	v, u2, err := f.Checker.verify(ctx, f.Model, unique, ps, ids)
	u = u.Add(u2)
	if err != nil {
		return failChecked(ctx, MetricFaithfulness, meth, fmt.Errorf("verify claims: %w", err), u)
	}
	sc := checkedScore(MetricFaithfulness, meth, f.Checker, v)
	return finish(sc, dups, ps, u), nil
}

// checkedScore is the ratio score of claims a FactChecker verified, with
// its note in the reason and its counts in the evidence.
func checkedScore(metric, meth string, fc *FactChecker, v verified) eval.Score {
	sc := claimScore(metric, meth, v.claims)
	note, counts := checkerNote(fc, v.claims)
	sc.Reason += note
	for k, n := range counts {
		sc.Evidence.Counts[k] = n
	}
	return sc
}

// failChecked is fail for a judgement labelled meth: a checker's or its
// model's failure is the neutral default (or stops the run, see Stops).
func failChecked(ctx context.Context, metric, meth string, err error, u eval.Usage) (eval.Score, error) {
	if err := Stops(ctx, err); err != nil {
		return eval.Score{}, err
	}
	return neutral(metric, meth, 1, err, u), nil
}

// errNoClaimFound is the cause of a skip for an answer without a claim.
var errNoClaimFound = fmt.Errorf("%w: the answer states nothing the contexts could support or contradict", eval.ErrNoClaims)

// dedupe drops claims that repeat an earlier one, ignoring case, spacing
// and end punctuation, and says how many it dropped.
func dedupe(claims []string) ([]string, int) {
	seen := make(map[string]bool, len(claims))
	out := make([]string, 0, len(claims))
	for _, c := range claims {
		k := strings.ToLower(strings.Join(strings.Fields(strings.TrimRight(c, " \t\n.!?;:")), " "))
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
	}
	return out, len(claims) - len(out)
}

// hasText reports whether any passage has text a claim could rest on.
func hasText(ps []prompts.Passage) bool {
	for _, p := range ps {
		if strings.TrimSpace(p.Text) != "" {
			return true
		}
	}
	return false
}

// noteNoContexts says in a claim score's reason that the sample had no
// context text, when it had claims and none.
func noteNoContexts(sc *eval.Score, ps []prompts.Passage) {
	if len(sc.Evidence.Claims) > 0 && !hasText(ps) {
		sc.Reason += "; the sample has no context text to support them"
	}
}

// severity orders verdicts from best to worst, for conflicting replies.
func severity(verdict string) int {
	switch verdict {
	case eval.VerdictSupported:
		return 0
	case eval.VerdictUnsupported:
		return 1
	}
	return 2 // contradicted
}

// verified is what verify found: the claims with their verdicts (those
// still without one are eval.VerdictUnjudged) and the repeated verdicts.
type verified struct {
	claims   []eval.Claim
	repeated []string // one note per statement given more than one verdict
}

// verify checks claims against the passages in one call and returns them
// with verdicts. A reply must number only the statements it was given and
// name only the prompt's contexts, and the first must give a verdict, or
// it gets the repair request. Claims the reply skips are asked about once
// more, alone; any still without a
// verdict stay eval.VerdictUnjudged (the caller's score then defaults). A
// statement given two verdicts keeps the worse. A supporting context is
// named by the sample's id (ids). With no passage text, every claim is
// unsupported and no call is made.
func verify(ctx context.Context, m Model, claims []string, ps []prompts.Passage, ids []string) (verified, eval.Usage, error) {
	out := verified{claims: make([]eval.Claim, len(claims))}
	todo := make([]int, len(claims)) // indexes of claims without a verdict
	for i, c := range claims {
		out.claims[i] = eval.Claim{Text: c, Verdict: eval.VerdictUnjudged}
		todo[i] = i
	}
	if !hasText(ps) {
		for i := range out.claims {
			out.claims[i].Verdict = eval.VerdictUnsupported
		}
		return out, eval.Usage{}, nil
	}
	known := knownContext(ps, true)
	var u eval.Usage
	for ask2 := 0; ask2 < 2 && len(todo) > 0; ask2++ {
		sub := make([]string, len(todo))
		for k, i := range todo {
			sub[k] = claims[i]
		}
		first := ask2 == 0
		check := func(o any) error {
			vs := o.(*verdictList).Verdicts
			if first && len(vs) == 0 {
				// Not a reply to keep: asked again, the same statements
				// would be the same request, answered by the cache with
				// this same reply.
				return fmt.Errorf("no verdict given, for %s asked about", plural.Count(len(sub), "statement"))
			}
			for i, v := range vs {
				if v.Statement > len(sub) {
					return fmt.Errorf("verdicts[%d].statement %d is not a statement number: the statements are numbered 1 to %d", i, v.Statement, len(sub))
				}
				if err := known(fmt.Sprintf("verdicts[%d].context", i), v.Context); err != nil {
					return err
				}
			}
			return nil
		}
		var vl verdictList
		u2, err := ask(ctx, m, "faithfulness.verify", prompts.VerifyClaims{Claims: sub, Contexts: ps}, &vl, verdictSchema(), check)
		u = u.Add(u2)
		if err != nil {
			return verified{}, u, err
		}
		given := make(map[int]int, len(vl.Verdicts))
		for _, v := range vl.Verdicts {
			c := &out.claims[todo[v.Statement-1]]
			given[v.Statement]++
			if given[v.Statement] > 1 && severity(v.Verdict) <= severity(c.Verdict) {
				continue // a second, no worse verdict for the same statement
			}
			c.Verdict, c.SourceID = v.Verdict, ""
			if i := indexOf(ps, v.Context); v.Verdict == eval.VerdictSupported && i >= 0 {
				c.SourceID = ids[i]
			}
		}
		for st, n := range given {
			if n > 1 {
				c := out.claims[todo[st-1]]
				out.repeated = append(out.repeated, fmt.Sprintf("%q given %d verdicts: the worse, %s, kept", clip(c.Text, 60), n, c.Verdict))
			}
		}
		todo = todo[:0]
		for i, c := range out.claims {
			if c.Verdict == eval.VerdictUnjudged {
				todo = append(todo, i)
			}
		}
	}
	sort.Strings(out.repeated)
	return out, u, nil
}

// score is the ratio score of the verified claims (what names one in the
// reasons: "claim", "statement"), or the neutral default when any is
// still unjudged.
func (v verified) score(metric, meth, what string) eval.Score {
	sc := claimScore(metric, meth, v.claims)
	if len(v.repeated) > 0 {
		sc.Evidence.Counts["repeated_verdicts"] = float64(len(v.repeated))
		sc.Evidence.Issues = append(sc.Evidence.Issues, v.repeated...)
		sc.Reason += fmt.Sprintf("; %s given more than one verdict, the worse kept", plural.Count(len(v.repeated), what))
	}
	if n := countVerdict(v.claims, eval.VerdictUnjudged); n > 0 {
		return incomplete(sc, n, len(v.claims), what)
	}
	return sc
}

// supportClaims maps offline support results to claims with verdicts,
// naming a supporting context by the sample's id (ids, by position).
func supportClaims(cs []heuristics.ClaimSupport, ids []string) []eval.Claim {
	out := make([]eval.Claim, len(cs))
	for i, c := range cs {
		out[i] = eval.Claim{Text: c.Claim, Verdict: eval.VerdictUnsupported}
		if c.Supported {
			out[i].Verdict = eval.VerdictSupported
			if c.Context >= 0 && c.Context < len(ids) {
				out[i].SourceID = ids[c.Context]
			}
		}
	}
	return out
}

// claimScore builds a ratio score from claims with verdicts: the share
// supported. Callers skip a sample with no claims before.
func claimScore(metric, meth string, claims []eval.Claim) eval.Score {
	supported := 0
	var unsupported []string
	for _, c := range claims {
		if c.Verdict == eval.VerdictSupported {
			supported++
		} else {
			unsupported = append(unsupported, fmt.Sprintf("%s: %q", c.Verdict, clip(c.Text, 80)))
		}
	}
	value := float64(supported) / float64(max(len(claims), 1))
	return eval.Score{
		Metric: metric, Value: value, Points: value, Max: 1, Method: meth,
		Evidence: eval.Evidence{
			Claims: claims, Issues: unsupported,
			Counts: map[string]float64{"claims": float64(len(claims)), "supported": float64(supported)},
		},
		Reason: fmt.Sprintf("%d of %s supported by the contexts", supported, plural.Count(len(claims), "claim")),
	}
}

func countVerdict(claims []eval.Claim, verdict string) int {
	n := 0
	for _, c := range claims {
		if c.Verdict == verdict {
			n++
		}
	}
	return n
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// finish completes a faithfulness score judged with a model (or a
// checker): its repeated claims counted, the note when there was no
// context text, and what the calls spent.
func finish(sc eval.Score, dups int, ps []prompts.Passage, u eval.Usage) eval.Score {
	if dups > 0 {
		sc.Evidence.Counts["duplicates"] = float64(dups)
		sc.Reason += fmt.Sprintf("; %s counted once", plural.Count(dups, "repeated claim"))
	}
	noteNoContexts(&sc, ps)
	sc.Usage = u.Recorded()
	return sc
}
