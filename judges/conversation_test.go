package judges_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// trip is a conversation: a system message, two user turns, a tool call
// and its result, and two assistant replies (turns 5 and 7).
var trip = eval.Sample{ID: "trip", Messages: []eval.Message{
	{Role: eval.RoleSystem, Content: "You are a travel assistant. Answer questions about trips and the weather at the destination."},
	{Role: eval.RoleUser, Content: "I'm flying to Paris on Friday with 2 children. What's the weather there?"},
	{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{{ID: "c1", Type: "function", Function: eval.ToolFunction{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
	{Role: eval.RoleTool, ToolCallID: "c1", Content: `{"forecast":"sunny"}`},
	{Role: eval.RoleAssistant, Content: "Friday in Paris will be sunny."},
	{Role: eval.RoleUser, Content: "Should I pack an umbrella for the trip?"},
	{Role: eval.RoleAssistant, Content: "No umbrella needed for Paris: the forecast is sunny."},
}}

func fakeModel(t *testing.T, srv *llmtest.Server) judges.Model {
	t.Helper()
	b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
	require.NoError(t, err)
	return llm.New(llm.Config{Backend: b, Retry: llm.RetryPolicy{MaxRetries: 0}})
}

// TestConversationJudgesAgainstTheFakeServer runs each model-judged
// conversation metric against the project's fake model server: the valid
// replies it gives every judge prompt, scripted verdicts, and replies that
// stay off the schema, which end in the neutral default, counted.
func TestConversationJudgesAgainstTheFakeServer(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		metric  string
		replies []string // nil: the fake server's judge replies
		value   float64
		calls   int
		issue   string
		deflt   bool
	}{
		"task completion, fake replies":        {metric: judges.MetricTaskCompletion, value: 0.75, calls: 1},
		"relevancy, fake replies":              {metric: judges.MetricConversationRelevancy, value: 1, calls: 1},
		"retention, fake replies":              {metric: judges.MetricKnowledgeRetention, value: 1, calls: 1},
		"role adherence, fake replies":         {metric: judges.MetricRoleAdherence, value: 1, calls: 1},
		"task completion, graded 2":            {metric: judges.MetricTaskCompletion, replies: []string{`{"grade":2,"reason":"the umbrella question was dodged"}`}, value: 0.25, calls: 1},
		"relevancy, one turn off topic":        {metric: judges.MetricConversationRelevancy, replies: []string{`{"verdicts":[{"turn":5,"pass":true,"reason":"answers"},{"turn":7,"pass":false,"reason":"talks about hotels"}]}`}, value: 0.5, calls: 1, issue: "turn 7: talks about hotels"},
		"retention, a turn missing, repaired":  {metric: judges.MetricKnowledgeRetention, replies: []string{`{"verdicts":[{"turn":5,"pass":true,"reason":"ok"}]}`, `{"verdicts":[{"turn":5,"pass":true,"reason":"ok"},{"turn":7,"pass":false,"reason":"forgets the children"}]}`}, value: 0.5, calls: 2, issue: "turn 7: forgets the children"},
		"role, a turn not asked about, twice":  {metric: judges.MetricRoleAdherence, replies: []string{`{"verdicts":[{"turn":3,"pass":true,"reason":"x"}]}`, `{"verdicts":[{"turn":4,"pass":true,"reason":"x"}]}`}, value: 0.5, calls: 2, deflt: true},
		"task completion, off the scale twice": {metric: judges.MetricTaskCompletion, replies: []string{`{"grade":0.8,"reason":"x"}`, `{"grade":9,"reason":"x"}`}, value: 0.5, calls: 2, deflt: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opt := llmtest.Func(llmtest.JudgeReplies)
			if tc.replies != nil {
				rs := make([]llmtest.Reply, len(tc.replies))
				for i, r := range tc.replies {
					rs[i] = llmtest.Reply{Content: r}
				}
				opt = llmtest.Script(rs...)
			}
			srv := llmtest.New(t, opt, llmtest.Default(llmtest.Reply{Status: 500, Body: `{"error":{"message":"no scripted reply left"}}`}))
			j, err := judges.New(tc.metric, fakeModel(t, srv))
			require.NoError(t, err)
			sc, err := j.Score(t.Context(), trip)
			require.NoError(t, err)
			assert.Equal(t, tc.metric, sc.Metric)
			assert.Equal(t, tc.calls, srv.Calls())
			assert.InDelta(t, tc.value, sc.Value, 1e-9, sc.Reason)
			assert.Equal(t, tc.deflt, sc.Defaulted, sc.Reason)
			assert.Equal(t, "llm:openai:judge", sc.Method)
			if tc.issue != "" {
				assert.Contains(t, strings.Join(sc.Evidence.Issues, "\n"), tc.issue)
			}
			// The conversation reached the model inside the nonce blocks.
			req := srv.Requests()[0]
			assert.Contains(t, req.Messages[len(req.Messages)-1].Content, `get_weather({\"city\":\"Paris\"})`)
		})
	}
}

func TestConversationJudgesOffline(t *testing.T) {
	t.Parallel()
	offTopic := eval.Sample{Messages: []eval.Message{
		{Role: eval.RoleSystem, Content: "You are a travel assistant for trips and weather."},
		{Role: eval.RoleUser, Content: "We are 4 people flying to Lyon on Monday. Is it raining there?"},
		{Role: eval.RoleAssistant, Content: "As an AI language model I love football scores."},
		{Role: eval.RoleUser, Content: "Please answer about Lyon."},
		{Role: eval.RoleAssistant, Content: "How many people are flying to Lyon on Monday?"},
		{Role: eval.RoleAssistant, Content: "Booked a table for 3 people in Lyon."},
	}}
	// Thai counts with a classifier after the number: "ลูก 2 คน" (two
	// children); "เพื่อน 4 คน" (four friends) counts something else.
	thaiCount := func(said, says string) eval.Sample {
		return eval.Sample{Messages: []eval.Message{
			{Role: eval.RoleUser, Content: said},
			{Role: eval.RoleAssistant, Content: "เชียงใหม่เหมาะกับครอบครัว"},
			{Role: eval.RoleUser, Content: "ควรพักที่ไหนดี"},
			{Role: eval.RoleAssistant, Content: says},
		}}
	}
	tests := map[string]struct {
		metric string
		sample eval.Sample
		value  float64
		issue  string
	}{
		"retention, a Thai count changed": {judges.MetricKnowledgeRetention,
			thaiCount("ฉันมีลูก 2 คน อยากไปเที่ยวเชียงใหม่", "สำหรับลูก 3 คนของคุณควรพักโรงแรมห้องครอบครัว"), 0.5,
			"says ลูก 3 คน where the user said ลูก 2 คน"},
		"retention, a Thai count in Thai digits kept": {judges.MetricKnowledgeRetention,
			thaiCount("ฉันมีลูก ๒ คน อยากไปเที่ยวเชียงใหม่", "สำหรับลูก 2 คนของคุณควรพักโรงแรมห้องครอบครัว"), 1, ""},
		"retention, another Thai noun with the same classifier": {judges.MetricKnowledgeRetention,
			thaiCount("ฉันไปกับเพื่อน 4 คน", "สำหรับลูก 2 คนของคุณควรพักโรงแรมห้องครอบครัว"), 1, ""},
		// One number written two ways is the number the user gave.
		"retention, thousands grouped or not": {judges.MetricKnowledgeRetention,
			thaiCount("My budget is 1,500 dollars for the trip.", "With your 1500 dollars, a family room fits."), 1, ""},
		"retention, a decimal zero": {judges.MetricKnowledgeRetention,
			thaiCount("ฉันมีงบ 20000 บาท", "งบ 20,000.00 บาทของคุณพอสำหรับห้องครอบครัว"), 1, ""},
		"retention, a grouped number changed": {judges.MetricKnowledgeRetention,
			thaiCount("My budget is 1,500 dollars for the trip.", "With your 15,000 dollars, a suite fits."), 0.5,
			"says 15,000 dollars where the user said 1,500 dollars"},
		"relevancy, all relevant":        {judges.MetricConversationRelevancy, trip, 1, ""},
		"relevancy, one off topic":       {judges.MetricConversationRelevancy, offTopic, 2.0 / 3, "turn 3: lexical relevance"},
		"retention, kept":                {judges.MetricKnowledgeRetention, trip, 1, ""},
		"retention, asked again, number": {judges.MetricKnowledgeRetention, offTopic, 1.0 / 3, "says 3 people where the user said 4 people"},
		"role, kept":                     {judges.MetricRoleAdherence, trip, 1, ""},
		"role, broken":                   {judges.MetricRoleAdherence, offTopic, 2.0 / 3, `breaks character ("As an AI language model")`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j, err := judges.New(tc.metric, nil)
			require.NoError(t, err)
			sc, err := j.Score(t.Context(), tc.sample)
			require.NoError(t, err)
			assert.Equal(t, judges.MethodOffline, sc.Method, "labelled approximate")
			assert.InDelta(t, tc.value, sc.Value, 1e-9, "%s %v", sc.Reason, sc.Evidence.Issues)
			if tc.issue != "" {
				assert.Contains(t, strings.Join(sc.Evidence.Issues, "\n"), tc.issue)
			}
		})
	}
}

func TestConversationJudgesSkip(t *testing.T) {
	t.Parallel()
	noSystem := eval.Sample{Messages: trip.Messages[1:]}
	toolsOnly := eval.Sample{Messages: trip.Messages[:4]}
	tests := map[string]struct {
		metric string
		sample eval.Sample
		err    error
	}{
		"no messages":           {judges.MetricTaskCompletion, eval.Sample{Query: "q", Answer: "a"}, eval.ErrNoConversation},
		"not evaluable":         {judges.MetricConversationRelevancy, eval.Sample{Messages: trip.Messages, NotEvaluable: "no content"}, eval.ErrNotEvaluable},
		"no system message":     {judges.MetricRoleAdherence, noSystem, judges.ErrNoSystemMessage},
		"no assistant text":     {judges.MetricKnowledgeRetention, toolsOnly, judges.ErrNoAssistantTurn},
		"no assistant text too": {judges.MetricTaskCompletion, toolsOnly, judges.ErrNoAssistantTurn},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			j, err := judges.New(tc.metric, fakeModel(t, srv))
			require.NoError(t, err)
			sc, err := j.Score(t.Context(), tc.sample)
			require.NoError(t, err)
			assert.True(t, sc.Skipped)
			assert.True(t, errors.Is(sc.Err, tc.err), "%v", sc.Err)
			assert.Zero(t, srv.Calls(), "nothing to judge: no call")
		})
	}
}

func TestRelevancyWindowIsChecked(t *testing.T) {
	t.Parallel()
	j := judges.ConversationRelevancy{}
	require.NoError(t, j.Check(eval.Sample{Metadata: map[string]any{judges.WindowField: 2.0}}))
	var ie *eval.InputError
	require.ErrorAs(t, j.Check(eval.Sample{Metadata: map[string]any{judges.WindowField: 0.5}}), &ie)
	assert.Equal(t, "metadata.relevancy_window", ie.Field)
	// A window of one turn sees only the turn before: turn 7 of trip sees
	// turn 6, the umbrella question, and its reply is still relevant.
	sc, err := judges.ConversationRelevancy{Window: 1}.Score(t.Context(), trip)
	require.NoError(t, err)
	assert.InDelta(t, 1.0, sc.Value, 0, sc.Reason)
}

// TestRelevancyWindowRefusalShowsTheValueAsWritten: a refused window is
// shown as the record wrote it, a string quoted, so that "3" does not
// read as the number the message asks for.
func TestRelevancyWindowRefusalShowsTheValueAsWritten(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		value any
		got   string
	}{
		"a number as text": {"4", `got "4"`},
		"a fraction":       {1.25, "got 1.25"},
		"a negative":       {-2.0, "got -2"},
		"a list":           {[]any{2.0}, "got [2]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := judges.ConversationRelevancy{}.Check(eval.Sample{Metadata: map[string]any{judges.WindowField: tc.value}})
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.True(t, strings.HasSuffix(ie.Msg, tc.got), ie.Msg)
		})
	}
}

// TestConversationReasonsCountTurns: a reason's count of turns agrees
// with its noun and verb, one turn being "1 assistant turn".
func TestConversationReasonsCountTurns(t *testing.T) {
	t.Parallel()
	one := eval.Sample{Messages: []eval.Message{
		{Role: eval.RoleSystem, Content: "You are a travel assistant for trips and weather."},
		{Role: eval.RoleUser, Content: "We are 4 people flying to Lyon on Monday. Is it raining in Lyon?"},
		{Role: eval.RoleAssistant, Content: "Lyon will be dry on Monday for your 4 people."},
	}}
	tests := map[string]struct {
		metric string
		sample eval.Sample
		want   string
	}{
		"retention, one turn":  {judges.MetricKnowledgeRetention, one, "1 of 1 assistant turn keeps what the user said"},
		"role, one turn":       {judges.MetricRoleAdherence, one, "1 of 1 assistant turn keeps to the system message's role"},
		"relevancy, one turn":  {judges.MetricConversationRelevancy, one, "1 of 1 assistant turn relevant to the turns before it"},
		"retention, two turns": {judges.MetricKnowledgeRetention, trip, "2 of 2 assistant turns keep what the user said"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j, err := judges.New(tc.metric, nil)
			require.NoError(t, err)
			sc, err := j.Score(t.Context(), tc.sample)
			require.NoError(t, err)
			assert.Equal(t, tc.want, sc.Reason)
		})
	}
}
