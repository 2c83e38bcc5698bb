package judges

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// Metric names of the conversation judges.
const (
	MetricTaskCompletion        = "task_completion"
	MetricConversationRelevancy = "conversation_relevancy"
	MetricKnowledgeRetention    = "knowledge_retention"
	MetricRoleAdherence         = "role_adherence"
)

// WindowField is the sample's metadata field that sets
// conversation_relevancy's window for that sample, when the judge's
// Window is not set.
const WindowField = "relevancy_window"

// DefaultWindow is conversation_relevancy's window: each assistant turn is
// judged against the 3 turns before it.
const DefaultWindow = 3

// ErrNoSystemMessage is the Err of role_adherence's score for a
// conversation without a system message: no role to keep to, so the
// score is Skipped. Test with errors.Is.
var ErrNoSystemMessage = errors.New("the conversation has no system message: no role to keep to")

// ErrNoAssistantTurn is the Err of a conversation judge's score for a
// conversation in which the assistant says nothing: the score is Skipped.
// Test with errors.Is.
var ErrNoAssistantTurn = errors.New("the conversation has no assistant turn to judge")

// conversationMetrics are the registry entries of the conversation judges.
func conversationMetrics() []metric.Entry {
	return []metric.Entry{
		{Name: MetricTaskCompletion, Kind: metric.KindJudge, Dataset: true,
			Build: func(m Model) eval.Scorer { return TaskCompletion{Model: m} }, DryRun: gradeStandIn},
		{Name: MetricConversationRelevancy, Kind: metric.KindJudge, Dataset: true,
			Build: func(m Model) eval.Scorer { return ConversationRelevancy{Model: m} }, DryRun: turnStandIn},
		{Name: MetricKnowledgeRetention, Kind: metric.KindJudge, Dataset: true,
			Build: func(m Model) eval.Scorer { return KnowledgeRetention{Model: m} }, DryRun: turnStandIn},
		{Name: MetricRoleAdherence, Kind: metric.KindJudge, Dataset: true,
			Build: func(m Model) eval.Scorer { return RoleAdherence{Model: m} }, DryRun: turnStandIn},
	}
}

var (
	_ eval.Scorer    = TaskCompletion{}
	_ eval.Scorer    = ConversationRelevancy{}
	_ metric.Checker = ConversationRelevancy{}
	_ eval.Scorer    = KnowledgeRetention{}
	_ eval.Scorer    = RoleAdherence{}
)

// turnVerdict is a verdict on one assistant turn.
type turnVerdict struct {
	Turn   int    `json:"turn"`
	Pass   bool   `json:"pass"`
	Reason string `json:"reason"`
}

// turnVerdicts is the reply of the judges that give a verdict per turn.
type turnVerdicts struct {
	Verdicts []turnVerdict `json:"verdicts"`
}

var turnSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[turnVerdicts]("turn_verdicts") })

// turnStandIn answers a verdict per turn (conversation_relevancy,
// knowledge_retention, role_adherence) with a pass for every turn the
// prompt lists to judge, no more.
func turnStandIn(req llm.Request, _ func(string) int) (string, int, bool) {
	if !asks(req, turnSchema()) {
		return "", 0, false
	}
	var judge []int
	if blocks := dataBlocks(last(req)); len(blocks) >= 2 {
		_ = json.Unmarshal([]byte(blocks[1]), &judge)
	}
	out := turnVerdicts{Verdicts: []turnVerdict{}}
	for _, n := range judge {
		out.Verdicts = append(out.Verdicts, turnVerdict{Turn: n, Pass: true, Reason: "keeps to the conversation"})
	}
	b, _ := json.Marshal(out)
	return string(b), 12 * (len(judge) + 1), true
}

// conversationSkip returns the skipped score of a sample without a
// conversation to judge, or false.
func conversationSkip(name string, m Model, maxPts float64, s eval.Sample) (eval.Score, bool) {
	switch {
	case s.NotEvaluable != "":
		sc := skip(name, Method(m), maxPts, eval.ErrNotEvaluable, eval.Usage{})
		sc.Reason = eval.NotEvaluableReason(s.NotEvaluable)
		return sc, true
	case len(s.Messages) == 0:
		return skip(name, Method(m), maxPts, eval.ErrNoConversation, eval.Usage{}), true
	}
	return eval.Score{}, false
}

// turns are the messages as the judges read them, numbered from 1.
func turns(msgs []eval.Message) []prompts.Turn {
	out := make([]prompts.Turn, 0, len(msgs))
	for i, m := range msgs {
		text := strings.TrimSpace(eval.Transcript([]eval.Message{m}))
		// Transcript starts each line with the role; the turn names it.
		text = strings.TrimPrefix(text, m.Role+": ")
		out = append(out, prompts.Turn{N: i + 1, Role: m.Role, Text: text})
	}
	return out
}

// assistantTurns are the numbers (1-based) of the assistant messages that
// say something (a text, not only tool calls).
func assistantTurns(msgs []eval.Message) []int {
	var out []int
	for i, m := range msgs {
		if m.Role == eval.RoleAssistant && strings.TrimSpace(m.Content) != "" {
			out = append(out, i+1)
		}
	}
	return out
}

// checkTurns returns a check that a reply gives one verdict for each of
// the turns asked about and none for others.
func checkTurns(want []int) llm.Check {
	return func(out any) error {
		v := out.(*turnVerdicts)
		seen := map[int]bool{}
		for _, tv := range v.Verdicts {
			if !slices.Contains(want, tv.Turn) {
				return fmt.Errorf("turn %d is not one of the turns to judge (%s)", tv.Turn, intList(want))
			}
			if seen[tv.Turn] {
				return fmt.Errorf("turn %d has two verdicts: give one per turn", tv.Turn)
			}
			seen[tv.Turn] = true
		}
		var missing []int
		for _, n := range want {
			if !seen[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("no verdict for turn(s) %s: give one per turn to judge", intList(missing))
		}
		return nil
	}
}

func intList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// turnWhat is what passing turns do, as the reason words it after one
// turn and after several: "keeps what the user said", "keep what...".
type turnWhat struct{ one, many string }

// turnScore is the score of verdicts per turn: the share that pass, the
// failing turns named in the issues, where the conversation lost points.
func turnScore(name, meth string, vs []turnVerdict, u eval.Usage, what turnWhat) eval.Score {
	slices.SortFunc(vs, func(a, b turnVerdict) int { return cmp.Compare(a.Turn, b.Turn) })
	pass := 0
	var issues []string
	for _, v := range vs {
		if v.Pass {
			pass++
			continue
		}
		issues = append(issues, fmt.Sprintf("turn %d: %s", v.Turn, v.Reason))
	}
	n := len(vs)
	return eval.Score{
		Metric: name, Value: float64(pass) / float64(n), Points: float64(pass), Max: float64(n), Method: meth, Usage: u.Recorded(),
		Reason:   fmt.Sprintf("%d of %s %s", pass, plural.Count(n, "assistant turn"), plural.Verb(n, what.one, what.many)),
		Evidence: eval.Evidence{Issues: issues, Counts: map[string]float64{"turns": float64(n), "failed": float64(n - pass)}},
	}
}

// What the turns that pass conversation_relevancy, knowledge_retention
// and role_adherence do.
var (
	relevantTurns = turnWhat{"relevant to the turns before it", "relevant to the turns before them"}
	keptTurns     = turnWhat{"keeps what the user said", "keep what the user said"}
	roleTurns     = turnWhat{"keeps to the system message's role", "keep to the system message's role"}
)

// askTurns asks the model for a verdict on each turn of judge.
func askTurns(ctx context.Context, m Model, name, tmpl string, s eval.Sample, judge []int, window int, what turnWhat) (eval.Score, error) {
	var v turnVerdicts
	data := prompts.Conversation{Turns: turns(s.Messages), Judge: judge, Window: window}
	u, err := ask(ctx, m, tmpl, data, &v, turnSchema(), checkTurns(judge))
	if err != nil {
		return fail(ctx, name, m, float64(len(judge)), err, u)
	}
	return turnScore(name, Method(m), v.Verdicts, u, what), nil
}

// TaskCompletion is task_completion: did the conversation achieve what the
// user asked for. The model grades the whole conversation (its turns, the
// tools called and what they returned) 1-5; the value is (grade-1)/4.
//
// Offline, an approximation labelled as such: the lexical relevance of the
// assistant's replies to the user's requests, as a 1-5 grade on source
// relevance's cut-points; 1 when that reply is noncommittal, and one grade
// less when a tool call failed and no later call of that tool succeeded.
type TaskCompletion struct {
	Model Model
}

// Score implements eval.Scorer.
func (t TaskCompletion) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if sc, ok := conversationSkip(MetricTaskCompletion, t.Model, 5, s); ok {
		return sc, nil
	}
	said := assistantTurns(s.Messages)
	if len(said) == 0 {
		return skip(MetricTaskCompletion, Method(t.Model), 5, ErrNoAssistantTurn, eval.Usage{}), nil
	}
	if Offline(t.Model) {
		return gradeScore(MetricTaskCompletion, MethodOffline, offlineCompletion(s.Messages, said), eval.Usage{}), nil
	}
	var g grade
	u, err := ask(ctx, t.Model, "conversation.task", prompts.Conversation{Turns: turns(s.Messages)}, &g, gradeSchema())
	if err != nil {
		return fail(ctx, MetricTaskCompletion, t.Model, 5, fmt.Errorf("grade: %w", err), u)
	}
	return gradeScore(MetricTaskCompletion, Method(t.Model), g, u), nil
}

func offlineCompletion(msgs []eval.Message, said []int) grade {
	var asked, replies []string
	for _, m := range msgs {
		switch m.Role {
		case eval.RoleUser:
			asked = append(asked, m.Content)
		case eval.RoleAssistant:
			replies = append(replies, m.Content)
		}
	}
	if final := msgs[said[len(said)-1]-1].Content; noncommittal().MatchString(final) {
		return grade{Grade: 1, Reason: "the assistant's last reply is noncommittal"}
	}
	rel := heuristics.Explain(strings.Join(asked, "\n"), strings.Join(replies, "\n"))
	g := grade{Grade: heuristics.GradeOfRelevance(rel.Value), Reason: fmt.Sprintf("lexical relevance of the replies to the user's requests %.2f: %s", rel.Value, rel)}
	if tool := unrecoveredFailure(msgs); tool != "" && g.Grade > 1 {
		g.Grade--
		g.Reason += "; a call of " + tool + " failed and was not made again successfully"
	}
	return g
}

// unrecoveredFailure names a tool whose call failed with no later
// successful call of it, or "".
func unrecoveredFailure(msgs []eval.Message) string {
	name := map[string]string{} // call ID -> tool
	failedLast := map[string]bool{}
	var order []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			name[c.ID] = c.Function.Name
		}
		if m.Role != eval.RoleTool {
			continue
		}
		tool := cmp.Or(name[m.ToolCallID], m.Name)
		if !slices.Contains(order, tool) {
			order = append(order, tool)
		}
		failedLast[tool] = m.Failed()
	}
	for _, t := range order {
		if failedLast[t] {
			return t
		}
	}
	return ""
}

// ConversationRelevancy is conversation_relevancy: the share of the
// assistant's turns that are relevant to the conversation at that point,
// each judged against the Window turns before it (a sliding window). The
// model gives a verdict per turn, in one call; the failing turns are named
// in the evidence.
//
// Window 0 takes the sample's metadata field relevancy_window (a whole
// number of at least 1), else DefaultWindow. Offline, an approximation
// labelled as such: a turn is relevant when its lexical relevance to the
// user's words in its window grades 2 or more of 5 (it shares the
// matter), or it is a short clarifying question.
type ConversationRelevancy struct {
	Model  Model
	Window int
}

// Check implements metric.Checker: the sample's relevancy_window, when
// given, is a whole number of at least 1.
func (c ConversationRelevancy) Check(s eval.Sample) error {
	_, err := c.window(s)
	return err
}

func (c ConversationRelevancy) window(s eval.Sample) (int, error) {
	if c.Window > 0 {
		return c.Window, nil
	}
	v, ok := s.Metadata[WindowField]
	if !ok || v == nil {
		return DefaultWindow, nil
	}
	f, isNum := v.(float64)
	if n, isInt := v.(int); isInt {
		f, isNum = float64(n), true
	}
	if !isNum || f < 1 || f != float64(int(f)) {
		got, _ := json.Marshal(v) // as the record wrote it: "3" is a string
		return 0, &eval.InputError{Field: "metadata." + WindowField, Msg: "want a whole number of turns, at least 1, got " + string(got)}
	}
	return int(f), nil
}

// Score implements eval.Scorer.
func (c ConversationRelevancy) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	window, err := c.window(s)
	if err != nil {
		return eval.Score{}, err
	}
	if sc, ok := conversationSkip(MetricConversationRelevancy, c.Model, 1, s); ok {
		return sc, nil
	}
	judge := assistantTurns(s.Messages)
	if len(judge) == 0 {
		return skip(MetricConversationRelevancy, Method(c.Model), 1, ErrNoAssistantTurn, eval.Usage{}), nil
	}
	if Offline(c.Model) {
		vs := make([]turnVerdict, 0, len(judge))
		for _, n := range judge {
			vs = append(vs, offlineRelevant(s.Messages, n, window))
		}
		return turnScore(MetricConversationRelevancy, MethodOffline, vs, eval.Usage{}, relevantTurns), nil
	}
	return askTurns(ctx, c.Model, MetricConversationRelevancy, "conversation.relevancy", s, judge, window, relevantTurns)
}

// offlineRelevant judges turn n (1-based) against the user's words in
// the window turns before it.
func offlineRelevant(msgs []eval.Message, n, window int) turnVerdict {
	var user []string
	for i := max(0, n-1-window); i < n-1; i++ {
		if msgs[i].Role == eval.RoleUser || msgs[i].Role == eval.RoleTool {
			user = append(user, msgs[i].Content)
		}
	}
	text := msgs[n-1].Content
	if len(user) == 0 {
		return turnVerdict{Turn: n, Pass: true, Reason: "no user turn in its window: an opening"}
	}
	if strings.HasSuffix(strings.TrimSpace(text), "?") && len(strings.Fields(text)) <= 25 {
		return turnVerdict{Turn: n, Pass: true, Reason: "a short clarifying question"}
	}
	rel := heuristics.Explain(strings.Join(user, "\n"), text)
	g := heuristics.GradeOfRelevance(rel.Value)
	return turnVerdict{Turn: n, Pass: g >= 2, Reason: fmt.Sprintf("lexical relevance to its window %.2f (grade %d of 5)", rel.Value, g)}
}

// KnowledgeRetention is knowledge_retention: the share of the assistant's
// turns after the user's first message that neither contradict nor forget
// what the user said before them. The model gives a verdict per turn, in
// one call; the failing turns are named in the evidence.
//
// Offline, an approximation labelled as such: a turn fails when it asks a
// question whose words are mostly those of something the user already
// said, or gives a number beside a word where the user gave another
// number beside the same word (heuristics.CountedThings: in Thai, the
// noun and the classifier around the number, Thai digits read as digits).
type KnowledgeRetention struct {
	Model Model
}

// Score implements eval.Scorer.
func (k KnowledgeRetention) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if sc, ok := conversationSkip(MetricKnowledgeRetention, k.Model, 1, s); ok {
		return sc, nil
	}
	judge := assistantTurns(s.Messages)
	if len(judge) == 0 {
		return skip(MetricKnowledgeRetention, Method(k.Model), 1, ErrNoAssistantTurn, eval.Usage{}), nil
	}
	if Offline(k.Model) {
		vs := make([]turnVerdict, 0, len(judge))
		for _, n := range judge {
			vs = append(vs, offlineRetained(s.Messages, n))
		}
		return turnScore(MetricKnowledgeRetention, MethodOffline, vs, eval.Usage{}, keptTurns), nil
	}
	return askTurns(ctx, k.Model, MetricKnowledgeRetention, "conversation.retention", s, judge, 0, keptTurns)
}

func offlineRetained(msgs []eval.Message, n int) turnVerdict {
	text := msgs[n-1].Content
	given := map[string]heuristics.Counted{} // thing -> what the user said of it last
	var said []string
	for _, m := range msgs[:n-1] {
		if m.Role != eval.RoleUser {
			continue
		}
		said = append(said, m.Content)
		for _, c := range heuristics.CountedThings(m.Content) {
			given[c.Thing] = c
		}
	}
	if len(said) == 0 {
		return turnVerdict{Turn: n, Pass: true, Reason: "nothing said by the user before it"}
	}
	for _, c := range heuristics.CountedThings(text) {
		if want, ok := given[c.Thing]; ok && want.Number != c.Number {
			return turnVerdict{Turn: n, Pass: false, Reason: fmt.Sprintf("says %s where the user said %s", c.Text, want.Text)}
		}
	}
	if strings.Contains(text, "?") {
		for _, q := range questions(text) {
			for _, u := range said {
				if heuristics.PassageRelevance(q, u) >= 0.5 {
					return turnVerdict{Turn: n, Pass: false, Reason: fmt.Sprintf("asks %q, which the user already answered", q)}
				}
			}
		}
	}
	return turnVerdict{Turn: n, Pass: true, Reason: "asks nothing the user gave and contradicts no number the user gave"}
}

// questions are the sentences of text that end with a question mark.
func questions(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		switch r {
		case '.', '!', '\n':
			start = i + 1
		case '?':
			if q := strings.TrimSpace(text[start : i+1]); q != "" {
				out = append(out, q)
			}
			start = i + 1
		}
	}
	return out
}

// RoleAdherence is role_adherence: the share of the assistant's turns that
// keep to the role its system message gives it (persona, scope, rules).
// The model gives a verdict per turn, in one call; the failing turns are
// named in the evidence. A conversation without a system message is
// Skipped (ErrNoSystemMessage).
//
// Offline, an approximation labelled as such: a turn fails when it breaks
// character ("as an AI language model") or shares no word with the system
// message nor with the user's turn before it.
type RoleAdherence struct {
	Model Model
}

// Score implements eval.Scorer.
func (r RoleAdherence) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if sc, ok := conversationSkip(MetricRoleAdherence, r.Model, 1, s); ok {
		return sc, nil
	}
	var system []string
	for _, m := range s.Messages {
		if m.Role == eval.RoleSystem && strings.TrimSpace(m.Content) != "" {
			system = append(system, m.Content)
		}
	}
	if len(system) == 0 {
		return skip(MetricRoleAdherence, Method(r.Model), 1, ErrNoSystemMessage, eval.Usage{}), nil
	}
	judge := assistantTurns(s.Messages)
	if len(judge) == 0 {
		return skip(MetricRoleAdherence, Method(r.Model), 1, ErrNoAssistantTurn, eval.Usage{}), nil
	}
	if Offline(r.Model) {
		vs := make([]turnVerdict, 0, len(judge))
		for _, n := range judge {
			vs = append(vs, offlineInRole(s.Messages, strings.Join(system, "\n"), n))
		}
		return turnScore(MetricRoleAdherence, MethodOffline, vs, eval.Usage{}, roleTurns), nil
	}
	return askTurns(ctx, r.Model, MetricRoleAdherence, "conversation.role", s, judge, 0, roleTurns)
}

// outOfRole matches an assistant breaking character.
var outOfRole = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(as an ai( language model)?|i am an ai|i'm an ai|as a (large )?language model|i am (just )?a (large )?language model|my (system )?prompt (says|is)|ignore (all|my) (previous )?instructions)\b`)
})

func offlineInRole(msgs []eval.Message, system string, n int) turnVerdict {
	text := msgs[n-1].Content
	if m := outOfRole().FindString(text); m != "" {
		return turnVerdict{Turn: n, Pass: false, Reason: fmt.Sprintf("breaks character (%q)", m)}
	}
	context := system
	for i := n - 2; i >= 0; i-- {
		if msgs[i].Role == eval.RoleUser {
			context += "\n" + msgs[i].Content
			break
		}
	}
	if rel := heuristics.PassageRelevance(context, text); rel == 0 {
		return turnVerdict{Turn: n, Pass: false, Reason: "shares no word with the role or the user's request: off its scope"}
	}
	return turnVerdict{Turn: n, Pass: true, Reason: "in character, within the role's words"}
}
