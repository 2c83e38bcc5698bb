package llmtest

import (
	"encoding/json"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// GradeRequest is one defined judge's grading request, as a Graded rule
// sees it: the system message (criterion, steps, scale, rubric), the
// sample to grade (the user message after any examples) and how many
// graded examples came before it.
type GradeRequest struct {
	System, Sample string
	Examples       int
}

// Graded answers a judge's request to grade a sample with the grade rule
// returns for it ("pass", "4"), so that a test controls how the verdicts
// depend on the prompt's wording: a rule that grades right only when the
// criterion names something, or when examples are shown. It answers a
// request to reword a criterion (align.criterion) with rewrites, one to
// write a rubric (align.rubric) with an anchor per grade, and every
// other request as JudgeReplies does (a rule returning "" too). rule is
// called from many goroutines at once.
func Graded(rule func(GradeRequest) string, rewrites ...string) func(openai.ChatCompletionRequest) Reply {
	return func(req openai.ChatCompletionRequest) Reply {
		name := ""
		if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
			name = rf.JSONSchema.Name
		}
		msg := func(i int) string {
			if i < len(req.Messages) {
				return req.Messages[i].Content
			}
			return ""
		}
		switch name {
		case "defined_grade":
			user := msg(1)
			g := GradeRequest{System: msg(0), Sample: user, Examples: strings.Count(user, "grade: <grade-")}
			if _, after, ok := strings.Cut(user, "The sample to grade:"); ok {
				g.Sample = after
			}
			if grade := rule(g); grade != "" {
				// A pass/fail grade is a JSON string, a graded one a number.
				v := grade
				if grade == "pass" || grade == "fail" {
					v = `"` + grade + `"`
				}
				return Reply{Content: `{"reason":"graded by the test's rule","grade":` + v + `}`}
			}
		case "align_criteria":
			b, _ := json.Marshal(map[string][]string{"criteria": rewrites})
			return Reply{Content: string(b)}
		case "align_rubric":
			var lines []map[string]string
			for _, g := range gradesOf(msg(0)) {
				lines = append(lines, map[string]string{"grade": g, "text": "a sample at grade " + g + " on the criterion"})
			}
			b, _ := json.Marshal(map[string]any{"rubric": lines})
			return Reply{Content: string(b)}
		}
		return JudgeReplies(req)
	}
}

// gradesOf reads the grades align.rubric's system message lists ("one
// entry for each grade of 1, 2, 3.").
func gradesOf(system string) []string {
	_, after, ok := strings.Cut(system, "one entry for each grade of ")
	if !ok {
		return nil
	}
	list, _, _ := strings.Cut(after, ".")
	return strings.Split(list, ", ")
}
