package metric

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// Registry is a set of metrics by name, in the order they were added. Its
// zero value is an empty registry ready to use.
//
// It is built, then read: Add and Replace must not run concurrently with
// anything else; once built, every other method is safe for concurrent use.
// A sealed registry (Seal) refuses to change, so one that is shared cannot
// grow behind its readers' backs.
type Registry struct {
	names  []string
	by     map[string]Entry
	sealed bool
}

// ErrSealed is returned (wrapped) by Add and Replace on a sealed registry.
// Test with errors.Is.
var ErrSealed = errors.New("the registry is sealed: build your own (Clone) to add to it")

// ErrUnknownMetric is returned (wrapped) by New for a name --metric does
// not take. Test with errors.Is.
var ErrUnknownMetric = errors.New("unknown metric")

// Add adds a metric. It refuses an entry without a name, a kind or (unless
// it is a KindValue) a Build function, a name already taken, and any entry
// once the registry is sealed: these are programming errors, reported so
// that the code assembling a registry can say which.
func (r *Registry) Add(e Entry) error {
	if err := r.writable(e); err != nil {
		return err
	}
	if _, dup := r.by[e.Name]; dup {
		return fmt.Errorf("metric: %s is added twice", e.Name)
	}
	if r.by == nil {
		r.by = map[string]Entry{}
	}
	r.by[e.Name] = e
	r.names = append(r.names, e.Name)
	return nil
}

// Replace changes the entry of a metric already added, keeping its place:
// for a package that extends another's metric (agent gives judges'
// completeness its place in the research card and loop).
func (r *Registry) Replace(e Entry) error {
	if err := r.writable(e); err != nil {
		return err
	}
	if _, ok := r.by[e.Name]; !ok {
		return fmt.Errorf("metric: %s is not in the registry to replace", e.Name)
	}
	r.by[e.Name] = e
	return nil
}

func (r *Registry) writable(e Entry) error {
	if r.sealed {
		return fmt.Errorf("metric: add %s: %w", e.Name, ErrSealed)
	}
	if err := e.check(); err != nil {
		return fmt.Errorf("metric: %w", err)
	}
	return nil
}

// Seal makes the registry refuse any change from now on.
func (r *Registry) Seal() { r.sealed = true }

// Clone returns a copy of the registry that is not sealed, to add to
// without changing r.
func (r *Registry) Clone() *Registry {
	return &Registry{names: slices.Clone(r.names), by: maps.Clone(r.by)}
}

// Lookup returns the metric of that name.
func (r *Registry) Lookup(name string) (Entry, bool) {
	e, ok := r.by[name]
	return e, ok
}

// Entries returns every metric, in the order they were added.
func (r *Registry) Entries() []Entry {
	out := make([]Entry, len(r.names))
	for i, n := range r.names {
		out[i] = r.by[n]
	}
	return out
}

// Metrics lists the names --metric takes (Entry.Dataset), sorted.
func (r *Registry) Metrics() []string {
	var out []string
	for _, e := range r.by {
		if e.Dataset {
			out = append(out, e.Name)
		}
	}
	slices.Sort(out)
	return out
}

// InProfile returns the names of the metrics a profile of that kind may
// score, in the order they were added.
func (r *Registry) InProfile(kind string) []string {
	var out []string
	for _, e := range r.Entries() {
		if e.Build != nil && slices.Contains(e.Profiles, kind) {
			out = append(out, e.Name)
		}
	}
	return out
}

// spelling is the metric --metric takes that name writes another way
// (is-json, Is_JSON and "is json" for is_json, as promptfoo and others
// spell theirs), or "".
func (r *Registry) spelling(name string) string {
	alt := strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(name)))
	if e, ok := r.by[alt]; ok && e.Dataset && alt != name {
		return alt
	}
	return ""
}

// New returns the scorer of a metric --metric takes, judging with m (nil:
// offline). A scorer of a metric that needs contexts or a reference is a
// Checker.
func (r *Registry) New(name string, m Model) (eval.Scorer, error) {
	e, ok := r.by[name]
	if !ok || !e.Dataset {
		if alt := r.spelling(name); alt != "" {
			return nil, fmt.Errorf("%w %q: did you mean %s? (have %s)", ErrUnknownMetric, name, alt, strings.Join(r.Metrics(), ", "))
		}
		return nil, fmt.Errorf("%w %q (have %s)", ErrUnknownMetric, name, strings.Join(r.Metrics(), ", "))
	}
	sc := e.Build(m)
	if _, ok := sc.(Checker); !ok && e.Needs&(NeedsContexts|NeedsReference) != 0 {
		sc = checked{sc, e}
	}
	return sc, nil
}

// checked is a scorer that checks its metric's Needs.
type checked struct {
	eval.Scorer
	e Entry
}

// Check implements Checker from the metric's Needs.
func (c checked) Check(s eval.Sample) error { return c.e.Needs.Check(c.e.Name, s) }

// CheckModel returns an input error naming the first of names whose
// scorer needs a model (Entry.ModelOnly) when m is offline, and --llm,
// which gives one, or whose scorer says it cannot judge with m
// (Entry.Ready); nil when every one can judge with m.
func (r *Registry) CheckModel(names []string, m Model) error {
	for _, n := range names {
		e := r.by[n]
		if e.ModelOnly && Offline(m) {
			return eval.FlagError("--llm", "%s is a judge defined in a judges file or a profile: it has no offline counterpart and needs a model to judge, none is given; give --llm (or $ASSAY_LLM, $OPENAI_API_KEY), or leave %s out", n, n)
		}
		if e.Ready != nil {
			if err := e.Ready(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// Versions maps each of names with a Version (a judge defined in a judges
// file) to it, keyed "judge NAME", as a run records it beside its prompt
// versions; nil when none has one.
func (r *Registry) Versions(names []string) map[string]string {
	var out map[string]string
	for _, n := range names {
		if v := r.by[n].Version; v != "" {
			if out == nil {
				out = map[string]string{}
			}
			out["judge "+n] = v
		}
	}
	return out
}

// DefaultThreshold is the value at or above which a metric's result counts
// as the positive label (faithful, relevant) in agreement reports and
// summaries: its Threshold, offline or with the model m. An unknown metric,
// or one whose Threshold is zero, gets 0.5.
func (r *Registry) DefaultThreshold(name string, m Model) float64 {
	return r.ThresholdOf(name, Offline(m))
}

// ThresholdOf is DefaultThreshold offline or with a model: of results
// whose judge is known by its label alone, as a stored run records it
// (judges.OfflineMethod tells).
func (r *Registry) ThresholdOf(name string, offline bool) float64 {
	t := r.by[name].Threshold
	if t == (Threshold{}) {
		return 0.5
	}
	if offline {
		return t.Offline
	}
	return t.Model
}

// DryRun answers req with the stand-in reply of the first metric, in the
// order they were added, whose DryRun knows the request; ok is false when
// none does. It is the registry's llm/dryrun.Replier.
func (r *Registry) DryRun(req llm.Request, count func(string) int) (content string, tokensOut int, ok bool) {
	for _, n := range r.names {
		if f := r.by[n].DryRun; f != nil {
			if content, tokensOut, ok = f(req, count); ok {
				return content, tokensOut, true
			}
		}
	}
	return "", 0, false
}
