package toolcall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/toolcall"
)

// call is one tool call with its ID, tool and arguments' text.
func call(id, tool, args string) eval.ToolCall {
	return eval.ToolCall{ID: id, Type: "function", Function: eval.ToolFunction{Name: tool, Arguments: args}}
}

// calling is an assistant message making the calls, in parallel.
func calling(calls ...eval.ToolCall) eval.Message {
	return eval.Message{Role: eval.RoleAssistant, ToolCalls: calls}
}

// result is the tool message answering the call id.
func result(id, text string) eval.Message {
	return eval.Message{Role: eval.RoleTool, ToolCallID: id, Content: text}
}

var ask = eval.Message{Role: eval.RoleUser, Content: "Find me a flat in Ghent and book a viewing."}

// TestOrderedIssuesAtTheMetricsLevel: a metric that counts full fits
// only (tool_call_f1, trajectory_match) does not say the calls are out
// of order when they are in order and only their arguments differ.
func TestOrderedIssuesAtTheMetricsLevel(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		scorer eval.Scorer
		sample eval.Sample
		value  float64
	}{
		"f1, one call with another argument": {
			scorer: toolcall.F1{},
			sample: eval.Sample{Messages: []eval.Message{ask, calling(call("c1", "listings", `{"town":"Gent"}`))},
				ExpectedToolCalls: want("listings", `{"town":"Ghent"}`), Ordered: true},
			value: 0},
		"exact trajectory, second call with another argument": {
			scorer: toolcall.Trajectory{Mode: toolcall.ModeExact},
			sample: eval.Sample{Messages: []eval.Message{ask, calling(call("c1", "listings", `{"town":"Ghent"}`)), calling(call("c2", "viewing", `{"flat":7}`))},
				ExpectedToolCalls: want("listings", `{"town":"Ghent"}`, "viewing", `{"flat":8}`), Ordered: true},
			value: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := tc.scorer.Score(context.Background(), tc.sample)
			require.NoError(t, err)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			for _, is := range sc.Evidence.Issues {
				assert.NotContains(t, is, "out of order")
			}
		})
	}
}

// TestErrorsPairResultsWithTheirTurn: a result answers the call of its
// own turn, even when a later turn uses the same call ID again, and a
// result given before its call still counts.
func TestErrorsPairResultsWithTheirTurn(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		msgs          []eval.Message
		value         float64
		errs, without float64
	}{
		"the same ID in two turns, the second fails": {
			msgs: []eval.Message{ask,
				calling(call("0", "listings", `{"town":"Ghent"}`)), result("0", `{"flats":[7,8]}`),
				calling(call("0", "viewing", `{"flat":7}`)), result("0", "Error: the agent's calendar is full")},
			value: 0.5, errs: 1},
		"the same ID in two turns, the first fails": {
			msgs: []eval.Message{ask,
				calling(call("0", "listings", `{"town":"Ghent"}`)), result("0", `{"error":"timeout"}`),
				calling(call("0", "listings", `{"town":"Ghent"}`)), result("0", `{"flats":[7]}`)},
			value: 0.5, errs: 1},
		"two parallel calls, results in reverse order": {
			msgs: []eval.Message{ask,
				calling(call("a", "listings", `{"town":"Ghent"}`), call("b", "listings", `{"town":"Bruges"}`)),
				result("b", "error: no such town"), result("a", `{"flats":[]}`)},
			value: 0.5, errs: 1},
		"one ID given to two calls, one result": {
			msgs: []eval.Message{ask,
				calling(call("x", "listings", `{"town":"Ghent"}`), call("x", "listings", `{"town":"Bruges"}`)),
				result("x", `{"flats":[]}`)},
			value: 1, without: 1},
		"a result before its call": {
			msgs:  []eval.Message{ask, result("r", "error: offline"), calling(call("r", "listings", `{}`))},
			value: 0, errs: 1},
		"a call without an ID": {
			msgs:  []eval.Message{ask, calling(call("", "listings", `{}`)), result("", "error: offline")},
			value: 1, without: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := toolcall.Errors{}.Score(context.Background(), eval.Sample{Messages: tc.msgs})
			require.NoError(t, err)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.InDelta(t, tc.errs, sc.Evidence.Counts["errors"], 1e-9)
			assert.InDelta(t, tc.without, sc.Evidence.Counts["without_result"], 1e-9)
		})
	}
}

// TestParallelCallsMatchAnyOrderWithinTheirMessage: with ordered
// expected calls, the calls of one assistant message match a run of the
// expected ones in any order among themselves, even when a tool is
// expected twice; the order between messages still counts.
func TestParallelCallsMatchAnyOrderWithinTheirMessage(t *testing.T) {
	t.Parallel()
	flat7, flat8 := `{"flat":7}`, `{"flat":8}`
	ghent := `{"town":"Ghent"}`
	tests := map[string]struct {
		msgs            []eval.Message
		want            []eval.ExpectedToolCall
		acc, f1         float64
		exact, inOrder  float64
		outOfOrderNamed bool
	}{
		"a tool expected twice, its second call made beside another": {
			msgs: []eval.Message{ask,
				calling(call("1", "listings", ghent)),
				calling(call("2", "viewing", flat7), call("3", "listings", ghent))},
			want: want("listings", ghent, "viewing", flat7, "listings", ghent),
			acc:  1, f1: 1, exact: 1, inOrder: 1},
		"two parallel calls given in reverse": {
			msgs: []eval.Message{ask, calling(call("1", "viewing", flat8), call("2", "viewing", flat7))},
			want: want("viewing", flat7, "viewing", flat8),
			acc:  1, f1: 1, exact: 1, inOrder: 1},
		"two messages in the wrong order": {
			msgs: []eval.Message{ask, calling(call("1", "viewing", flat7)), calling(call("2", "listings", ghent))},
			want: want("listings", ghent, "viewing", flat7),
			// one of the two kept in order: 1/2 each
			acc: 0.5, f1: 0.5, exact: 0, inOrder: 0, outOfOrderNamed: true},
		"a parallel pair between two turns, one argument off": {
			msgs: []eval.Message{ask,
				calling(call("1", "listings", ghent)),
				calling(call("2", "viewing", flat8), call("3", "listings", `{"town":"Gent"}`)),
				calling(call("4", "viewing", flat7))},
			want: want("listings", ghent, "listings", ghent, "viewing", flat8, "viewing", flat7),
			// 3 in full, 1 by name: (3 + 0.5) / 4; f1 3/4
			acc: 3.5 / 4, f1: 0.75, exact: 0, inOrder: 0},
		"an extra parallel call": {
			msgs: []eval.Message{ask, calling(call("1", "viewing", flat8), call("2", "listings", ghent), call("3", "viewing", flat7))},
			want: want("listings", ghent, "viewing", flat7),
			acc:  2.0 / 3, f1: 0.8, exact: 0, inOrder: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := eval.Sample{Messages: tc.msgs, ExpectedToolCalls: tc.want, Ordered: true}
			ctx := context.Background()
			acc, err := toolcall.Accuracy{}.Score(ctx, s)
			require.NoError(t, err)
			assert.InDelta(t, tc.acc, acc.Value, 1e-9, "accuracy: %s %v", acc.Reason, acc.Evidence.Issues)
			outOfOrder := false
			for _, is := range acc.Evidence.Issues {
				outOfOrder = outOfOrder || strings.Contains(is, "out of order")
			}
			assert.Equal(t, tc.outOfOrderNamed, outOfOrder, acc.Evidence.Issues)
			f1, err := toolcall.F1{}.Score(ctx, s)
			require.NoError(t, err)
			assert.InDelta(t, tc.f1, f1.Value, 1e-9, "f1: %s", f1.Reason)
			for mode, v := range map[toolcall.Mode]float64{toolcall.ModeExact: tc.exact, toolcall.ModeInOrder: tc.inOrder} {
				tr, err := toolcall.Trajectory{Mode: mode}.Score(ctx, s)
				require.NoError(t, err)
				assert.InDelta(t, v, tr.Value, 0, "%s: %s %v", mode, tr.Reason, tr.Evidence.Issues)
			}
		})
	}
}

// TestErrorMemberFalseIsNoFailure pins the rule docs/agents.md states
// for a result's "error" member: a failure unless null or false.
func TestErrorMemberFalseIsNoFailure(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		content string
		value   float64
	}{
		"error false":          {`{"error": false, "flats": [3]}`, 1},
		"error null":           {`{"flats": [3], "error": null}`, 1},
		"error true":           {`{"error": true}`, 0},
		"error an empty text":  {`{"error": ""}`, 0},
		"error an object":      {`{"error": {"status": 503}}`, 0},
		"text opening Error":   {"ERROR 503 upstream", 0},
		"text naming an error": {"no error: 3 flats", 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			msgs := []eval.Message{ask, calling(call("q", "listings", `{}`)), result("q", tc.content)}
			sc, err := toolcall.Errors{}.Score(context.Background(), eval.Sample{Messages: msgs})
			require.NoError(t, err)
			assert.InDelta(t, tc.value, sc.Value, 0)
		})
	}
}

// TestTrajectoryModeRefusalShowsTheValueAsWritten: a refused mode is
// shown as the record wrote it, a string quoted.
func TestTrajectoryModeRefusalShowsTheValueAsWritten(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		value any
		got   string
	}{
		"a misspelt mode": {"inorder", `got "inorder"`},
		"a number":        {2.0, "got 2"},
		"a boolean":       {true, "got true"},
		"a blank":         {"", `got ""`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := toolcall.Trajectory{}.Check(eval.Sample{Metadata: map[string]any{toolcall.ModeField: tc.value}})
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.True(t, strings.HasSuffix(ie.Msg, tc.got), ie.Msg)
		})
	}
}

// TestArgumentsRefuseAKeyGivenTwice: Arguments refuses an object that
// names a key twice (at any depth) rather than keep its last value, so a
// call from spans with such arguments is a call with bad arguments.
func TestArgumentsRefuseAKeyGivenTwice(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		err  string // "" for none
	}{
		"top level":                      {`{"rooms":2,"rooms":3}`, "rooms: given twice"},
		"nested":                         {`{"near":{"stop":"Dampoort","stop":"Sint-Pieters"}}`, "near.stop: given twice"},
		"in an array's objects":          {`{"flats":[{"id":1},{"id":2,"id":3}]}`, "given twice"},
		"one key in two objects is fine": {`{"a":{"id":1},"b":{"id":1}}`, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := toolcall.Arguments(tc.text)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

// TestARepeatedCallIsADuplicateInEitherOrder: a call made twice, one of
// the two matched, is named a duplicate whether or not the sample is
// ordered (in order the later of the two may be the one matched), never
// an extra call the agent was not asked for.
func TestARepeatedCallIsADuplicateInEitherOrder(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		ordered bool
		made    []eval.Message
		want    string
	}{
		"free of order": {false, []eval.Message{ask, calling(call("1", "search", `{"city":"Paris"}`)), calling(call("2", "search", `{"city":"Paris"}`))},
			`duplicated call: search({"city":"Paris"}) repeats an earlier call`},
		"in order": {true, []eval.Message{ask, calling(call("1", "search", `{"city":"Paris"}`)), calling(call("2", "search", `{"city":"Paris"}`))},
			`duplicated call: search({"city":"Paris"}) is made again later`},
		"in order, the repeat written with keys reordered": {true, []eval.Message{ask,
			calling(call("1", "search", `{"city":"Paris","n":1}`)), calling(call("2", "search", `{"n":1.0,"city":"Paris"}`))},
			`duplicated call: search({"city":"Paris","n":1}) is made again later`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := eval.Sample{Messages: tc.made, Ordered: tc.ordered,
				ExpectedToolCalls: []eval.ExpectedToolCall{{Name: "search", Arguments: []byte(`{"city":"Ghent"}`)}}}
			sc, err := toolcall.Accuracy{}.Score(context.Background(), s)
			require.NoError(t, err)
			assert.InDelta(t, 0.25, sc.Value, 1e-12) // half a call of two
			assert.Contains(t, sc.Evidence.Issues, tc.want)
			for _, is := range sc.Evidence.Issues {
				assert.False(t, strings.HasPrefix(is, "extra call"), is)
			}
		})
	}
}
