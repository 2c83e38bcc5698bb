package judges

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
)

// ContextRecall is RAGAS context recall: the share of the reference
// answer's statements that the retrieved contexts support. It needs a
// reference: a sample whose reference is missing, blank or holds no
// statement gets an error wrapping ErrNoReference, never a value (RAGAS
// raises on an empty reference; a 0 or 1 would be a silent guess). The
// reference is split into statements deterministically and checked in one
// batched call (offline: by lexical support). With no context text, recall
// is 0 and no call is made; RAGAS refuses such a sample.
type ContextRecall struct {
	Model Model
}

var _ eval.Scorer = ContextRecall{}

// ErrNoReference is returned by judges that need a reference answer when
// the sample has none.
var ErrNoReference = errors.New("sample has no reference answer")

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
	ps := passages(s)
	if offline(r.Model) {
		cs := heuristics.SupportClaims(statements, texts(ps))
		claims := supportClaims(cs, ps)
		sc := claimScore(MetricContextRecall, MethodOffline, supportedShare(claims), claims)
		noteNoContexts(&sc, ps)
		return sc, nil
	}
	claims, u, err := verify(ctx, r.Model, statements, ps)
	if err != nil {
		return fail(ctx, MetricContextRecall, r.Model, 1, err, u)
	}
	sc := claimScore(MetricContextRecall, method(r.Model), supportedShare(claims), claims)
	noteNoContexts(&sc, ps)
	sc.Usage = UsageOf(u)
	return sc, nil
}
