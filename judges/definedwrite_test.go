package judges_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/datablock"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
)

// TestWrittenJudgeReadsBackTheSame: a judge written by WriteDefinitions
// (criterion, rubric, threshold, examples) reads back with the loader
// to one that asks the model the very same thing and judges the same.
func TestWrittenJudgeReadsBackTheSame(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"graded, with rubric, threshold and examples": `judges:
  - name: follows_policy
    criterion: The answer follows the policy.
    steps: [Compare the answer with the policy.]
    scale: 1-5
    rubric: {1: ignores the policy, 5: follows it exactly}
    fields: [question, answer, metadata.policy.text]
    threshold: 4
    examples:
      - grade: "5"
        fields: {question: "Refund after 10 days?", answer: "Yes, within 30 days.", metadata.policy.text: "Refunds within 30 days."}
      - grade: "1"
        fields: {question: "Refund after 40 days?", answer: "Sure, any time.", metadata.policy.text: "Refunds within 30 days."}
`,
		"pass/fail, without steps": `judges:
  - name: helpful_reply
    criterion: The reply gives a concrete step.
    scale: pass/fail
    examples:
      - grade: pass
        fields: {question: "How do I reset it?", answer: "Open Settings and press Reset."}
`,
	}
	for name, file := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			orig := defined(t, file)
			var b bytes.Buffer
			require.NoError(t, judges.WriteDefinitions(&b, []*judges.Definition{orig}))
			back, err := judges.ReadDefinitions("aligned.yaml", b.Bytes(), &metric.Registry{})
			require.NoError(t, err, b.String())
			require.Len(t, back, 1)
			got := back[0]
			assert.Equal(t, orig.Version(), got.Version())
			assert.Equal(t, orig.Criterion, got.Criterion)
			assert.Equal(t, orig.Threshold, got.Threshold)
			assert.Equal(t, orig.Rubric, got.Rubric)
			assert.Equal(t, orig.Examples, got.Examples)
			assert.Equal(t, orig.Entry().Threshold, got.Entry().Threshold)

			// Both judge one sample the same, from the same prompt.
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			c := definedClient(t, srv, nil)
			a, err := scorer(t, orig, c).Score(t.Context(), supportSample)
			require.NoError(t, err)
			z, err := scorer(t, got, c).Score(t.Context(), supportSample)
			require.NoError(t, err)
			require.False(t, a.Defaulted, "err %v", a.Err)
			assert.Equal(t, a.Value, z.Value)
			assert.Equal(t, a.Points, z.Points)
			var grades [][]string
			nonce := regexp.MustCompile(`-[0-9a-f]{24}\b`)
			for _, r := range srv.Requests() {
				if r.ResponseFormat != nil && r.ResponseFormat.JSONSchema != nil && r.ResponseFormat.JSONSchema.Name == "defined_grade" {
					grades = append(grades, []string{nonce.ReplaceAllString(r.Messages[0].Content, "-N"), nonce.ReplaceAllString(r.Messages[1].Content, "-N")})
				}
			}
			require.Len(t, grades, 2)
			assert.Equal(t, grades[0], grades[1], "the same prompt")
			last := srv.Requests()[len(srv.Requests())-1].Messages
			// The examples sit in data blocks before the sample.
			ex, ok := datablock.Find(last[1].Content, "grade")
			require.True(t, ok)
			assert.Equal(t, orig.Examples[0].Grade, ex)
			assert.Contains(t, last[1].Content, "The sample to grade:")
		})
	}
}
