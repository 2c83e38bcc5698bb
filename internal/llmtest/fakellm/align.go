package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/assaylabs/assay/internal/llmtest"
)

// alignReplies grade a defined judge's sample as the labels file at path
// labels its answer (human.label true: pass) when the judge's prompt
// contains phrase, and pass otherwise; a request to reword a criterion
// gets a rewrite without phrase and one with it. With phrase "" every
// prompt grades right, so no rewording can gain.
func alignReplies(path, label, phrase string) (func(goopenai.ChatCompletionRequest) llmtest.Reply, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	truth := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var r struct {
			Answer string         `json:"answer"`
			Human  map[string]any `json:"human"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if v, ok := r.Human[label].(bool); ok {
			truth[r.Answer] = map[bool]string{true: "pass", false: "fail"}[v]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	rule := func(g llmtest.GradeRequest) string {
		if !strings.Contains(g.System, phrase) {
			return "pass"
		}
		for answer, grade := range truth {
			if strings.Contains(g.Sample, answer) {
				return grade
			}
		}
		return "pass"
	}
	return llmtest.Graded(rule, "The reply is short and friendly.", "The reply gives the customer a "+phrase+" to take."), nil
}
