package judges

import (
	"fmt"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/metric"
)

// ErrUnknownMetric is returned (wrapped) by New for a name that is none of
// the judges' metrics. It is metric.ErrUnknownMetric. Test with errors.Is.
var ErrUnknownMetric = metric.ErrUnknownMetric

// AddBuiltins adds the judges' metrics to r: the eight LLM judges, the
// token-overlap baseline and the judges of an answer against its reference
// (answer correctness, factual correctness in its three modes, semantic
// similarity), and the judges of a conversation (task completion,
// conversation relevancy, knowledge retention, role adherence), each entry
// beside the scorer it builds. --metric takes them all.
func AddBuiltins(r *metric.Registry) error {
	for _, e := range append([]metric.Entry{
		tokenOverlapMetric(), completenessMetric(), faithfulnessMetric(), contextPrecisionMetric(),
		reasoningMetric(), contextRecallMetric(), answerRelevancyMetric(), answerRelevancyGradeMetric(), sourceRelevanceMetric(),
	}, append(referenceMetrics(), conversationMetrics()...)...) {
		if err := r.Add(e); err != nil {
			return fmt.Errorf("judges: %w", err)
		}
	}
	return nil
}

// builtins is the registry of the judges' own metrics, built on first use
// and sealed. The built-in registry of every metric is agent.Builtins.
var builtins = sync.OnceValue(func() *metric.Registry {
	var r metric.Registry
	if err := AddBuiltins(&r); err != nil {
		panic(err) // the entries above are fixed: a programming error
	}
	r.Seal()
	return &r
})

// New returns the scorer of one of the judges' metrics (a Metric* name),
// judging with m (nil: offline). Metrics of other packages are built by
// the registry that holds them (agent.Builtins().New).
func New(metric string, m Model) (eval.Scorer, error) { return builtins().New(metric, m) }
