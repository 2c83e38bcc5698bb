package metric

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// Model is what a metric's scorer judges with: a chat model that may embed.
// Its declaration is here, where scorers are built; judges.Model is the
// same type.
type Model interface {
	llm.Chatter
	Embed(ctx context.Context, texts []string) ([][]float32, eval.Usage, error)
	Name() string
	// Offline reports that the model cannot generate text (the offline
	// backend): judges then run their lexical counterparts.
	Offline() bool
}

// Offline reports whether m cannot generate text: nil, or a model that
// says so.
func Offline(m Model) bool { return m == nil || m.Offline() }

// Kind says how a metric is computed.
type Kind uint8

// Kinds of metric.
const (
	// KindJudge is a judge: its scorer calls the model when it has one
	// that is not offline, and runs a deterministic counterpart otherwise.
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

// ErrNoContexts is returned by scorers that need retrieved contexts when
// the sample has none. It is eval.ErrNoContexts, so that a dataset's check
// pass names the field without importing this package. Test with errors.Is.
var ErrNoContexts = eval.ErrNoContexts

// ErrNoReference is returned by scorers that need a reference answer when
// the sample has none. It is eval.ErrNoReference. Test with errors.Is.
var ErrNoReference = eval.ErrNoReference

// Check returns the error a scorer of metric with these needs returns for
// s because s lacks one of them (wrapping ErrNoContexts or ErrNoReference),
// or nil. A missing answer is no error: a judge of the answer skips such a
// sample (eval.ErrNoAnswer), it does not refuse the dataset.
func (n Needs) Check(metric string, s eval.Sample) error {
	if n&NeedsContexts != 0 && len(s.Sources) == 0 && (s.Context == nil || s.Context.Text == "") {
		return fmt.Errorf("%s: %w", metric, ErrNoContexts)
	}
	if n&NeedsReference != 0 && strings.TrimSpace(s.Reference) == "" {
		return fmt.Errorf("%s: %w", metric, ErrNoReference)
	}
	return nil
}

// Checker is a scorer that needs more of a sample than every scorer does.
// Its Check returns, without any call, the error its Score would return for
// s because s lacks something (wrapping ErrNoReference or ErrNoContexts),
// or nil; a dataset can so be checked whole before a run spends anything.
type Checker interface {
	Check(s eval.Sample) error
}

// Threshold is the value at or above which a metric's result counts as the
// positive label (faithful, relevant) in agreement reports and summaries:
// Offline when its scorer runs without a model, Model with one. The zero
// Threshold is 0.5 for both, grades 3-5 of 5 ("partially relevant" or
// better).
type Threshold struct {
	Offline, Model float64
}

// StandIn answers a request of a metric's scorer with the reply a
// cooperative model would give, valid for the request's schema, and the
// length in tokens (as count counts them) a dry run assumes the reply has.
// ok is false for a request the metric's scorer does not make. Its type is
// that of llm/dryrun.Replier.
type StandIn = func(req llm.Request, count func(string) int) (content string, tokensOut int, ok bool)

// Entry is one metric of a registry: everything Assay knows about it, so
// that no other code switches on its name.
type Entry struct {
	// Name is the metric's name in --metric, profiles, cards and results.
	Name string
	// Kind says whether its scorer calls a model (KindJudge) or never does
	// (KindHeuristic), or that it is a value inside another's score.
	Kind Kind
	// Dataset says that --metric takes it (assay judge, bench and agree):
	// it scores one sample of a RAG dataset from what such a sample
	// carries (query, answer, contexts, reference).
	Dataset bool
	// Profiles are the profile kinds ("report", "context", "daily") whose
	// scorers may name it.
	Profiles []string
	// Of names the metric whose score carries this value (KindValue).
	Of string
	// Needs is what it needs of a sample. Build's scorer, when it is a
	// Checker, says so itself; otherwise Registry.New makes it one from
	// Needs.
	Needs Needs
	// Threshold is its default pass threshold.
	Threshold Threshold
	// Build returns its scorer judging with m; m nil (or offline) is the
	// scorer's offline form. Nil for a KindValue.
	Build func(m Model) eval.Scorer
	// Label names it in a card's table ("Source quality"); empty: its name
	// with spaces for underscores, capitalised (Title). A scorer's row
	// shows its points of its maximum ("4.5/5"), a value's row the value.
	Label string
	// DryRun is its stand-in reply in a dry run, for a KindJudge. Nil: a
	// dry run answers its requests with the least instance their schema
	// allows (see llm/dryrun), which a scorer whose replies must say more
	// (one verdict per statement asked about) refuses.
	DryRun StandIn
	// Spec, when set, builds its scorer from a profile's scorer spec
	// (points table, bands, weights): the profile reader's own function,
	// of the type agent.SpecBuilder. Nil: a profile builds it with Build.
	Spec any
	// Version, when set, is a hash of its definition (a judge defined in
	// a judges file): a run records it in its configuration beside the
	// prompt versions, so that a changed definition is not resumed as the
	// same run and a comparison or trend across the change says so.
	Version string
	// ModelOnly says its scorer has no offline counterpart (a judge
	// defined in a judges file): a run without a model refuses it before
	// any work (Registry.CheckModel), never making up a score, and every
	// command checks a dataset against its needs before any call.
	ModelOnly bool
	// Ready, when set, says whether its scorer can judge with the model m
	// (answer relevancy compares embeddings: a model without an embedding
	// model cannot): an input error naming what to do, asked before any
	// work (Registry.CheckModel), so that a run stops before it writes a
	// folder rather than at its first record.
	Ready func(m Model) error
	// Repair, when set, is its repair action in the research loop, run
	// when a card's fix names it: the research workflow's own function,
	// of an unexported type of package agent. Nil: the loop re-runs the
	// stages the fix names and nothing more.
	Repair any
}

// CallsModel reports whether its scorer calls the model when it has one
// that is not offline: its score is then labelled with the model (Method)
// and a dry run counts its calls.
func (e Entry) CallsModel() bool { return e.Kind == KindJudge }

// Title is the label of its row in a card: Label, or the name with spaces
// for underscores, capitalised ("Source relevance").
func (e Entry) Title() string {
	if e.Label != "" {
		return e.Label
	}
	return Title(e.Name)
}

// Title is a metric name as a label: spaces for underscores, capitalised
// ("source_relevance" is "Source relevance").
func Title(name string) string {
	t := strings.ReplaceAll(name, "_", " ")
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// check reports what makes e no valid entry, or nil.
func (e Entry) check() error {
	switch {
	case e.Name == "":
		return errors.New("a metric needs a name")
	case e.Kind == 0 || e.Kind > KindValue:
		return fmt.Errorf("metric %s needs a Kind", e.Name)
	case e.Kind == KindValue && e.Build != nil:
		return fmt.Errorf("metric %s is a value: it has no Build function", e.Name)
	case e.Kind == KindValue && e.Of == "":
		return fmt.Errorf("metric %s is a value: Of must name the metric whose score carries it", e.Name)
	case e.Kind == KindValue && e.Dataset:
		return fmt.Errorf("metric %s is a value: --metric cannot take it", e.Name)
	case e.Kind != KindValue && e.Build == nil:
		return fmt.Errorf("metric %s needs a Build function", e.Name)
	case e.Kind != KindJudge && e.DryRun != nil:
		return fmt.Errorf("metric %s calls no model: it has no dry-run reply", e.Name)
	case e.Kind != KindJudge && e.ModelOnly:
		return fmt.Errorf("metric %s calls no model: it cannot need one", e.Name)
	}
	return nil
}
