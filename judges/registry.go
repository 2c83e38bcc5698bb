package judges

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
)

// Kind says how a registered metric is computed and where it can be asked
// for.
type Kind uint8

// Kinds of metric.
const (
	// KindJudge is a judge of RAG samples: named by --metric, built with
	// the model (or offline without one).
	KindJudge Kind = iota + 1
	// KindHeuristic is a deterministic scorer: it never calls a model.
	KindHeuristic
	// KindValue is a value reported inside another metric's score (the
	// context profile's sub-scores in context_quality's evidence): it has
	// no scorer of its own.
	KindValue
)

// Needs is what a metric needs of a sample besides its query.
type Needs uint8

// What a metric can need of a sample.
const (
	NeedsAnswer Needs = 1 << iota
	NeedsContexts
	NeedsReference
)

// Check returns the error a scorer of metric with these needs returns for
// s because s lacks one of them (wrapping ErrNoContexts or ErrNoReference),
// or nil. A missing answer is no error: a judge of the answer skips such a
// sample (eval.ErrNoAnswer), it does not refuse the dataset.
func (n Needs) Check(metric string, s eval.Sample) error {
	if n&NeedsContexts != 0 && len(passages(s)) == 0 {
		return fmt.Errorf("%s: %w", metric, ErrNoContexts)
	}
	if n&NeedsReference != 0 && strings.TrimSpace(s.Reference) == "" {
		return fmt.Errorf("%s: %w", metric, ErrNoReference)
	}
	return nil
}

// Threshold is the value at or above which a metric's result counts as the
// positive label (faithful, relevant) in agreement reports and summaries:
// Offline when its scorer runs without a model, Model with one. The zero
// Threshold is 0.5 for both, grades 3-5 of 5 ("partially relevant" or
// better).
type Threshold struct {
	Offline, Model float64
}

// Metric is one entry of the registry: everything Assay knows about a
// metric, so that no other code switches on its name.
type Metric struct {
	// Name is the metric's name in --metric, profiles and cards.
	Name string
	Kind Kind
	// Profiles are the profile kinds ("report", "context") whose scorers
	// may name it; none for a metric judged over datasets only.
	Profiles []string
	// Of names the metric whose score carries this value (KindValue).
	Of string
	// Needs is what it needs of a sample. Build's scorer, when it is a
	// Checker, says so itself; otherwise New makes it one from Needs.
	Needs Needs
	// Threshold is its default pass threshold.
	Threshold Threshold
	// Build returns its scorer judging with m; m nil (or offline) is the
	// scorer's offline form. Nil for a KindValue.
	Build func(m Model) eval.Scorer
	// CallsModel says whether its scorer calls the model when it has one
	// that is not offline: its score is then labelled with the model
	// (Method) and a dry run counts its calls.
	CallsModel bool
}

// registry is the list of every metric, by name, in registration order.
var registry struct {
	sync.RWMutex
	names []string
	by    map[string]Metric
}

// Register adds a metric to the registry: the one call that makes it known
// to judges.New, DefaultThreshold, profiles and the CLI. It is meant for
// init functions, and panics on a metric without a name, a scorer (unless
// it is a KindValue) or a kind, and on a name registered twice: these are
// programming errors.
func Register(m Metric) {
	switch {
	case m.Name == "":
		panic("judges.Register: a metric needs a name")
	case m.Kind == 0:
		panic("judges.Register: metric " + m.Name + " needs a Kind")
	case m.Build == nil && m.Kind != KindValue:
		panic("judges.Register: metric " + m.Name + " needs a Build function")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.by[m.Name]; dup {
		panic("judges.Register: metric " + m.Name + " is registered twice")
	}
	if registry.by == nil {
		registry.by = map[string]Metric{}
	}
	registry.by[m.Name] = m
	registry.names = append(registry.names, m.Name)
}

// Lookup returns the registered metric of that name.
func Lookup(name string) (Metric, bool) {
	registry.RLock()
	defer registry.RUnlock()
	m, ok := registry.by[name]
	return m, ok
}

// Registered returns every registered metric, in registration order.
func Registered() []Metric {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Metric, len(registry.names))
	for i, n := range registry.names {
		out[i] = registry.by[n]
	}
	return out
}

// InProfile returns the names of the metrics a profile of that kind may
// score, in registration order.
func InProfile(kind string) []string {
	var out []string
	for _, m := range Registered() {
		if m.Build != nil && slices.Contains(m.Profiles, kind) {
			out = append(out, m.Name)
		}
	}
	return out
}

// ErrUnknownMetric is returned (wrapped) by New for a name no metric is
// registered under. Test with errors.Is.
var ErrUnknownMetric = errors.New("unknown metric")

// New returns the judge for a metric name, judging with m (nil: offline).
func New(metric string, m Model) (eval.Scorer, error) {
	r, ok := Lookup(metric)
	if !ok || r.Kind != KindJudge {
		return nil, fmt.Errorf("%w %q (have %s)", ErrUnknownMetric, metric, strings.Join(Metrics(), ", "))
	}
	sc := r.Build(m)
	if _, ok := sc.(Checker); !ok && r.Needs&(NeedsContexts|NeedsReference) != 0 {
		sc = checked{sc, r}
	}
	return sc, nil
}

// checked is a scorer that checks its metric's Needs.
type checked struct {
	eval.Scorer
	m Metric
}

// Check implements Checker from the metric's Needs.
func (c checked) Check(s eval.Sample) error { return c.m.Needs.Check(c.m.Name, s) }

// Metrics lists the judges' metric names (those --metric takes), sorted.
func Metrics() []string {
	var out []string
	for _, m := range Registered() {
		if m.Kind == KindJudge {
			out = append(out, m.Name)
		}
	}
	slices.Sort(out)
	return out
}

// DefaultThreshold is the value at or above which a metric's result counts
// as the positive label (faithful, relevant) in agreement reports and
// summaries: its registered Threshold, offline or with the model m.
// Offline thresholds were chosen on the development sets recorded in
// BENCHMARKS.md. An unknown metric gets 0.5.
func DefaultThreshold(metric string, m Model) float64 {
	return threshold(metric, Offline(m))
}

// MethodThreshold is DefaultThreshold for results judged as method says
// (Method's label, as a stored run records its judge): the offline
// threshold unless method names a model (OfflineMethod).
func MethodThreshold(metric, method string) float64 {
	return threshold(metric, OfflineMethod(method))
}

func threshold(metric string, offline bool) float64 {
	r, _ := Lookup(metric)
	t := r.Threshold
	if t == (Threshold{}) {
		return 0.5
	}
	if offline {
		return t.Offline
	}
	return t.Model
}
