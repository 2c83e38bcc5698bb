package judges

import (
	"context"
	"fmt"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/metric"
)

// contextRecallMetric is the registry entry of context recall.
func contextRecallMetric() metric.Entry {
	return metric.Entry{
		Name: MetricContextRecall, Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsContexts | metric.NeedsReference,
		Threshold: metric.Threshold{Offline: heuristics.DefaultFaithfulThreshold, Model: 1}, // model: every statement supported
		Build:     func(m Model) eval.Scorer { return ContextRecall{Model: m} },
		DryRun:    verdictStandIn, // the verification of faithfulness
	}
}

// ContextRecall is RAGAS context recall: the share of the reference
// answer's statements that the retrieved contexts support. It needs a
// reference: a sample whose reference is missing, blank or holds no
// statement gets an error wrapping ErrNoReference, never a value (RAGAS
// raises on an empty reference; a 0 or 1 would be a silent guess). The
// reference is split into statements deterministically and checked in one
// batched call (offline: by lexical support). With no context text, recall
// is 0 and no call is made; RAGAS refuses such a sample.
//
// The answer is not judged: a sample with a missing or blank answer is
// scored like any other. Replies are read as faithfulness reads its
// verification: strictly, the worse of two verdicts for a statement kept,
// the statements a reply skips asked about once more, and the whole score
// the neutral default (ErrMissingVerdicts) when any is still without a
// verdict.
type ContextRecall struct {
	Model Model
	// Checker, when set, verifies each statement in place of the batched
	// verification (see FactChecker), with a model or offline.
	Checker *FactChecker
}

var _ eval.Scorer = ContextRecall{}

// ErrNoReference is returned by judges that need a reference answer when
// the sample has none. It is metric.ErrNoReference.
var ErrNoReference = metric.ErrNoReference

var _ Checker = ContextRecall{}

// Check implements Checker: context recall needs a reference with at least
// one statement.
func (r ContextRecall) Check(s eval.Sample) error {
	_, err := referenceStatements(s)
	return err
}

// referenceStatements returns the statements of s's reference, or Check's
// error when it has none.
func referenceStatements(s eval.Sample) ([]string, error) {
	if strings.TrimSpace(s.Reference) == "" {
		return nil, fmt.Errorf("%s: %w", MetricContextRecall, ErrNoReference)
	}
	statements := heuristics.SplitClaims(s.Reference)
	if len(statements) == 0 {
		return nil, fmt.Errorf("%s: the reference holds no statement: %w", MetricContextRecall, ErrNoReference)
	}
	return statements, nil
}

// Score implements eval.Scorer.
func (r ContextRecall) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	statements, err := referenceStatements(s)
	if err != nil {
		return eval.Score{}, err
	}
	ps, ids := passages(s), sampleIDs(s)
	if r.Checker != nil {
		meth := r.Checker.method(r.Model)
		v, u, err := r.Checker.verify(ctx, r.Model, statements, ps, ids)
		if err != nil {
			return failChecked(ctx, MetricContextRecall, meth, fmt.Errorf("verify statements: %w", err), u)
		}
		sc := checkedScore(MetricContextRecall, meth, r.Checker, v)
		noteNoContexts(&sc, ps)
		sc.Usage = u.Recorded()
		return sc, nil
	}
	if Offline(r.Model) {
		cs := heuristics.SupportClaims(statements, texts(ps))
		sc := claimScore(MetricContextRecall, MethodOffline, supportClaims(cs, ids))
		noteNoContexts(&sc, ps)
		return sc, nil
	}
	v, u, err := verify(ctx, r.Model, statements, ps, ids)
	if err != nil {
		return fail(ctx, MetricContextRecall, r.Model, 1, err, u)
	}
	sc := v.score(MetricContextRecall, Method(r.Model), "statement")
	noteNoContexts(&sc, ps)
	sc.Usage = u.Recorded()
	return sc, nil
}
