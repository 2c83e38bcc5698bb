package llmtest

import (
	"encoding/json"
	"strings"
	"sync"
	"unicode"

	"github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/dryrun"
	"github.com/assaylabs/assay/metric"
)

// judgeStandIns holds the built-in judges, for their dry-run stand-ins.
var judgeStandIns = sync.OnceValue(func() *metric.Registry {
	var r metric.Registry
	if err := judges.AddBuiltins(&r); err != nil {
		panic(err) // the built-in entries are fixed: a programming error
	}
	r.Seal()
	return &r
})

// JudgeReplies answers every Assay judge prompt with a valid reply of the
// shape its schema asks for, chosen by the schema's name (structured output)
// or, in JSON and prompt modes, by the reply format the system message
// names. It makes fake servers usable for end-to-end runs and benchmarks.
func JudgeReplies(req openai.ChatCompletionRequest) Reply { return replies(req, nil) }

// ResearchReplies answers as JudgeReplies does and, with research (the
// research workflow's dry-run stand-in, agent.StandIn, which the test
// passes so that this package imports no agent), the workflow's report:
// the stand-in's, with one sentence more whose quote no source has,
// which the workflow must remove.
func ResearchReplies(research dryrun.Replier) func(openai.ChatCompletionRequest) Reply {
	return func(req openai.ChatCompletionRequest) Reply { return replies(req, research) }
}

// replies answers req: a judge's prompt, and with research not nil the
// research workflow's report.
func replies(req openai.ChatCompletionRequest, research dryrun.Replier) Reply {
	name := ""
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		name = rf.JSONSchema.Name
	}
	sys := ""
	if len(req.Messages) > 0 {
		sys = req.Messages[0].Content
	}
	has := func(schema, marker string) bool {
		return name == schema || (name == "" && strings.Contains(sys, marker))
	}
	switch {
	case sys == judges.CheckInstruction:
		return checkReply(req)
	case name == "defined_steps" || name == "defined_grade":
		return definedReply(req)
	case has("claims", `{"claims"`):
		return Reply{Content: `{"claims":["The first statement of the answer.","The second statement of the answer."]}`}
	case has("verdicts", `{"verdicts": [{"statement"`):
		return standIn("verdicts", req)
	case has("classification", `{"answer": [{"statement"`):
		return standIn("classification", req)
	case has("questions", `{"questions"`):
		return standIn("questions", req)
	case has("usefulness", `"useful"`):
		return standIn("usefulness", req)
	case has("aspects", `{"aspects"`):
		return standIn("aspects", req)
	case has("reasoning", `"clarity"`):
		return standIn("reasoning", req)
	case has("summary", `{"summary"`):
		return Reply{Content: `{"summary":"The source reports measurements that bear on the question."}`}
	case has("explanation", `{"explanation"`):
		return Reply{Content: `{"explanation":"## Insufficient data\n\nThe fake model found nothing useful.\n\n## Suggestions\n\n- Search elsewhere."}`}
	case research != nil && has("report", `{"report"`):
		return fakeReport(req, research)
	case has("turn_verdicts", `{"verdicts": [{"turn"`):
		return standIn("turn_verdicts", req)
	case has("grade", `{"grade"`):
		return standIn("grade", req)
	}
	return Reply{Status: 400, Body: `{"error":{"message":"fake server: unknown judge prompt","type":"invalid_request_error"}}`}
}

// checkReply answers a fact checker's check (judges.FactChecker, the
// --checker tier) as a fact-checking model does, with one word and,
// when asked, the log-probabilities of Yes and No: Yes (0.9) when at
// least half the claim's words of four letters or more are in the
// document, else No (0.9).
func checkReply(req openai.ChatCompletionRequest) Reply {
	user := ""
	if len(req.Messages) > 1 {
		user = req.Messages[len(req.Messages)-1].Content
	}
	doc, claim, ok := cutLast(user, "\nClaim: ")
	if !ok {
		return Reply{Status: 400, Body: `{"error":{"message":"fake server: a check needs Document: ... and Claim: ...","type":"invalid_request_error"}}`}
	}
	inDoc := map[string]bool{}
	for _, w := range checkWords(doc) {
		inDoc[w] = true
	}
	found, all := 0, 0
	for _, w := range checkWords(claim) {
		all++
		if inDoc[w] {
			found++
		}
	}
	answer, p := "No", map[string]float64{"Yes": 0.1, "No": 0.9}
	if all > 0 && 2*found >= all {
		answer, p = "Yes", map[string]float64{"Yes": 0.9, "No": 0.1}
	}
	return Reply{Content: answer, Logprobs: Tokenize(answer, answer, []string{"Yes", "No"}, p)}
}

// cutLast cuts s around the last sep.
func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// checkWords are the words of s of four letters or more, in lower case.
func checkWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 4 {
			out = append(out, w)
		}
	}
	return out
}

// definedReply answers a judge defined in a judges file, asked with
// structured output (the schema travels with the request): its dry-run
// stand-in, judges.DefinedStandIn.
func definedReply(req openai.ChatCompletionRequest) Reply {
	rf := req.ResponseFormat.JSONSchema
	r := llm.Request{Schema: &llm.Schema{Name: rf.Name}}
	if rf.Schema != nil {
		b, err := rf.Schema.MarshalJSON()
		if err == nil {
			r.Schema.JSON = b
		}
	}
	content, _, ok := judges.DefinedStandIn(r, Tokens)
	if !ok {
		return Reply{Status: 400, Body: `{"error":{"message":"fake server: a defined judge's schema it cannot read","type":"invalid_request_error"}}`}
	}
	return Reply{Content: content}
}

// standIn is the dry run's stand-in reply to the schema (the built-in
// metrics' and the research workflow's, as a dry run answers): the same
// for the replies the fake server has no reason to vary.
func standIn(schema string, req openai.ChatCompletionRequest, more ...dryrun.Replier) Reply {
	content, _ := StandIn(schema, req, Tokens, more...)
	return Reply{Content: content}
}

// StandIn is the reply a dry run gives to a request for a reply of schema
// with req's messages (the built-in judges' stand-ins, then each of more:
// agent.StandIn for the research workflow's own requests), its length
// measured by count; ok is false for a schema none knows.
func StandIn(schema string, req openai.ChatCompletionRequest, count func(string) int, more ...dryrun.Replier) (content string, ok bool) {
	r := llm.Request{Schema: &llm.Schema{Name: schema}, Messages: make([]llm.Message, len(req.Messages))}
	for i, m := range req.Messages {
		r.Messages[i] = llm.Message{Role: llm.Role(m.Role), Content: m.Content}
	}
	for _, reply := range append([]dryrun.Replier{judgeStandIns().DryRun}, more...) {
		if content, _, ok = reply(r, count); ok {
			return content, true
		}
	}
	return "", false
}

// fakeReport is the dry run's stand-in report (the first sentence of each
// source, cited with itself as the quote) with one sentence more, whose
// quote no source has, which the caller must remove.
func fakeReport(req openai.ChatCompletionRequest, research dryrun.Replier) Reply {
	var out struct {
		Report string `json:"report"`
	}
	_ = json.Unmarshal([]byte(standIn("report", req, research).Content), &out)
	out.Report = strings.Replace(out.Report, "\n\n## Conclusion",
		"\n\nThe fake model adds a claim of its own ([source](https://invented.example/ \"a quote no source contains\")).\n\n## Conclusion", 1)
	b, _ := json.Marshal(out)
	return Reply{Content: string(b)}
}
