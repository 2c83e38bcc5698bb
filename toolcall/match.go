package toolcall

import (
	"fmt"
	"slices"

	"github.com/assaylabs/assay/eval"
)

// call is a tool call as the metrics compare it: an expected one or one
// the conversation made.
type call struct {
	name string
	// args are the decoded arguments; nil for an expected call that
	// accepts any, or for a made call whose arguments are no JSON object
	// (bad says why).
	args map[string]any
	bad  string
	text string // the arguments as given, for messages
	// group is, for a made call, the index of the assistant message that
	// made it: the calls of one message ran in parallel. For an expected
	// call it is its own index.
	group int
	// id is a made call's ID, which its result names.
	id string
}

func (c call) String() string {
	if c.text == "" && c.args == nil && c.bad == "" {
		return c.name + "(…)" // an expected call that accepts any arguments
	}
	return c.name + "(" + c.text + ")"
}

// made returns the calls of the conversation's assistant messages, in
// order.
func made(msgs []eval.Message) []call {
	var out []call
	for i, m := range msgs {
		if m.Role != eval.RoleAssistant {
			continue
		}
		for _, tc := range m.ToolCalls {
			c := call{name: tc.Function.Name, text: tc.Function.Arguments, group: i, id: tc.ID}
			args, err := Arguments(tc.Function.Arguments)
			if err != nil {
				c.bad = err.Error()
			} else {
				c.args = args
			}
			out = append(out, c)
		}
	}
	return out
}

// expected returns the sample's expected calls. Arguments that are no
// JSON object are an input error naming the field.
func expected(exp []eval.ExpectedToolCall) ([]call, error) {
	out := make([]call, 0, len(exp))
	for i, e := range exp {
		c := call{name: e.Name, group: i}
		if e.Arguments != nil {
			c.text = string(e.Arguments)
			args, err := Arguments(c.text)
			if err != nil {
				return nil, &eval.InputError{Field: fmt.Sprintf("expected_tool_calls[%d].arguments", i), Msg: err.Error()}
			}
			c.args = args
		}
		out = append(out, c)
	}
	return out, nil
}

// How well a made call fits an expected one.
const (
	noFit   = 0
	nameFit = 1 // the same tool, other arguments
	fullFit = 2 // the same tool and arguments
)

func fit(e, a call) int {
	switch {
	case e.name != a.name:
		return noFit
	case a.bad != "":
		return nameFit
	case e.args == nil && e.text == "": // any arguments
		return fullFit
	case Equal(e.args, a.args):
		return fullFit
	}
	return nameFit
}

// same reports whether two made calls are the same call: the same tool
// with the same arguments.
func same(a, b call) bool {
	if a.name != b.name {
		return false
	}
	if a.bad != "" || b.bad != "" {
		return a.bad != "" && b.bad != "" && a.text == b.text
	}
	return Equal(a.args, b.args)
}

// matching pairs expected calls with made ones, each used at most once.
type matching struct {
	exp, act []call
	// of[i] is the index in act of the call matched with exp[i], -1 for
	// none; level[i] its fit.
	of    []int
	level []int
}

// full is the number of expected calls matched with the same tool and
// arguments.
func (m matching) full() int { return m.count(fullFit) }

func (m matching) count(level int) int {
	n := 0
	for i, j := range m.of {
		if j >= 0 && m.level[i] == level {
			n++
		}
	}
	return n
}

// credit is one for each call matched in full and one half for each
// matched by name alone (a wrong argument).
func (m matching) credit() float64 {
	return float64(m.full()) + 0.5*float64(m.count(nameFit))
}

// unmatched returns the indices of the made calls matched with nothing.
func (m matching) unmatched() []int {
	used := make([]bool, len(m.act))
	for _, j := range m.of {
		if j >= 0 {
			used[j] = true
		}
	}
	var out []int
	for j, u := range used {
		if !u {
			out = append(out, j)
		}
	}
	return out
}

func newMatching(exp, act []call) matching {
	m := matching{exp: exp, act: act, of: make([]int, len(exp)), level: make([]int, len(exp))}
	for i := range m.of {
		m.of[i] = -1
	}
	return m
}

// anyOrder matches calls whatever their order, as many in full as can be
// and then as many more by name (minLevel fullFit: in full only). The
// expected calls with arguments are matched first, then those that accept
// any: each pass pairs calls that are equal under an equivalence (the
// same tool and arguments, the same tool), so taking the first free
// partner is as good as any.
func anyOrder(exp, act []call, minLevel int) matching {
	m := newMatching(exp, act)
	used := make([]bool, len(act))
	pass := func(level int, pick func(call) bool) {
		for i, e := range exp {
			if m.of[i] >= 0 || !pick(e) {
				continue
			}
			for j, a := range act {
				if !used[j] && fit(e, a) >= level {
					m.of[i], m.level[i], used[j] = j, fit(e, a), true
					break
				}
			}
		}
	}
	withArgs := func(e call) bool { return e.args != nil || e.text != "" }
	pass(fullFit, withArgs)
	pass(fullFit, func(e call) bool { return !withArgs(e) })
	if minLevel <= nameFit {
		pass(nameFit, func(call) bool { return true })
	}
	return m
}

// inOrder matches calls keeping their order, the most credit a common
// subsequence of the two lists can have (a full fit worth two, a fit by
// name one; minLevel fullFit counts full fits only), and of equal credit
// the most full fits. The calls of one
// assistant message ran in parallel, so their order among themselves is
// not the conversation's: they are first put in the order of the
// expected calls they fit.
func inOrder(exp, act []call, minLevel int) matching {
	act = parallelInOrder(exp, act)
	n, k := len(exp), len(act)
	// A full fit weighs two units of t and a fit by name one, plus one
	// for a full fit: t exceeds any number of full fits, so the most
	// credit wins and, of equal credit, the most full fits.
	t := n + k + 1
	weight := func(i, j int) int {
		switch f := fit(exp[i], act[j]); {
		case f < minLevel:
			return 0
		case f == fullFit:
			return 2*t + 1
		default:
			return t
		}
	}
	best := make([][]int, n+1)
	for i := range best {
		best[i] = make([]int, k+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := k - 1; j >= 0; j-- {
			b := max(best[i+1][j], best[i][j+1])
			if w := weight(i, j); w > 0 {
				b = max(b, w+best[i+1][j+1])
			}
			best[i][j] = b
		}
	}
	m := newMatching(exp, act)
	for i, j := 0, 0; i < n && j < k; {
		w := weight(i, j)
		switch {
		case w > 0 && best[i][j] == w+best[i+1][j+1]:
			m.of[i], m.level[i] = j, fit(exp[i], act[j])
			i++
			j++
		case best[i][j] == best[i+1][j]:
			i++
		default:
			j++
		}
	}
	return m
}

// parallelInOrder returns act with the calls of each assistant message
// sorted by the first expected call each fits (in full, else by name),
// those that fit none last, keeping their order otherwise.
func parallelInOrder(exp, act []call) []call {
	out := slices.Clone(act)
	rank := func(a call) int {
		r := len(exp) * 2
		for i, e := range exp {
			switch fit(e, a) {
			case fullFit:
				return i
			case nameFit:
				r = min(r, len(exp)+i)
			}
		}
		return r
	}
	for start := 0; start < len(out); {
		end := start + 1
		for end < len(out) && out[end].group == out[start].group {
			end++
		}
		slices.SortStableFunc(out[start:end], func(a, b call) int { return rank(a) - rank(b) })
		start = end
	}
	return out
}
