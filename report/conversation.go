package report

import (
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
)

// How much of a sample's conversation report.html holds, in bytes: each
// message's text, each call's arguments and result cut to their bounds,
// and the messages and calls in order until MaxConversation is spent
// (the rest counted); expected calls past MaxExpected are counted too. A
// conversation thus adds at most 7 KB of text to the page (before
// escaping), and the marks on it as much as its evidence.
const (
	MaxConversation = 5000
	MaxTurnText     = 500
	MaxArguments    = 250
	MaxResult       = 300
	MaxExpected     = 8
)

// Conversation is a sample's conversation as report.html shows it: its
// messages in order, each assistant message's tool calls with their
// arguments and the result joined to each (the tool message whose
// tool_call_id names it), and the calls the sample expects.
type Conversation struct {
	Turns []Turn
	// MoreTurns is how many messages past MaxConversation are left out.
	MoreTurns int
	Expected  []ExpectedCall
	// MoreExpected is how many expected calls past MaxExpected are left
	// out.
	MoreExpected int
	// Ordered is the sample's ordered: the expected calls' order counts.
	Ordered bool
	// NotEvaluable says why the conversation cannot be judged (spans
	// without message content), when it cannot.
	NotEvaluable string
}

// Turn is one message of a conversation. N is its place among the
// sample's messages, from 1, as the conversation judges number turns.
type Turn struct {
	N    int
	Role string
	Text Text
	// Calls are an assistant message's tool calls; MoreCalls is how many
	// more it made that MaxConversation leaves out.
	Calls     []Call
	MoreCalls int
	// Tool names the tool of a tool message shown on its own (its call
	// not among the shown ones); Failed says its result is an error.
	Tool   string
	Failed bool
}

// Call is one tool call an assistant message made. N is its place among
// all the calls the conversation made, from 1, as the tool call metrics
// number them.
type Call struct {
	N         int
	ID        string
	Name      string
	Arguments Text
	// Result is the text of the tool message joined to the call, nil
	// when the conversation has none; Failed says it is an error.
	Result *Text
	Failed bool
	// key is the hash of the call as the metrics' evidence names it,
	// name(arguments) with the arguments whole (callKey).
	key uint64
}

// ExpectedCall is one call the sample expects, N its place from 1.
// Any is true when it accepts any arguments.
type ExpectedCall struct {
	N         int
	Name      string
	Arguments Text
	Any       bool
}

// callKey hashes a made call as package toolcall names it in its
// evidence: name(arguments).
func callKey(name, args string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name + "(" + args + ")"))
	return h.Sum64()
}

// newConversation is s's conversation cut to its bounds, nil when s has
// none.
func newConversation(s eval.Sample) *Conversation {
	if len(s.Messages) == 0 && len(s.ExpectedToolCalls) == 0 && s.NotEvaluable == "" {
		return nil
	}
	c := &Conversation{Ordered: s.Ordered, NotEvaluable: cutText(s.NotEvaluable, MaxTurnText).Text}
	// The first tool message naming each call ID is its result, as
	// tool_call_errors reads it.
	results := map[string]int{}
	for i, m := range s.Messages {
		if _, seen := results[m.ToolCallID]; m.Role == eval.RoleTool && m.ToolCallID != "" && !seen {
			results[m.ToolCallID] = i
		}
	}
	joined := map[int]bool{}
	spent, calls := 0, 0
	for i, m := range s.Messages {
		if joined[i] {
			continue
		}
		t := Turn{N: i + 1, Role: m.Role, Text: cutText(m.Content, MaxTurnText)}
		if m.Role == eval.RoleTool {
			t.Tool, t.Failed = cutText(m.Name, 200).Text, m.Failed()
		}
		cost := len(t.Text.Text) + len(t.Tool)
		if len(c.Turns) > 0 && spent+cost > MaxConversation {
			for k := i; k < len(s.Messages); k++ {
				if !joined[k] {
					c.MoreTurns++
				}
			}
			break
		}
		spent += cost
		// Each call with its result, while the budget lasts; the calls
		// past it are counted, their results left to show on their own.
		for _, tc := range m.ToolCalls {
			calls++
			call := Call{N: calls, ID: tc.ID, Name: cutText(tc.Function.Name, 200).Text, Arguments: cutText(tc.Function.Arguments, MaxArguments),
				key: callKey(tc.Function.Name, tc.Function.Arguments)}
			cost := len(call.Name) + len(call.Arguments.Text)
			j, ok := results[tc.ID]
			ok = ok && tc.ID != "" && j > i && !joined[j]
			var r Text
			if ok {
				r = cutText(s.Messages[j].Content, MaxResult)
				cost += len(r.Text)
			}
			if spent+cost > MaxConversation {
				t.MoreCalls++
				continue
			}
			spent += cost
			if ok {
				call.Result, call.Failed = &r, s.Messages[j].Failed()
				joined[j] = true
			}
			t.Calls = append(t.Calls, call)
		}
		c.Turns = append(c.Turns, t)
	}
	for i, e := range s.ExpectedToolCalls {
		if i == MaxExpected {
			c.MoreExpected = len(s.ExpectedToolCalls) - i
			break
		}
		c.Expected = append(c.Expected, ExpectedCall{N: i + 1, Name: cutText(e.Name, 200).Text,
			Arguments: cutText(string(e.Arguments), MaxArguments), Any: e.Arguments == nil})
	}
	return c
}

// firstUser is the text of the conversation's first user message, "".
func (c *Conversation) firstUser() string {
	for _, t := range c.Turns {
		if t.Role == eval.RoleUser && t.Text.Text != "" {
			return t.Text.Text
		}
	}
	return ""
}

// Kinds of the marks report.html puts on a conversation where a metric
// lost points.
const (
	markTurn      = "failed turn" // a turn a judge failed
	markMissing   = "missing"     // an expected call not made
	markWrongArgs = "wrong args"  // a call made with other arguments
	markExtra     = "extra"       // a call made, not expected
	markDuplicate = "duplicate"   // a call repeating an earlier one
	markFailed    = "error"       // a call whose result is an error
)

// mark is where one metric lost points on a turn or a call, and why.
type mark struct {
	Metric, Kind, Note string
}

// convView is a conversation with each metric's marks on its turns and
// calls.
type convView struct {
	*Conversation
	Turns    []turnView
	Expected []expectedView
	// Marked counts the marks placed, on turns, calls and expected
	// calls.
	Marked int
}

type turnView struct {
	Turn
	Calls []callView
	Marks []mark
}

type callView struct {
	Call
	Marks []mark
}

type expectedView struct {
	ExpectedCall
	Marks []mark
}

// The forms of the evidence (Evidence.Issues) of package toolcall's
// metrics and of the conversation judges that name a turn or a call.
var issueForms = sync.OnceValue(func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		markTurn:      regexp.MustCompile(`(?s)^turn (\d+): (.*)$`),
		markMissing:   regexp.MustCompile(`(?s)^missing call (\d+): (.*)$`),
		markWrongArgs: regexp.MustCompile(`(?s)^wrong arguments in call (\d+), (.*)$`),
		markExtra:     regexp.MustCompile(`(?s)^extra call: (.*)$`),
		markDuplicate: regexp.MustCompile(`(?s)^duplicated call: (.*) repeats an earlier call$`),
		"again":       regexp.MustCompile(`(?s)^duplicated call: (.*) is made again later$`),
		"repeats":     regexp.MustCompile(`(?s)^call (\d+) repeats call (\d+): (.*)$`),
		markFailed:    regexp.MustCompile(`(?s)^(.*\)) failed: (.*)$`),
	}
})

// newConvView places on c's turns, calls and expected calls the marks of
// results: where each metric lost points, as its evidence names it. A
// mark whose turn or call the page leaves out is not placed (the
// metric's evidence below still says it).
func newConvView(c *Conversation, results []resultView) *convView {
	v := &convView{Conversation: c}
	for _, t := range c.Turns {
		tv := turnView{Turn: t}
		for _, call := range t.Calls {
			tv.Calls = append(tv.Calls, callView{Call: call})
		}
		v.Turns = append(v.Turns, tv)
	}
	for _, e := range c.Expected {
		v.Expected = append(v.Expected, expectedView{ExpectedCall: e})
	}
	for _, r := range results {
		if r.Defaulted || r.Skipped {
			continue
		}
		taken := map[*callView]bool{} // calls this metric already marked
		for _, is := range r.Evidence.Issues {
			v.place(r.Metric, is, taken)
		}
	}
	clipNotes := func(ms []mark) {
		for i := range ms {
			ms[i].Note = clip(ms[i].Note)
		}
	}
	for _, t := range v.Turns {
		v.Marked += len(t.Marks)
		clipNotes(t.Marks)
		for _, c := range t.Calls {
			v.Marked += len(c.Marks)
			clipNotes(c.Marks)
		}
	}
	for _, e := range v.Expected {
		v.Marked += len(e.Marks)
		clipNotes(e.Marks)
	}
	return v
}

// place puts the mark of one issue of metric where it belongs; false when
// the issue names no turn or call the page shows.
func (v *convView) place(metric, issue string, taken map[*callView]bool) bool {
	f := issueForms()
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if m := f[markTurn].FindStringSubmatch(issue); m != nil {
		for i := range v.Turns {
			if v.Turns[i].N == atoi(m[1]) {
				v.Turns[i].Marks = append(v.Turns[i].Marks, mark{metric, markTurn, m[2]})
				return true
			}
		}
		return false
	}
	if m := f[markMissing].FindStringSubmatch(issue); m != nil {
		return v.markExpected(atoi(m[1]), mark{metric, markMissing, "not made"})
	}
	if m := f[markWrongArgs].FindStringSubmatch(issue); m != nil {
		// "wrong arguments in call N, name(args): why": the call made is
		// the longest prefix of the rest, up to a "): ", that is one.
		rest := m[2]
		placed := false
		for i := len(rest); i > 0; {
			i = strings.LastIndex(rest[:i], "): ")
			if i < 0 {
				break
			}
			if c := v.call(rest[:i+1], false, taken); c != nil {
				c.Marks = append(c.Marks, mark{metric, markWrongArgs, strings.TrimSpace(rest[i+3:]) + " (expected call " + m[1] + ")"})
				taken[c] = true
				placed = true
				break
			}
		}
		return v.markExpected(atoi(m[1]), mark{metric, markWrongArgs, "made with other arguments"}) || placed
	}
	if m := f[markExtra].FindStringSubmatch(issue); m != nil {
		return v.markCall(v.call(m[1], false, taken), mark{metric, markExtra, "not expected"}, taken)
	}
	if m := f[markDuplicate].FindStringSubmatch(issue); m != nil {
		return v.markCall(v.call(m[1], true, taken), mark{metric, markDuplicate, "repeats an earlier call"}, taken)
	}
	if m := f["again"].FindStringSubmatch(issue); m != nil {
		// In order the later of two same calls was matched: the first
		// not taken is the duplicate.
		return v.markCall(v.call(m[1], false, taken), mark{metric, markDuplicate, "made again later"}, taken)
	}
	if m := f["repeats"].FindStringSubmatch(issue); m != nil {
		n := atoi(m[1])
		for i := range v.Turns {
			for j := range v.Turns[i].Calls {
				if c := &v.Turns[i].Calls[j]; c.N == n {
					return v.markCall(c, mark{metric, markDuplicate, "repeats call " + m[2]}, taken)
				}
			}
		}
		return false
	}
	if m := f[markFailed].FindStringSubmatch(issue); m != nil {
		return v.markCall(v.call(m[1], false, taken), mark{metric, markFailed, "its result is an error"}, taken)
	}
	return false
}

func (v *convView) markExpected(n int, mk mark) bool {
	for i := range v.Expected {
		if v.Expected[i].N == n {
			v.Expected[i].Marks = append(v.Expected[i].Marks, mk)
			return true
		}
	}
	return false
}

func (v *convView) markCall(c *callView, mk mark, taken map[*callView]bool) bool {
	if c == nil {
		return false
	}
	c.Marks = append(c.Marks, mk)
	taken[c] = true
	return true
}

// call finds the shown call made that the evidence names as text
// (name(arguments)) and the metric has not marked yet: the first, or
// with last the last (a repeat names the later call; an earlier one of
// the same text, or of the same arguments written another way, is what
// it repeats). nil when none.
func (v *convView) call(text string, last bool, taken map[*callView]bool) *callView {
	i := strings.IndexByte(text, '(')
	if i < 0 || !strings.HasSuffix(text, ")") {
		return nil
	}
	key := callKey(text[:i], text[i+1:len(text)-1])
	var found *callView
	for i := range v.Turns {
		for j := range v.Turns[i].Calls {
			c := &v.Turns[i].Calls[j]
			if c.key != key || taken[c] {
				continue
			}
			if !last {
				return c
			}
			found = c
		}
	}
	return found
}
