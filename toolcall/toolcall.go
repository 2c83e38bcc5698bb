// Package toolcall scores the tools an agent called against the calls a
// sample expects, and the calls themselves: deterministic, offline, the
// same on every run. Each metric is a registry entry (AddBuiltins) that
// assay judge, bench, agree and serve take by name.
//
//   - tool_call_accuracy: each expected call matched by a made call with
//     the same tool and arguments (1), or the same tool and other
//     arguments (1/2); the credit over the larger of the number expected
//     and the number made, so that a missing call, an extra call, a
//     duplicated call and a wrong argument each lower it. With the
//     sample's ordered true, the calls are matched in order.
//   - tool_call_f1: precision (made calls that were expected) and recall
//     (expected calls that were made), matched with the same tool and
//     arguments, and their harmonic mean.
//   - trajectory_match: 1 when the made calls are the expected ones in
//     the sense of a mode (Mode), else 0.
//   - tool_call_errors: the share of made calls whose result is no error.
//   - tool_call_loops: the share of made calls that do not repeat an
//     earlier one (the same tool with the same arguments).
//
// Arguments are compared as JSON values (Equal): the order of an object's
// keys does not matter, numbers compare by value (1 is 1.0), a string is
// never a number ("5" is not 5), and objects and arrays compare deeply.
// An expected call without arguments accepts any; one with {} expects
// none. Nothing expected and nothing made scores 1 on every metric. The
// calls one assistant message made ran in parallel: their order among
// themselves never counts.
//
// A sample without messages is skipped (eval.ErrNoConversation), and one
// assembled from spans without message content is skipped as not
// evaluable (eval.ErrNotEvaluable): neither is ever a value.
package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/metric"
)

// Metric names.
const (
	MetricAccuracy   = "tool_call_accuracy"
	MetricF1         = "tool_call_f1"
	MetricTrajectory = "trajectory_match"
	MetricErrors     = "tool_call_errors"
	MetricLoops      = "tool_call_loops"
)

// Method labels the scores of this package: deterministic and exact, not
// an approximation of a judge.
const Method = "deterministic"

// Mode is how trajectory_match compares the made calls with the expected
// ones (each call compared by tool and arguments).
type Mode string

// Modes of trajectory_match.
const (
	// ModeExact: the same calls in the same order, none more.
	ModeExact Mode = "exact"
	// ModeInOrder: the expected calls in their order, others between
	// them allowed.
	ModeInOrder Mode = "in_order"
	// ModeAnyOrder: the same calls, as many of each, in any order.
	ModeAnyOrder Mode = "any_order"
	// ModeSubset: every made call is an expected one (some may be
	// missing).
	ModeSubset Mode = "subset"
	// ModeSuperset: every expected call is made (others may be too).
	ModeSuperset Mode = "superset"
)

// modes lists the modes of trajectory_match.
var modes = [...]Mode{ModeExact, ModeInOrder, ModeAnyOrder, ModeSubset, ModeSuperset}

// ModeField is the sample's metadata field that sets trajectory_match's
// mode for that sample, when the scorer's Mode is not set.
const ModeField = "trajectory_mode"

// AddBuiltins adds the metrics of this package to r; --metric takes them
// all.
func AddBuiltins(r *metric.Registry) error {
	entries := []metric.Entry{
		{Name: MetricAccuracy, Label: "Tool call accuracy", Threshold: metric.Threshold{Offline: 0.75, Model: 0.75},
			Build: func(metric.Model) eval.Scorer { return Accuracy{} }},
		{Name: MetricF1, Label: "Tool call F1", Threshold: metric.Threshold{Offline: 0.75, Model: 0.75},
			Build: func(metric.Model) eval.Scorer { return F1{} }},
		{Name: MetricTrajectory, Label: "Trajectory match", Threshold: metric.Threshold{Offline: 1, Model: 1},
			Build: func(metric.Model) eval.Scorer { return Trajectory{} }},
		{Name: MetricErrors, Label: "Tool calls without error", Threshold: metric.Threshold{Offline: 1, Model: 1},
			Build: func(metric.Model) eval.Scorer { return Errors{} }},
		{Name: MetricLoops, Label: "Tool calls not repeated", Threshold: metric.Threshold{Offline: 1, Model: 1},
			Build: func(metric.Model) eval.Scorer { return Loops{} }},
	}
	for _, e := range entries {
		e.Kind, e.Dataset = metric.KindHeuristic, true
		if err := r.Add(e); err != nil {
			return fmt.Errorf("toolcall: %w", err)
		}
	}
	return nil
}

var (
	_ eval.Scorer    = Accuracy{}
	_ metric.Checker = Accuracy{}
	_ eval.Scorer    = F1{}
	_ metric.Checker = F1{}
	_ eval.Scorer    = Trajectory{}
	_ metric.Checker = Trajectory{}
	_ eval.Scorer    = Errors{}
	_ eval.Scorer    = Loops{}
)

// expects is the input error of a conversation that a metric comparing
// the calls made with the expected ones (accuracy, F1, trajectory) would
// compare with nothing: it has no expected_tool_calls at all. Scored, it
// was 0 whatever the calls ("0 of 0 expected"), a misread a dataset's
// check pass now refuses before any work; [] expects no call, and a
// sample without a conversation is skipped, as before.
func expects(metric string, s eval.Sample) error {
	if s.ExpectedToolCalls != nil || len(s.Messages) == 0 || s.NotEvaluable != "" {
		return nil
	}
	return &eval.InputError{Field: "expected_tool_calls", Msg: "missing: " + metric +
		" compares the calls made with the ones expected; give the calls the conversation should make, or [] when it should make none"}
}

// skipped returns the skipped score of a sample without a conversation
// to judge, and true; or false when s has one.
func skipped(name string, s eval.Sample) (eval.Score, bool) {
	var err error
	var reason string
	switch {
	case s.NotEvaluable != "":
		err, reason = eval.ErrNotEvaluable, eval.NotEvaluableReason(s.NotEvaluable)
	case len(s.Messages) == 0:
		err, reason = eval.ErrNoConversation, "skipped: "+eval.ErrNoConversation.Error()
	default:
		return eval.Score{}, false
	}
	return eval.Score{Metric: name, Method: Method, Skipped: true, Reason: reason, Err: err}, true
}

// compared is a sample's made and expected calls, matched.
type compared struct {
	exp, act []call
	m        matching // as the metric matches them
	// minLevel is the least fit the metric counts (fullFit: in full only).
	minLevel int
}

func compare(s eval.Sample, ordered bool, minLevel int) (compared, error) {
	exp, err := expected(s.ExpectedToolCalls)
	if err != nil {
		return compared{}, err
	}
	act := made(s.Messages)
	c := compared{exp: exp, act: act, minLevel: minLevel}
	if ordered {
		c.m = inOrder(exp, act, minLevel)
		c.act = c.m.act // in the order matched
	} else {
		c.m = anyOrder(exp, act, minLevel)
	}
	return c, nil
}

// issues says where the calls lost points: expected calls missing or
// made with other arguments, calls made that were not expected or that
// repeat an earlier one, and in order, calls out of order.
func (c compared) issues(ordered bool) []string {
	var out []string
	for i, j := range c.m.of {
		e := c.exp[i]
		switch {
		case j < 0:
			out = append(out, fmt.Sprintf("missing call %d: %s", i+1, e))
		case c.m.level[i] == nameFit:
			a := c.act[j]
			why := a.bad
			if why == "" {
				why = "arguments." + Diff(e.args, a.args)
			}
			// The call made is named whole, so that a reader (report.html)
			// can tell which of several calls of one tool it was.
			out = append(out, fmt.Sprintf("wrong arguments in call %d, %s: %s", i+1, a, why))
		}
	}
	for _, j := range c.m.unmatched() {
		a := c.act[j]
		// In order the later of two same calls may be the one matched:
		// the earlier is then the duplicate, not a call never asked for.
		switch {
		case repeats(c.act, j) >= 0:
			out = append(out, fmt.Sprintf("duplicated call: %s repeats an earlier call", a))
		case slices.ContainsFunc(c.act[j+1:], func(b call) bool { return same(a, b) }):
			out = append(out, fmt.Sprintf("duplicated call: %s is made again later", a))
		default:
			out = append(out, "extra call: "+a.String())
		}
	}
	if ordered {
		// Matched free of order at the metric's own level: a fit by name
		// that the metric does not count is no call out of order.
		if free := anyOrder(c.exp, c.act, c.minLevel); free.credit() > c.m.credit() {
			out = append(out, "calls out of order: the sample's calls are ordered")
		}
	}
	return out
}

// repeats returns the index of the first call before j that is the same
// call as act[j], or -1.
func repeats(act []call, j int) int {
	for k := range j {
		if same(act[k], act[j]) {
			return k
		}
	}
	return -1
}

// counts are the numbers behind every score of this package.
func (c compared) counts() map[string]float64 {
	return map[string]float64{
		"expected":        float64(len(c.exp)),
		"called":          float64(len(c.act)),
		"matched":         float64(c.m.full()),
		"wrong_arguments": float64(c.m.count(nameFit)),
	}
}

// Accuracy is tool_call_accuracy: each expected call matched by a made
// one, in full (1) or by tool alone (1/2), the credit over the larger of
// the number expected and the number made. Nothing expected and nothing
// made is 1. The sample's Ordered matches the calls in order.
type Accuracy struct{}

// Score implements eval.Scorer.
// Check implements metric.Checker: the sample says which calls it expects
// (expects).
func (Accuracy) Check(s eval.Sample) error { return expects(MetricAccuracy, s) }

func (Accuracy) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	if sc, ok := skipped(MetricAccuracy, s); ok {
		return sc, nil
	}
	c, err := compare(s, s.Ordered, nameFit)
	if err != nil {
		return eval.Score{}, err
	}
	n := max(len(c.exp), len(c.act))
	sc := eval.Score{Metric: MetricAccuracy, Method: Method, Value: 1, Points: 1, Max: 1,
		Evidence: eval.Evidence{Issues: c.issues(s.Ordered), Counts: c.counts()}}
	if n > 0 {
		sc.Points, sc.Max = c.m.credit(), float64(n)
		sc.Value = sc.Points / sc.Max
	}
	sc.Reason = fmt.Sprintf("%d of %s made as expected, %d with other arguments; %s made",
		c.m.full(), plural.Count(len(c.exp), "expected call"), c.m.count(nameFit), plural.Count(len(c.act), "call"))
	if len(c.exp) == 0 && len(c.act) == 0 {
		sc.Reason = "no call expected and none made"
	}
	return sc, nil
}

// F1 is tool_call_f1: precision (made calls that were expected) and
// recall (expected calls that were made), each call matched with the
// same tool and arguments, and their harmonic mean. Nothing expected and
// nothing made is 1. The sample's Ordered matches the calls in order.
type F1 struct{}

// Score implements eval.Scorer.
// Check implements metric.Checker: the sample says which calls it expects
// (expects).
func (F1) Check(s eval.Sample) error { return expects(MetricF1, s) }

func (F1) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	if sc, ok := skipped(MetricF1, s); ok {
		return sc, nil
	}
	c, err := compare(s, s.Ordered, fullFit)
	if err != nil {
		return eval.Score{}, err
	}
	k := float64(c.m.full())
	p, r := 1.0, 1.0
	if len(c.act) > 0 {
		p = k / float64(len(c.act))
	}
	if len(c.exp) > 0 {
		r = k / float64(len(c.exp))
	}
	if len(c.act) == 0 && len(c.exp) > 0 {
		p = 0 // nothing made of what was expected: no precision to speak of
	}
	if len(c.exp) == 0 && len(c.act) > 0 {
		r = 0
	}
	f := 0.0
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	counts := c.counts()
	counts["precision"], counts["recall"] = p, r
	return eval.Score{Metric: MetricF1, Method: Method, Value: f, Points: f, Max: 1,
		Reason: fmt.Sprintf("precision %.2f (%d of %s made %s expected), recall %.2f (%d of %d expected %s made)",
			p, int(k), plural.Count(len(c.act), "call"), plural.Verb(int(k), "was", "were"), r, int(k), len(c.exp), plural.Verb(int(k), "was", "were")),
		Evidence: eval.Evidence{Issues: c.issues(s.Ordered), Counts: counts}}, nil
}

// Trajectory is trajectory_match: 1 when the made calls are the expected
// ones in the sense of Mode, each compared by tool and arguments, else 0.
//
// Mode "" takes the sample's metadata field trajectory_mode, and without
// it ModeExact when the sample is Ordered and ModeAnyOrder when not.
type Trajectory struct {
	Mode Mode
}

// Check implements metric.Checker: the sample's trajectory_mode, when
// given, is a mode, and the sample says which calls it expects (expects).
func (t Trajectory) Check(s eval.Sample) error {
	if _, err := t.mode(s); err != nil {
		return err
	}
	return expects(MetricTrajectory, s)
}

func (t Trajectory) mode(s eval.Sample) (Mode, error) {
	if t.Mode != "" {
		if !validMode(t.Mode) {
			return "", fmt.Errorf("trajectory_match: unknown mode %q (want %s)", t.Mode, modeList())
		}
		return t.Mode, nil
	}
	if v, ok := s.Metadata[ModeField]; ok && v != nil {
		m, isString := v.(string)
		if !isString || !validMode(Mode(m)) {
			got, _ := json.Marshal(v) // as the record wrote it: a string quoted
			return "", &eval.InputError{Field: "metadata." + ModeField, Msg: fmt.Sprintf("want one of %s, got %s", modeList(), got)}
		}
		return Mode(m), nil
	}
	if s.Ordered {
		return ModeExact, nil
	}
	return ModeAnyOrder, nil
}

func validMode(m Mode) bool { return slices.Contains(modes[:], m) }

func modeList() string {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// Score implements eval.Scorer.
func (t Trajectory) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	mode, err := t.mode(s)
	if err != nil {
		return eval.Score{}, err
	}
	if sc, ok := skipped(MetricTrajectory, s); ok {
		return sc, nil
	}
	ordered := mode == ModeExact || mode == ModeInOrder
	c, err := compare(s, ordered, fullFit)
	if err != nil {
		return eval.Score{}, err
	}
	k, ne, na := c.m.full(), len(c.exp), len(c.act)
	var ok bool
	switch mode {
	case ModeExact, ModeAnyOrder:
		ok = k == ne && k == na
	case ModeInOrder, ModeSuperset:
		ok = k == ne
	case ModeSubset:
		ok = k == na
	}
	sc := eval.Score{Metric: MetricTrajectory, Method: Method, Max: 1, Evidence: eval.Evidence{Counts: c.counts()}}
	if ok {
		sc.Value, sc.Points = 1, 1
		sc.Reason = fmt.Sprintf("the %s made %s the %d expected (%s)", plural.Count(na, "call"), plural.Verb(na, "matches", "match"), ne, mode)
		return sc, nil
	}
	sc.Reason = fmt.Sprintf("the %s made %s not match the %d expected (%s)", plural.Count(na, "call"), plural.Verb(na, "does", "do"), ne, mode)
	for _, is := range c.issues(ordered) {
		// A mode that allows extra or missing calls does not lose for them.
		if mode == ModeInOrder || mode == ModeSuperset {
			if strings.HasPrefix(is, "extra call") || strings.HasPrefix(is, "duplicated call") {
				continue
			}
		}
		if mode == ModeSubset && strings.HasPrefix(is, "missing call") {
			continue
		}
		sc.Evidence.Issues = append(sc.Evidence.Issues, is)
	}
	return sc, nil
}

// Errors is tool_call_errors: the share of made calls whose result is no
// error, 1 when none was made. A result is an error when its message says
// so (Error, set from a span's error status) or its content starts with
// "error" or is a JSON object with an "error" member neither null nor
// false. A tool message answers the latest call of its ID not answered
// yet. A call without a result is counted (without_result) and not an
// error.
type Errors struct{}

// Score implements eval.Scorer.
func (Errors) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	if sc, ok := skipped(MetricErrors, s); ok {
		return sc, nil
	}
	act := made(s.Messages)
	results := answers(s.Messages, act)
	var errs, without int
	var issues []string
	for j, a := range act {
		r, ok := results[j]
		switch {
		case !ok:
			without++
		case r.Failed():
			errs++
			issues = append(issues, fmt.Sprintf("%s failed: %s", a, short(r.Content)))
		}
	}
	sc := eval.Score{Metric: MetricErrors, Method: Method, Value: 1, Points: 0, Max: float64(len(act)),
		Evidence: eval.Evidence{Issues: issues, Counts: map[string]float64{
			"called": float64(len(act)), "errors": float64(errs), "without_result": float64(without)}}}
	if len(act) > 0 {
		sc.Points = float64(len(act) - errs)
		sc.Value = sc.Points / sc.Max
	}
	sc.Reason = fmt.Sprintf("%d of %s failed; %d without a result", errs, plural.Count(len(act), "call"), without)
	return sc, nil
}

// answers pairs the made calls (act, as made returns them) with their
// results, by index in act. A tool message answers the latest call with
// its ID made before it and not answered yet, so that an ID used again
// in a later turn (some models number each turn's calls from 0) names
// that turn's call; a call left without one takes the first result with
// its ID that answers nothing else. A call without an ID has no result.
func answers(msgs []eval.Message, act []call) map[int]eval.Message {
	out := map[int]eval.Message{}
	pending := map[string][]int{} // call ID -> calls not answered, in order
	var spare []eval.Message      // results that answered no call before them
	next := 0
	for i, m := range msgs {
		for next < len(act) && act[next].group == i {
			if id := act[next].id; id != "" {
				pending[id] = append(pending[id], next)
			}
			next++
		}
		if m.Role != eval.RoleTool {
			continue
		}
		if p := pending[m.ToolCallID]; len(p) > 0 {
			out[p[len(p)-1]] = m
			pending[m.ToolCallID] = p[:len(p)-1]
			continue
		}
		spare = append(spare, m)
	}
	for j, a := range act {
		if _, ok := out[j]; ok || a.id == "" {
			continue
		}
		for k, m := range spare {
			if m.ToolCallID == a.id {
				out[j] = m
				spare = slices.Delete(spare, k, k+1)
				break
			}
		}
	}
	return out
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}

// Loops is tool_call_loops: the share of made calls that do not repeat
// an earlier call (the same tool with the same arguments), 1 when none
// was made. An agent that loops calls one tool with the same arguments
// again and again.
type Loops struct{}

// Score implements eval.Scorer.
func (Loops) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	if sc, ok := skipped(MetricLoops, s); ok {
		return sc, nil
	}
	act := made(s.Messages)
	var repeated int
	var issues []string
	for j := range act {
		if k := repeats(act, j); k >= 0 {
			repeated++
			issues = append(issues, fmt.Sprintf("call %d repeats call %d: %s", j+1, k+1, act[j]))
		}
	}
	sc := eval.Score{Metric: MetricLoops, Method: Method, Value: 1, Points: 0, Max: float64(len(act)),
		Evidence: eval.Evidence{Issues: issues, Counts: map[string]float64{"called": float64(len(act)), "repeated": float64(repeated)}}}
	if len(act) > 0 {
		sc.Points = float64(len(act) - repeated)
		sc.Value = sc.Points / sc.Max
	}
	sc.Reason = fmt.Sprintf("%d of %s %s an earlier one", repeated, plural.Count(len(act), "call"), plural.Verb(len(act), "repeats", "repeat"))
	return sc, nil
}
