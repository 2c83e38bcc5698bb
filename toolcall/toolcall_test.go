package toolcall_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/toolcall"
)

// turn is an assistant message making calls, each "name" and its
// arguments' text, in parallel.
func turn(calls ...string) eval.Message {
	m := eval.Message{Role: eval.RoleAssistant}
	for i := 0; i+1 < len(calls); i += 2 {
		m.ToolCalls = append(m.ToolCalls, eval.ToolCall{ID: calls[i] + strconv.Itoa(i), Type: "function",
			Function: eval.ToolFunction{Name: calls[i], Arguments: calls[i+1]}})
	}
	return m
}

// convo is a conversation: a user question, then the given turns.
func convo(turns ...eval.Message) []eval.Message {
	return append([]eval.Message{{Role: eval.RoleUser, Content: "What is the weather in Paris and in Lyon?"}}, turns...)
}

// want is the list of expected calls: "name" and its arguments' text, or
// "" for a call that accepts any.
func want(calls ...string) []eval.ExpectedToolCall {
	out := []eval.ExpectedToolCall{}
	for i := 0; i+1 < len(calls); i += 2 {
		c := eval.ExpectedToolCall{Name: calls[i]}
		if calls[i+1] != "" {
			c.Arguments = json.RawMessage(calls[i+1])
		}
		out = append(out, c)
	}
	return out
}

const (
	paris = `{"city":"Paris"}`
	lyon  = `{"city":"Lyon"}`
)

// TestToolCallEdgeCases is the table of the cases peers got wrong, each
// with the value every metric must give: duplicates, empty lists, nested
// and reordered arguments, numbers as strings, calls without results,
// parallel calls.
func TestToolCallEdgeCases(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		sample eval.Sample
		// accuracy, f1 and trajectory (in the sample's default mode).
		acc, f1, traj float64
		issue         string // one issue accuracy names, when not ""
	}{
		"nothing expected, nothing called": {
			sample: eval.Sample{Messages: convo(eval.Message{Role: eval.RoleAssistant, Content: "Sunny."})},
			acc:    1, f1: 1, traj: 1},
		"nothing expected, an empty list given, nothing called": {
			sample: eval.Sample{Messages: convo(eval.Message{Role: eval.RoleAssistant, Content: "Sunny."}), ExpectedToolCalls: want()},
			acc:    1, f1: 1, traj: 1},
		"nothing expected, one call made": {
			sample: eval.Sample{Messages: convo(turn("weather", paris)), ExpectedToolCalls: want()},
			acc:    0, f1: 0, traj: 0, issue: "extra call: weather"},
		"one expected, nothing called": {
			sample: eval.Sample{Messages: convo(eval.Message{Role: eval.RoleAssistant, Content: "Sunny."}), ExpectedToolCalls: want("weather", paris)},
			acc:    0, f1: 0, traj: 0, issue: "missing call 1: weather"},
		"exact match": {
			sample: eval.Sample{Messages: convo(turn("weather", paris)), ExpectedToolCalls: want("weather", paris)},
			acc:    1, f1: 1, traj: 1},
		"a duplicated call lowers accuracy": {
			sample: eval.Sample{Messages: convo(turn("weather", paris), turn("weather", paris)), ExpectedToolCalls: want("weather", paris)},
			acc:    0.5, f1: 2.0 / 3, traj: 0, issue: "duplicated call: weather"},
		"a call expected twice, made once": {
			sample: eval.Sample{Messages: convo(turn("weather", paris)), ExpectedToolCalls: want("weather", paris, "weather", paris)},
			acc:    0.5, f1: 2.0 / 3, traj: 0, issue: "missing call 2"},
		"keys reordered": {
			sample: eval.Sample{Messages: convo(turn("search", `{"q":"tides","limit":5}`)), ExpectedToolCalls: want("search", `{"limit":5,"q":"tides"}`)},
			acc:    1, f1: 1, traj: 1},
		"nested objects reordered, arrays in order": {
			sample: eval.Sample{Messages: convo(turn("book", `{"trip":{"to":"LYS","from":"CDG","legs":[{"n":1},{"n":2}]}}`)),
				ExpectedToolCalls: want("book", `{"trip":{"from":"CDG","legs":[{"n":1},{"n":2}],"to":"LYS"}}`)},
			acc: 1, f1: 1, traj: 1},
		"nested array out of order is a wrong argument": {
			sample: eval.Sample{Messages: convo(turn("book", `{"trip":{"legs":[{"n":2},{"n":1}]}}`)),
				ExpectedToolCalls: want("book", `{"trip":{"legs":[{"n":1},{"n":2}]}}`)},
			acc: 0.5, f1: 0, traj: 0, issue: "arguments.trip.legs[0].n: want 1, got 2"},
		"a number as a string is a wrong argument": {
			sample: eval.Sample{Messages: convo(turn("search", `{"limit":"5"}`)), ExpectedToolCalls: want("search", `{"limit":5}`)},
			acc:    0.5, f1: 0, traj: 0, issue: `arguments.limit: want 5, got "5"`},
		"numbers compare by value": {
			sample: eval.Sample{Messages: convo(turn("search", `{"limit":1.0,"ratio":25e-2}`)), ExpectedToolCalls: want("search", `{"limit":1,"ratio":0.25}`)},
			acc:    1, f1: 1, traj: 1},
		"a missing argument": {
			sample: eval.Sample{Messages: convo(turn("search", `{"q":"tides"}`)), ExpectedToolCalls: want("search", `{"q":"tides","limit":5}`)},
			acc:    0.5, f1: 0, traj: 0, issue: "arguments.limit: missing (want 5)"},
		"an extra argument": {
			sample: eval.Sample{Messages: convo(turn("search", `{"q":"tides","limit":5}`)), ExpectedToolCalls: want("search", `{"q":"tides"}`)},
			acc:    0.5, f1: 0, traj: 0, issue: "arguments.limit: not expected (got 5)"},
		"null is not a missing argument": {
			sample: eval.Sample{Messages: convo(turn("search", `{"q":"tides","limit":null}`)), ExpectedToolCalls: want("search", `{"q":"tides"}`)},
			acc:    0.5, f1: 0, traj: 0, issue: "arguments.limit: not expected (got null)"},
		"empty arguments text is the empty object": {
			sample: eval.Sample{Messages: convo(turn("now", "")), ExpectedToolCalls: want("now", `{}`)},
			acc:    1, f1: 1, traj: 1},
		"expected without arguments accepts any": {
			sample: eval.Sample{Messages: convo(turn("weather", paris)), ExpectedToolCalls: want("weather", "")},
			acc:    1, f1: 1, traj: 1},
		"a wildcard does not take the call a specific one needs": {
			sample: eval.Sample{Messages: convo(turn("weather", lyon, "weather", paris)), ExpectedToolCalls: want("weather", "", "weather", lyon)},
			acc:    1, f1: 1, traj: 1},
		"wrong tool name": {
			sample: eval.Sample{Messages: convo(turn("forecast", paris)), ExpectedToolCalls: want("weather", paris)},
			acc:    0, f1: 0, traj: 0, issue: "extra call: forecast"},
		"an extra call": {
			sample: eval.Sample{Messages: convo(turn("weather", paris), turn("weather", lyon)), ExpectedToolCalls: want("weather", paris)},
			acc:    0.5, f1: 2.0 / 3, traj: 0, issue: "extra call: weather({\"city\":\"Lyon\"})"},
		"unordered: order does not matter": {
			sample: eval.Sample{Messages: convo(turn("weather", lyon), turn("weather", paris)), ExpectedToolCalls: want("weather", paris, "weather", lyon)},
			acc:    1, f1: 1, traj: 1},
		"ordered: order matters": {
			sample: eval.Sample{Ordered: true, Messages: convo(turn("weather", lyon), turn("weather", paris)), ExpectedToolCalls: want("weather", paris, "weather", lyon)},
			acc:    0.5, f1: 0.5, traj: 0, issue: "calls out of order"},
		"ordered: parallel calls in any order among themselves": {
			sample: eval.Sample{Ordered: true, Messages: convo(turn("weather", lyon, "weather", paris), turn("summarize", `{}`)),
				ExpectedToolCalls: want("weather", paris, "weather", lyon, "summarize", `{}`)},
			acc: 1, f1: 1, traj: 1},
		"ordered: a parallel call still after the one before it": {
			sample: eval.Sample{Ordered: true, Messages: convo(turn("summarize", `{}`), turn("weather", lyon, "weather", paris)),
				ExpectedToolCalls: want("weather", paris, "weather", lyon, "summarize", `{}`)},
			acc: 2.0 / 3, f1: 2.0 / 3, traj: 0, issue: "calls out of order"},
		"calls without results still count as made": {
			sample: eval.Sample{Messages: convo(turn("weather", paris), eval.Message{Role: eval.RoleAssistant, Content: "I could not get it."}),
				ExpectedToolCalls: want("weather", paris)},
			acc: 1, f1: 1, traj: 1},
		"arguments that are no JSON object match by name only": {
			sample: eval.Sample{Messages: convo(turn("weather", `Paris`)), ExpectedToolCalls: want("weather", paris)},
			acc:    0.5, f1: 0, traj: 0, issue: "not a JSON object"},
		"unicode arguments": {
			sample: eval.Sample{Messages: convo(turn("weather", `{"city":"\u0e01\u0e23\u0e38\u0e07\u0e40\u0e17\u0e1e"}`)), ExpectedToolCalls: want("weather", `{"city":"กรุงเทพ"}`)},
			acc:    1, f1: 1, traj: 1},
		"a boolean is not a number": {
			sample: eval.Sample{Messages: convo(turn("set", `{"on":1}`)), ExpectedToolCalls: want("set", `{"on":true}`)},
			acc:    0.5, f1: 0, traj: 0, issue: "arguments.on: want true, got 1"},
	}
	reg := registry(t)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for metricName, wantValue := range map[string]float64{
				toolcall.MetricAccuracy: tc.acc, toolcall.MetricF1: tc.f1, toolcall.MetricTrajectory: tc.traj,
			} {
				sc := score(t, reg, metricName, tc.sample)
				assert.InDelta(t, wantValue, sc.Value, 1e-9, "%s: %s %v", metricName, sc.Reason, sc.Evidence.Issues)
				assert.Equal(t, toolcall.Method, sc.Method)
				assert.False(t, sc.Skipped)
				if metricName == toolcall.MetricAccuracy && tc.issue != "" {
					assert.Contains(t, joined(sc.Evidence.Issues), tc.issue)
				}
				if wantValue == 1 && metricName == toolcall.MetricAccuracy {
					assert.Empty(t, sc.Evidence.Issues, "a full score loses nothing")
				}
			}
		})
	}
}

func registry(t *testing.T) *metric.Registry {
	t.Helper()
	var reg metric.Registry
	require.NoError(t, toolcall.AddBuiltins(&reg))
	return &reg
}

func score(t *testing.T, reg *metric.Registry, name string, s eval.Sample) eval.Score {
	t.Helper()
	sc, err := reg.New(name, nil)
	require.NoError(t, err)
	out, err := sc.Score(t.Context(), s)
	require.NoError(t, err)
	assert.Equal(t, name, out.Metric)
	return out
}

func joined(issues []string) string {
	out := ""
	for _, is := range issues {
		out += is + "\n"
	}
	return out
}

func TestTrajectoryModes(t *testing.T) {
	t.Parallel()
	calls := convo(turn("search", `{"q":"a"}`), turn("fetch", `{"u":1}`), turn("summarize", `{}`))
	tests := map[string]struct {
		expected []eval.ExpectedToolCall
		values   map[toolcall.Mode]float64
	}{
		"the same calls in order": {want("search", `{"q":"a"}`, "fetch", `{"u":1}`, "summarize", `{}`),
			map[toolcall.Mode]float64{toolcall.ModeExact: 1, toolcall.ModeInOrder: 1, toolcall.ModeAnyOrder: 1, toolcall.ModeSubset: 1, toolcall.ModeSuperset: 1}},
		"the same calls reordered": {want("fetch", `{"u":1}`, "search", `{"q":"a"}`, "summarize", `{}`),
			map[toolcall.Mode]float64{toolcall.ModeExact: 0, toolcall.ModeInOrder: 0, toolcall.ModeAnyOrder: 1, toolcall.ModeSubset: 1, toolcall.ModeSuperset: 1}},
		"fewer expected, in order": {want("search", `{"q":"a"}`, "summarize", `{}`),
			map[toolcall.Mode]float64{toolcall.ModeExact: 0, toolcall.ModeInOrder: 1, toolcall.ModeAnyOrder: 0, toolcall.ModeSubset: 0, toolcall.ModeSuperset: 1}},
		"fewer expected, reordered": {want("summarize", `{}`, "search", `{"q":"a"}`),
			map[toolcall.Mode]float64{toolcall.ModeExact: 0, toolcall.ModeInOrder: 0, toolcall.ModeAnyOrder: 0, toolcall.ModeSubset: 0, toolcall.ModeSuperset: 1}},
		"more expected": {want("search", `{"q":"a"}`, "fetch", `{"u":1}`, "rank", `{}`, "summarize", `{}`),
			map[toolcall.Mode]float64{toolcall.ModeExact: 0, toolcall.ModeInOrder: 0, toolcall.ModeAnyOrder: 0, toolcall.ModeSubset: 1, toolcall.ModeSuperset: 0}},
		"nothing expected": {want(),
			map[toolcall.Mode]float64{toolcall.ModeExact: 0, toolcall.ModeInOrder: 1, toolcall.ModeAnyOrder: 0, toolcall.ModeSubset: 0, toolcall.ModeSuperset: 1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for mode, v := range tc.values {
				s := eval.Sample{Messages: calls, ExpectedToolCalls: tc.expected}
				sc, err := toolcall.Trajectory{Mode: mode}.Score(t.Context(), s)
				require.NoError(t, err)
				assert.InDelta(t, v, sc.Value, 0, "%s: %s", mode, sc.Reason)
				// The same mode from the sample's metadata.
				s.Metadata = map[string]any{toolcall.ModeField: string(mode)}
				sc, err = toolcall.Trajectory{}.Score(t.Context(), s)
				require.NoError(t, err)
				assert.InDelta(t, v, sc.Value, 0, "metadata %s: %s", mode, sc.Reason)
			}
		})
	}
}

func TestTrajectoryModeIsChecked(t *testing.T) {
	t.Parallel()
	s := eval.Sample{Messages: convo(), Metadata: map[string]any{toolcall.ModeField: "sideways"}}
	err := toolcall.Trajectory{}.Check(s)
	var ie *eval.InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "metadata.trajectory_mode", ie.Field)
	assert.Contains(t, ie.Msg, "exact, in_order, any_order, subset, superset")
	require.NoError(t, toolcall.Trajectory{}.Check(eval.Sample{Metadata: map[string]any{toolcall.ModeField: "subset"}}))
}

func TestErrorsAndLoopsAreCounted(t *testing.T) {
	t.Parallel()
	result := func(id, content string, failed bool) eval.Message {
		return eval.Message{Role: eval.RoleTool, ToolCallID: id, Content: content, Error: failed}
	}
	tests := map[string]struct {
		msgs               []eval.Message
		errors, loops      float64
		nErrors, nRepeated float64
		nWithout           float64
	}{
		"no calls":             {convo(eval.Message{Role: eval.RoleAssistant, Content: "Hi."}), 1, 1, 0, 0, 0},
		"one call, fine":       {convo(turn("weather", paris), result("weather0", `{"temp":21}`, false)), 1, 1, 0, 0, 0},
		"an error flag":        {convo(turn("weather", paris), result("weather0", "timeout", true)), 0, 1, 1, 0, 0},
		"an error text":        {convo(turn("weather", paris), result("weather0", "Error: no such city", false)), 0, 1, 1, 0, 0},
		"an error object":      {convo(turn("weather", paris), result("weather0", `{"error":{"code":404}}`, false)), 0, 1, 1, 0, 0},
		"a null error is none": {convo(turn("weather", paris), result("weather0", `{"error":null,"temp":3}`, false)), 1, 1, 0, 0, 0},
		"a loop of three": {convo(turn("weather", paris), result("weather0", "x", false), turn("weather", `{ "city" : "Paris" }`), result("weather0", "x", false), turn("weather", paris)),
			1, 1.0 / 3, 0, 2, 1}, // each result answers its own turn's call: the third has none
		"the same tool, other arguments, is no loop": {convo(turn("weather", paris), turn("weather", lyon)), 1, 1, 0, 0, 2},
		"a call without result":                      {convo(turn("weather", paris, "weather", lyon), result("weather0", "sunny", false)), 1, 1, 0, 0, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := eval.Sample{Messages: tc.msgs}
			e, err := toolcall.Errors{}.Score(t.Context(), s)
			require.NoError(t, err)
			assert.InDelta(t, tc.errors, e.Value, 1e-9, e.Reason)
			assert.InDelta(t, tc.nErrors, e.Evidence.Counts["errors"], 0)
			assert.InDelta(t, tc.nWithout, e.Evidence.Counts["without_result"], 0)
			l, err := toolcall.Loops{}.Score(t.Context(), s)
			require.NoError(t, err)
			assert.InDelta(t, tc.loops, l.Value, 1e-9, l.Reason)
			assert.InDelta(t, tc.nRepeated, l.Evidence.Counts["repeated"], 0)
		})
	}
}

func TestNoConversationIsSkippedNeverScored(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	tests := map[string]struct {
		sample eval.Sample
		err    error
	}{
		"no messages":   {eval.Sample{Query: "q", ExpectedToolCalls: want("weather", paris)}, eval.ErrNoConversation},
		"not evaluable": {eval.Sample{Messages: convo(), NotEvaluable: "spans carry no message content"}, eval.ErrNotEvaluable},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, m := range reg.Metrics() {
				sc := score(t, reg, m, tc.sample)
				assert.True(t, sc.Skipped, m)
				assert.False(t, sc.Counted(), m)
				assert.True(t, errors.Is(sc.Err, tc.err), m)
			}
		})
	}
}

func TestEqualComparesJSONValues(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		a, b  string
		equal bool
	}{
		"keys reordered":        {`{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		"1 and 1.0":             {`{"n":1}`, `{"n":1.0}`, true},
		"1e2 and 100":           {`{"n":1e2}`, `{"n":100}`, true},
		"big integers exactly":  {`{"n":9007199254740993}`, `{"n":9007199254740992}`, false},
		"string and number":     {`{"n":"5"}`, `{"n":5}`, false},
		"empty and null":        {`{"n":""}`, `{"n":null}`, false},
		"deep arrays":           {`{"m":[[1,2],[3]]}`, `{"m":[[1,2],[3]]}`, true},
		"array lengths":         {`{"m":[1,2]}`, `{"m":[1,2,2]}`, false},
		"empty object, nothing": {`{}`, ``, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := toolcall.Arguments(tc.a)
			require.NoError(t, err)
			b, err := toolcall.Arguments(tc.b)
			require.NoError(t, err)
			assert.Equal(t, tc.equal, toolcall.Equal(a, b))
			assert.Equal(t, tc.equal, toolcall.Equal(b, a), "symmetric")
		})
	}
}

// TestComparingMetricsNeedExpectedCalls: a conversation with no
// expected_tool_calls at all is refused by the metrics that compare the
// calls made with the expected ones (it scored 0, "0 of 0 expected"),
// naming the field; [] expects no call and is scored; a sample without a
// conversation, or one that cannot be judged, is left to be skipped; the
// metrics that need no expected calls take it as it is.
func TestComparingMetricsNeedExpectedCalls(t *testing.T) {
	t.Parallel()
	call := convo(turn("weather", `{"city":"Oslo"}`))
	tests := map[string]struct {
		s    eval.Sample
		want bool // refused
	}{
		"calls made, none expected at all":       {s: eval.Sample{Messages: call}, want: true},
		"calls made, an empty list expected":     {s: eval.Sample{Messages: call, ExpectedToolCalls: []eval.ExpectedToolCall{}}},
		"calls made and expected":                {s: eval.Sample{Messages: call, ExpectedToolCalls: []eval.ExpectedToolCall{{Name: "weather"}}}},
		"no conversation: skipped when scored":   {s: eval.Sample{Query: "q", Answer: "a"}},
		"spans without content: not_evaluable":   {s: eval.Sample{Messages: call, NotEvaluable: "no content"}},
		"ordered, with a mode, nothing expected": {s: eval.Sample{Messages: call, Ordered: true, Metadata: map[string]any{toolcall.ModeField: "subset"}}, want: true},
	}
	checkers := map[string]metric.Checker{
		toolcall.MetricAccuracy: toolcall.Accuracy{}, toolcall.MetricF1: toolcall.F1{}, toolcall.MetricTrajectory: toolcall.Trajectory{},
	}
	for name, tc := range tests {
		for metricName, c := range checkers {
			t.Run(name+"/"+metricName, func(t *testing.T) {
				t.Parallel()
				err := c.Check(tc.s)
				if !tc.want {
					require.NoError(t, err)
					return
				}
				var ie *eval.InputError
				require.ErrorAs(t, err, &ie)
				assert.Equal(t, "expected_tool_calls", ie.Field)
				assert.Contains(t, ie.Msg, metricName)
			})
		}
	}
	for _, m := range []string{toolcall.MetricErrors, toolcall.MetricLoops} {
		_, isChecker := map[string]eval.Scorer{toolcall.MetricErrors: toolcall.Errors{}, toolcall.MetricLoops: toolcall.Loops{}}[m].(metric.Checker)
		assert.False(t, isChecker, "%s needs no expected calls", m)
	}
}

// TestReasonsCountOneCallAsOne: a reason's counts agree with their nouns
// and verbs, one call being "1 call", and more "calls".
func TestReasonsCountOneCallAsOne(t *testing.T) {
	t.Parallel()
	one := eval.Sample{Messages: convo(turn("weather", paris)), ExpectedToolCalls: want("weather", paris)}
	two := eval.Sample{Messages: convo(turn("weather", paris), turn("weather", paris)), ExpectedToolCalls: want("weather", paris)}
	tests := map[string]struct {
		scorer eval.Scorer
		sample eval.Sample
		want   string
	}{
		"accuracy, one call":   {toolcall.Accuracy{}, one, "1 of 1 expected call made as expected, 0 with other arguments; 1 call made"},
		"accuracy, two calls":  {toolcall.Accuracy{}, two, "1 of 1 expected call made as expected, 0 with other arguments; 2 calls made"},
		"f1, one call":         {toolcall.F1{}, one, "precision 1.00 (1 of 1 call made was expected), recall 1.00 (1 of 1 expected was made)"},
		"trajectory, one call": {toolcall.Trajectory{Mode: toolcall.ModeExact}, one, "the 1 call made matches the 1 expected (exact)"},
		"trajectory, two":      {toolcall.Trajectory{Mode: toolcall.ModeExact}, two, "the 2 calls made do not match the 1 expected (exact)"},
		"errors, one call":     {toolcall.Errors{}, one, "0 of 1 call failed; 1 without a result"},
		"loops, two calls":     {toolcall.Loops{}, two, "1 of 2 calls repeat an earlier one"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := tc.scorer.Score(t.Context(), tc.sample)
			require.NoError(t, err)
			assert.Equal(t, tc.want, sc.Reason)
		})
	}
}
