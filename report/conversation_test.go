package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/toolcall"
)

// tripSample is an agent's conversation that loses points on every
// metric that marks one: two parallel weather calls, one with a misspelt
// city whose result is an error; the first call made again with its keys
// in another order (a duplicate); a booking nobody asked for, without a
// result; a reply that forgets how many travel; and a reply off the
// subject. The system message holds markup that must stay text.
func tripSample() eval.Sample {
	call := func(id, name, args string) eval.ToolCall {
		return eval.ToolCall{ID: id, Type: "function", Function: eval.ToolFunction{Name: name, Arguments: args}}
	}
	return eval.Sample{
		ID: "trip-7",
		Messages: []eval.Message{
			{Role: eval.RoleSystem, Content: `You plan trips in Norway. <img src=x onerror="window.__pwned=1">`},
			{Role: eval.RoleUser, Content: "We are 2 adults visiting Oslo and Bergen on Friday. What weather should we expect?"},
			{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{
				call("c1", "get_weather", `{"city":"Oslo","day":"Friday"}`),
				call("c2", "get_weather", `{"city":"Bergn","day":"Friday"}`),
			}},
			{Role: eval.RoleTool, ToolCallID: "c1", Content: `{"forecast":"cloudy","high_c":12}`},
			{Role: eval.RoleTool, ToolCallID: "c2", Content: `{"error":"unknown city <Bergn>"}`},
			{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{call("c3", "get_weather", `{"day":"Friday","city":"Oslo"}`)}},
			{Role: eval.RoleTool, ToolCallID: "c3", Content: `{"forecast":"cloudy","high_c":12}`},
			{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{call("c4", "book_hotel", `{"city":"Oslo","guests":3}`)}},
			{Role: eval.RoleAssistant, Content: "Oslo will be cloudy on Friday with a high of 12 degrees. I booked a hotel room for 3 adults."},
			{Role: eval.RoleUser, Content: "Thanks. And the weather in Bergen?"},
			{Role: eval.RoleAssistant, Content: "Octopuses have three hearts and blue blood."},
		},
		ExpectedToolCalls: []eval.ExpectedToolCall{
			{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo","day":"Friday"}`)},
			{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Bergen","day":"Friday"}`)},
		},
	}
}

// scoreAll scores s with the metrics that mark a conversation, as bench
// does (offline judges), and returns their results.
func scoreAll(t *testing.T, s eval.Sample) *run.ResultFile {
	t.Helper()
	scorers := []eval.Scorer{toolcall.Accuracy{}, toolcall.Errors{}, toolcall.Loops{},
		judges.ConversationRelevancy{}, judges.KnowledgeRetention{}, judges.TaskCompletion{}}
	var buf bytes.Buffer
	for _, sc := range scorers {
		score, err := sc.Score(context.Background(), s)
		require.NoError(t, err)
		b, err := json.Marshal(run.ResultOf(s.ID, score))
		require.NoError(t, err)
		buf.Write(append(b, '\n'))
	}
	results, err := run.ReadResultsFrom(run.FileResults, &buf)
	require.NoError(t, err)
	return results
}

// textsOf reads the samples back as bench does, from their JSON lines.
func textsOf(t *testing.T, results *run.ResultFile, samples ...eval.Sample) map[string]SampleText {
	t.Helper()
	var buf bytes.Buffer
	for _, s := range samples {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		buf.Write(append(b, '\n'))
	}
	texts, err := ReadSampleTexts(dataset.Records("data.jsonl", &buf), ShownIDs(results))
	require.NoError(t, err)
	return texts
}

// marksOf lists where the view marks a conversation: "turn N", "call N"
// or "expected N", the metric and the kind.
func marksOf(v *convView) []string {
	var out []string
	add := func(where string, ms []mark) {
		for _, m := range ms {
			out = append(out, where+" "+m.Metric+" "+m.Kind)
		}
	}
	for _, t := range v.Turns {
		add(fmt.Sprintf("turn %d", t.N), t.Marks)
		for _, c := range t.Calls {
			add(fmt.Sprintf("call %d", c.N), c.Marks)
		}
	}
	for _, e := range v.Expected {
		add(fmt.Sprintf("expected %d", e.N), e.Marks)
	}
	return out
}

func TestConversationMarksWhereMetricsLostPoints(t *testing.T) {
	t.Parallel()
	s := tripSample()
	results := scoreAll(t, s)
	texts := textsOf(t, results, s)
	v := newReportView(run.Config{RunID: "r"}, run.Summary{RunID: "r", Samples: 1}, results, Data{Texts: texts}, nil)
	require.Len(t, v.Rows, 1)
	row := v.Rows[0]
	require.NotNil(t, row.Conv)
	assert.Equal(t, "We are 2 adults visiting Oslo and Bergen on Friday. What weather should we expect?", row.Question,
		"a conversation without a question shows its first user message in the table")

	// The turns in order, tool messages joined to their calls.
	var turns []string
	for _, tv := range row.Conv.Turns {
		line := fmt.Sprintf("%d %s", tv.N, tv.Role)
		for _, c := range tv.Calls {
			result := "no result"
			if c.Result != nil {
				result = c.Result.Text
			}
			line += fmt.Sprintf(" [%d %s(%s) -> %s failed=%t]", c.N, c.Name, c.Arguments.Text, result, c.Failed)
		}
		turns = append(turns, line)
	}
	assert.Equal(t, []string{
		"1 system",
		"2 user",
		`3 assistant [1 get_weather({"city":"Oslo","day":"Friday"}) -> {"forecast":"cloudy","high_c":12} failed=false] [2 get_weather({"city":"Bergn","day":"Friday"}) -> {"error":"unknown city <Bergn>"} failed=true]`,
		`6 assistant [3 get_weather({"day":"Friday","city":"Oslo"}) -> {"forecast":"cloudy","high_c":12} failed=false]`,
		`8 assistant [4 book_hotel({"city":"Oslo","guests":3}) -> no result failed=false]`,
		"9 assistant",
		"10 user",
		"11 assistant",
	}, turns)
	require.Len(t, row.Conv.Expected, 2)
	assert.Equal(t, `{"city":"Bergen","day":"Friday"}`, row.Conv.Expected[1].Arguments.Text)

	// Each metric's lost points, on the turn or call its evidence names.
	assert.ElementsMatch(t, []string{
		"call 2 tool_call_accuracy wrong args",
		"expected 2 tool_call_accuracy wrong args",
		"call 3 tool_call_accuracy duplicate",
		"call 4 tool_call_accuracy extra",
		"call 2 tool_call_errors error",
		"call 3 tool_call_loops duplicate",
		"turn 9 knowledge_retention failed turn",
		"turn 11 conversation_relevancy failed turn",
	}, marksOf(row.Conv))
	assert.Equal(t, 8, row.Conv.Marked)

	// The page: the marked call and the expected ones, and the markup of
	// the messages escaped.
	var out strings.Builder
	require.NoError(t, WriteHTML(&out, run.Config{RunID: "r"}, run.Summary{RunID: "r", Samples: 1}, results, Data{Texts: texts}))
	page := out.String()
	assert.Contains(t, page, `<section class="conv" data-marked="8">`)
	assert.Contains(t, page, `<div class="call lost" data-call="2">`)
	assert.Contains(t, page, `<div class="call" data-call="1">`)
	assert.Contains(t, page, `<li class="xcall lost" data-expected="2">`)
	assert.Contains(t, page, `<li class="turn r-assistant lost" data-turn="11">`)
	assert.Contains(t, page, `&lt;img src=x onerror=&#34;window.__pwned=1&#34;&gt;`)
	assert.Contains(t, page, `unknown city &lt;Bergn&gt;`)
	assert.NotContains(t, page, `<img src=x`)
}

func TestConversationMarks(t *testing.T) {
	t.Parallel()
	call := func(id, name, args string) eval.ToolCall {
		return eval.ToolCall{ID: id, Function: eval.ToolFunction{Name: name, Arguments: args}}
	}
	twice := eval.Sample{ID: "twice", Messages: []eval.Message{
		{Role: eval.RoleUser, Content: "Look up tides."},
		{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{call("a", "search", `{"q":"tides"}`)}},
		{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{call("b", "search", `{"q":"tides"}`)}},
		{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{call("c", "search", `{"q":"tides"}`)}},
	}}
	tests := map[string]struct {
		sample eval.Sample
		issues map[string][]string // metric -> its evidence
		want   []string
	}{
		"the same call three times: the repeats are the later two": {
			sample: twice,
			issues: map[string][]string{toolcall.MetricAccuracy: {
				`duplicated call: search({"q":"tides"}) repeats an earlier call`,
				`duplicated call: search({"q":"tides"}) repeats an earlier call`,
			}},
			want: []string{"call 2 tool_call_accuracy duplicate", "call 3 tool_call_accuracy duplicate"},
		},
		"in order, a call made again later: the first not taken is the duplicate": {
			sample: twice,
			issues: map[string][]string{toolcall.MetricAccuracy: {
				`wrong arguments in call 1, search({"q":"tides"}): arguments.q: want "tide", got "tides"`,
				`duplicated call: search({"q":"tides"}) is made again later`,
			}},
			want: []string{"call 1 tool_call_accuracy wrong args", "call 2 tool_call_accuracy duplicate"},
		},
		"a call or turn the evidence names that is not there is not marked": {
			sample: twice,
			issues: map[string][]string{
				toolcall.MetricAccuracy:            {`extra call: fetch({})`, `missing call 4: search(…)`, "calls out of order: the sample's calls are ordered"},
				judges.MetricConversationRelevancy: {"turn 40: off the subject"},
			},
			want: nil,
		},
		"a turn each judge failed": {
			sample: twice,
			issues: map[string][]string{
				judges.MetricConversationRelevancy: {"turn 1: an opening that ignores the user"},
				judges.MetricRoleAdherence:         {"turn 1: breaks character"},
			},
			want: []string{"turn 1 conversation_relevancy failed turn", "turn 1 role_adherence failed turn"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var rs []resultView
			for m, is := range tc.issues {
				rs = append(rs, resultView{Result: run.Result{ID: tc.sample.ID, Metric: m, Evidence: eval.Evidence{Issues: is}}})
			}
			v := newConvView(newConversation(tc.sample), rs)
			assert.ElementsMatch(t, tc.want, marksOf(v))
			assert.Equal(t, len(tc.want), v.Marked)
		})
	}
}

// A long conversation keeps to its budget: its first messages and calls
// while MaxConversation lasts, the rest counted.
func TestConversationBounds(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ผลตอบแทน <ขึ้น> & ", 100)
	s := eval.Sample{ID: "long"}
	for i := range 60 {
		s.Messages = append(s.Messages,
			eval.Message{Role: eval.RoleUser, Content: long},
			eval.Message{Role: eval.RoleAssistant, Content: long, ToolCalls: []eval.ToolCall{{ID: fmt.Sprint("c", i), Function: eval.ToolFunction{Name: "search", Arguments: `{"q":"` + long + `"}`}}}},
			eval.Message{Role: eval.RoleTool, ToolCallID: fmt.Sprint("c", i), Content: long})
	}
	for range MaxExpected + 4 {
		s.ExpectedToolCalls = append(s.ExpectedToolCalls, eval.ExpectedToolCall{Name: "search", Arguments: json.RawMessage(`{"q":"x"}`)})
	}
	c := newConversation(s)
	spent, shown := 0, 0
	for _, t := range c.Turns {
		spent += len(t.Text.Text) + len(t.Tool)
		shown++
		for _, call := range t.Calls {
			spent += len(call.Name) + len(call.Arguments.Text)
			if call.Result != nil {
				spent += len(call.Result.Text)
				shown++
			}
		}
	}
	assert.LessOrEqual(t, spent, MaxConversation)
	assert.Greater(t, spent, MaxConversation/2)
	assert.Equal(t, len(s.Messages), shown+c.MoreTurns, "every message shown or counted")
	assert.Equal(t, MaxExpected, len(c.Expected))
	assert.Equal(t, 4, c.MoreExpected)
	assert.Positive(t, c.Turns[0].Text.Cut)
}

// TestConversationNotEvaluable: a conversation from spans without message
// content is marked not_evaluable wherever report.html shows it (its
// cells, its results, the counts, the filter, its conversation), never
// with a value, and no "error" line.
func TestConversationNotEvaluable(t *testing.T) {
	t.Parallel()
	s := eval.Sample{ID: "trip-9", Messages: []eval.Message{{Role: eval.RoleUser}, {Role: eval.RoleAssistant}}, NotEvaluable: "the spans carry no message content"}
	results := scoreAll(t, s)
	cfg := run.Config{RunID: "r1", Metrics: []string{"tool_call_accuracy", "task_completion"}}
	sum := run.Summary{Samples: 1, Metrics: run.Summarize(slices.Collect(results.All()), nil)}
	var out strings.Builder
	// The sample's texts as bench reads them from its spans file.
	texts := map[string]SampleText{s.ID: {Conversation: newConversation(s)}}
	require.NoError(t, WriteHTML(&out, cfg, sum, results, Data{Texts: texts}))
	page := out.String()
	for _, want := range []string{
		"0 defaulted · 6 skipped (6 not_evaluable) · 0 errors",
		"<td>skipped</td><td>1 (1 not_evaluable)</td>",
		`<option value="not_evaluable">not_evaluable</option>`,
		`<td class="v not_evaluable skipped" data-v=""><span class="badge b-not_evaluable">not_evaluable</span></td>`,
		`<h3>task_completion <span class="badge b-not_evaluable">not_evaluable</span>`,
		"not_evaluable: the spans carry no message content",
		`<p class="note">not_evaluable: the spans carry no message content</p>`,
	} {
		assert.Contains(t, page, want)
	}
	for _, absent := range []string{"error: not_evaluable", "b-skipped\">skipped", "Not evaluable", "not evaluable", "0 of 5"} {
		assert.NotContains(t, page, absent)
	}
}
