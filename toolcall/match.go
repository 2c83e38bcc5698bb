package toolcall

import (
	"fmt"

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
	// key is argsKey(args) when args are set: two calls' arguments are
	// Equal exactly when their keys are the same.
	key  string
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
				c.args, c.key = args, argsKey(args)
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
			c.args, c.key = args, argsKey(args)
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
	case e.key == a.key: // Equal(e.args, a.args)
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
	return a.key == b.key // Equal(a.args, b.args)
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
