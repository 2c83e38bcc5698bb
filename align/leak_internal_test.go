package align

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
)

// TestHeldOutLabelsStayOut aligns a judge on 60 labelled answers, each
// a token of its own, and reads every request the model got: no
// held-out answer is shown as an example or in a proposal request, each
// is graded by the judge as it was and the aligned one alone, and the
// aligned judge, read back from the file written, grades the held-out
// answers to the agreement reported. An answer labelled twice (two
// records, two ids: two people's labels) is held out or trained on
// whole: its other record's label shown as an example would leak it.
func TestHeldOutLabelsStayOut(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		answers, copies int
	}{
		"each answer labelled once":  {answers: 60, copies: 1},
		"each answer labelled twice": {answers: 40, copies: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			heldOutLabelsStayOut(t, tc.answers, tc.copies)
		})
	}
}

func heldOutLabelsStayOut(t *testing.T, answers, copies int) {
	dir := t.TempDir()
	truth := map[string]bool{}
	var b strings.Builder
	for i := range answers {
		answer := fmt.Sprintf("zq%02dx", i)
		truth[answer] = i%3 != 1
		for c := range copies {
			line, err := json.Marshal(map[string]any{"id": fmt.Sprintf("c%d-%d", i, c), "question": "Does the parcel ship today?", "answer": answer,
				"human": map[string]any{"ships_today": truth[answer]}})
			require.NoError(t, err)
			b.Write(append(line, '\n'))
		}
	}
	labels := filepath.Join(dir, "labels.jsonl")
	require.NoError(t, os.WriteFile(labels, []byte(b.String()), 0o644))
	judgesFile := filepath.Join(dir, "judges.yaml")
	require.NoError(t, os.WriteFile(judgesFile, []byte("judges:\n  - name: ships_today\n    criterion: The reply says when the parcel ships.\n    scale: pass/fail\n"), 0o644))

	answerIn := func(text string) []string {
		var out []string
		for a := range truth {
			if strings.Contains(text, a) {
				out = append(out, a)
			}
		}
		return out
	}
	// Right only when shown examples, so that a few-shot set is chosen.
	rule := func(g llmtest.GradeRequest) string {
		if g.Examples == 0 {
			return "pass"
		}
		for _, a := range answerIn(g.Sample) {
			if !truth[a] {
				return "fail"
			}
		}
		return "pass"
	}
	replies := llmtest.Graded(rule, "The reply says the day the parcel ships.")
	var mu sync.Mutex
	shown := map[string]bool{}               // answers in an example block or a proposal
	gradedBy := map[string]map[string]bool{} // answer -> the prompts (system + examples) that graded it
	nonce := regexp.MustCompile(`-[0-9a-f]{24}`)
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content)
			all.WriteString("\n")
		}
		text := all.String()
		if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name == "defined_grade" {
			before, sample, ok := strings.Cut(text, "The sample to grade:")
			if !ok { // no examples: the user message is the sample
				before, sample = req.Messages[0].Content, text
			}
			before = nonce.ReplaceAllString(before, "")
			for _, a := range answerIn(before) {
				shown[a] = true
			}
			for _, a := range answerIn(sample) {
				if gradedBy[a] == nil {
					gradedBy[a] = map[string]bool{}
				}
				gradedBy[a][before] = true
			}
		} else {
			for _, a := range answerIn(text) {
				shown[a] = true
			}
		}
		return replies(req)
	}))
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": dir}
	job := Job{Metric: "ships_today", Judges: judgesFile, Labels: labels, Out: filepath.Join(dir, "aligned.yaml"), Seed: 3,
		Judging: judging.Default(), Env: func(k string) string { return env[k] }}
	job.Judging.LLM.Spec = "openai:fake-judge"
	out, err := Align(context.Background(), job)
	require.NoError(t, err)
	require.True(t, out.Gain, "%+v", out)
	require.Contains(t, out.What, "examples")

	// The held-out part, as Align split it.
	check := job
	require.NoError(t, check.check())
	def, err := check.definition()
	require.NoError(t, err)
	lab, err := check.read(def)
	require.NoError(t, err)
	train, held := split(lab.rows, check.holdout, check.Seed)
	require.Len(t, held, out.Heldout)
	require.Len(t, train, out.Train)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, shown, "examples and misses were shown")
	for _, r := range held {
		a := r.rec.Sample.Answer
		assert.False(t, shown[a], "held-out %s was shown to the model", a)
		assert.Len(t, gradedBy[a], 2, "held-out %s is graded by the judge as it was and the aligned one alone", a)
		for _, r := range train {
			assert.NotEqual(t, a, r.rec.Sample.Answer, "held-out %s is a training record too", a)
		}
	}
	for a := range shown {
		assert.Condition(t, func() bool {
			for _, r := range train {
				if r.rec.Sample.Answer == a {
					return true
				}
			}
			return false
		}, "%s shown but not a training record", a)
	}

	// The file written grades the held-out part as reported.
	data, err := os.ReadFile(job.Out)
	require.NoError(t, err)
	defs, err := judges.ReadDefinitions(job.Out, data, &metric.Registry{})
	require.NoError(t, err)
	require.Len(t, defs, 1)
	assert.Equal(t, out.Aligned.Version(), defs[0].Version())
	s, err := job.Judging.Open(nil, job.Env)
	require.NoError(t, err)
	defer func() { _ = s.Close() }()
	scorer := defs[0].Entry().Build(s.Model())
	right := 0
	for _, r := range held {
		sc, err := scorer.Score(context.Background(), r.rec.Sample)
		require.NoError(t, err)
		if (sc.Points >= defs[0].Threshold) == (r.label == 1) {
			right++
		}
	}
	assert.InDelta(t, out.After.Mean, float64(right)/float64(len(held)), 1e-12)
	assert.Equal(t, len(held), out.After.N)
}
