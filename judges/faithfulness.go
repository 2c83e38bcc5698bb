package judges

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/prompts"
)

// Faithfulness is RAGAS faithfulness: the share of the answer's claims that
// the contexts support. With a model, one call extracts the claims and one
// batched call verifies them all; offline, claims are sentences checked by
// stemmed overlap with numbers, names and negation required to agree.
//
// Where it deliberately differs from RAGAS:
//   - An answer with no claim scores 1 with Err set to eval.ErrNoClaims and
//     the reason saying so; RAGAS returns NaN, which breaks means and gates.
//   - A claim the model extracts twice (same words, ignoring case, spacing
//     and end punctuation) is verified and counted once, so a repeated
//     sentence does not weigh double.
//   - A statement given conflicting verdicts in one reply keeps the worse
//     one (contradicted, then unsupported, then supported).
//   - With no context text at all, every claim is unsupported (value 0)
//     without asking the model; RAGAS refuses such a sample.
type Faithfulness struct {
	Model Model
	// Threshold is the value at or above which an answer counts as faithful
	// in agreement reports (default heuristics.DefaultFaithfulThreshold
	// offline, 1 with a model).
	Threshold float64
}

var _ eval.Scorer = Faithfulness{}

type claimList struct {
	Claims []string `json:"claims"`
}

func (c claimList) Validate() error {
	for i, s := range c.Claims {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("claims[%d] is empty", i)
		}
	}
	return nil
}

type verdict struct {
	Statement int    `json:"statement" jsonschema:"minimum=1"`
	Verdict   string `json:"verdict" jsonschema:"enum=supported,enum=unsupported,enum=contradicted"`
	Context   string `json:"context"`
	Reason    string `json:"reason"`
}

type verdictList struct {
	Verdicts []verdict `json:"verdicts"`
}

func (v verdictList) Validate() error {
	for i, x := range v.Verdicts {
		switch x.Verdict {
		case "supported", "unsupported", "contradicted":
		default:
			return fmt.Errorf("verdicts[%d].verdict %q is not supported, unsupported or contradicted", i, x.Verdict)
		}
		if x.Statement < 1 {
			return fmt.Errorf("verdicts[%d].statement %d is not a statement number", i, x.Statement)
		}
	}
	return nil
}

var (
	claimSchema   = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[claimList]("claims") })
	verdictSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[verdictList]("verdicts") })
)

// Score implements eval.Scorer.
func (f Faithfulness) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	ps := passages(s)
	if offline(f.Model) {
		v, cs := heuristics.FaithfulnessScore(s.Answer, texts(ps))
		sc := claimScore(MetricFaithfulness, MethodOffline, v, supportClaims(cs, ps))
		noteNoContexts(&sc, ps)
		return sc, nil
	}
	var cl claimList
	u, err := ask(ctx, f.Model, "faithfulness.claims", prompts.ExtractClaims{Question: s.Query, Answer: s.Answer}, &cl, claimSchema())
	if err != nil {
		return fail(ctx, MetricFaithfulness, f.Model, 1, fmt.Errorf("extract claims: %w", err), u)
	}
	unique, dups := dedupe(cl.Claims)
	claims, u2, err := verify(ctx, f.Model, unique, ps)
	u = u.Add(u2)
	if err != nil {
		return fail(ctx, MetricFaithfulness, f.Model, 1, fmt.Errorf("verify claims: %w", err), u)
	}
	sc := claimScore(MetricFaithfulness, method(f.Model), supportedShare(claims), claims)
	if dups > 0 {
		sc.Evidence.Counts["duplicates"] = float64(dups)
		sc.Reason += fmt.Sprintf("; %d repeated claim%s counted once", dups, plural(dups))
	}
	noteNoContexts(&sc, ps)
	sc.Usage = UsageOf(u)
	return sc, nil
}

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

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
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

// verify checks claims against the passages in one call and returns them
// with verdicts. Claims the reply skips are asked about once more, alone;
// any still without a verdict are marked unjudged, which counts as not
// supported (silence is not support) and shows in the evidence. A statement
// given two verdicts in one reply keeps the worse. With no passage text,
// every claim is unsupported and no call is made.
func verify(ctx context.Context, m Model, claims []string, ps []prompts.Passage) ([]eval.Claim, llm.Usage, error) {
	out := make([]eval.Claim, len(claims))
	todo := make([]int, len(claims)) // indexes of claims without a verdict
	for i, c := range claims {
		out[i] = eval.Claim{Text: c, Verdict: eval.VerdictUnjudged}
		todo[i] = i
	}
	if !hasText(ps) {
		for i := range out {
			out[i].Verdict = eval.VerdictUnsupported
		}
		return out, llm.Usage{}, nil
	}
	var u llm.Usage
	for ask2 := 0; ask2 < 2 && len(todo) > 0; ask2++ {
		sub := make([]string, len(todo))
		for k, i := range todo {
			sub[k] = claims[i]
		}
		var vl verdictList
		u2, err := ask(ctx, m, "faithfulness.verify", prompts.VerifyClaims{Claims: sub, Contexts: ps}, &vl, verdictSchema())
		u = u.Add(u2)
		if err != nil {
			return nil, u, err
		}
		given := make(map[int]bool, len(vl.Verdicts))
		for _, v := range vl.Verdicts {
			if v.Statement > len(sub) {
				continue // a statement number that was not asked about
			}
			c := &out[todo[v.Statement-1]]
			if given[v.Statement] && severity(v.Verdict) <= severity(c.Verdict) {
				continue // a second, no worse verdict for the same statement
			}
			given[v.Statement] = true
			c.Verdict, c.SourceID = v.Verdict, ""
			if v.Verdict == "supported" {
				c.SourceID = v.Context
			}
		}
		todo = todo[:0]
		for i, c := range out {
			if c.Verdict == eval.VerdictUnjudged {
				todo = append(todo, i)
			}
		}
	}
	return out, u, nil
}

// supportedShare is the share of supported claims; an answer with no claims
// asserts nothing the contexts could contradict, and scores 1 (flagged with
// eval.ErrNoClaims by claimScore; RAGAS gives NaN there).
func supportedShare(claims []eval.Claim) float64 {
	if len(claims) == 0 {
		return 1
	}
	return float64(countVerdict(claims, eval.VerdictSupported)) / float64(len(claims))
}

// supportClaims maps offline support results to claims with verdicts.
func supportClaims(cs []heuristics.ClaimSupport, ps []prompts.Passage) []eval.Claim {
	out := make([]eval.Claim, len(cs))
	for i, c := range cs {
		out[i] = eval.Claim{Text: c.Claim, Verdict: eval.VerdictUnsupported}
		if c.Supported {
			out[i].Verdict = eval.VerdictSupported
			if c.Context >= 0 && c.Context < len(ps) {
				out[i].SourceID = ps[c.Context].ID
			}
		}
	}
	return out
}

// claimScore builds a ratio score from claims with verdicts.
func claimScore(metric, meth string, value float64, claims []eval.Claim) eval.Score {
	supported := 0
	var unsupported []string
	for _, c := range claims {
		if c.Verdict == eval.VerdictSupported {
			supported++
		} else {
			unsupported = append(unsupported, fmt.Sprintf("%s: %q", c.Verdict, clip(c.Text, 80)))
		}
	}
	sc := eval.Score{
		Metric: metric, Value: value, Points: value, Max: 1, Method: meth,
		Evidence: eval.Evidence{
			Claims: claims, Issues: unsupported,
			Counts: map[string]float64{"claims": float64(len(claims)), "supported": float64(supported)},
		},
	}
	if len(claims) == 0 {
		sc.Err = eval.ErrNoClaims
		sc.Reason = "no verifiable claims found: nothing to contradict; scored 1 and flagged with the error, where RAGAS gives NaN"
		return sc
	}
	sc.Reason = fmt.Sprintf("%d of %d claims supported by the contexts", supported, len(claims))
	if n := countVerdict(claims, eval.VerdictUnjudged); n > 0 {
		sc.Evidence.Counts["unjudged"] = float64(n)
		sc.Reason += fmt.Sprintf("; %d left without a verdict by the model, counted as unsupported", n)
	}
	return sc
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
