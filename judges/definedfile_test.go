package judges_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// TestBadJudgesFile: every way a judges file can be wrong is an input
// error naming the file, the line and the key, before anything runs.
func TestBadJudgesFile(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		file  string
		line  int
		field string
		msg   string
	}{
		"an unknown key of a judge": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 1-5\n    treshold: 4\n", 5, "judges[0].treshold", "unknown field",
		},
		"an example graded off the scale": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 1-5\n    examples:\n      - grade: \"9\"\n        fields: {question: q, answer: a}\n", 6, "judges[0].examples[0]", `grade "9" is not a grade`,
		},
		"an example without a field the judge reads": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 1-5\n    examples:\n      - grade: \"3\"\n        fields: {answer: a}\n", 6, "judges[0].examples[0]", "no text for the field question",
		},
		"an example with a field the judge does not read": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: pass/fail\n    examples:\n      - grade: pass\n        fields: {question: q, answer: a, reference: r}\n", 6, "judges[0].examples[0]", "field reference is not one the judge reads",
		},
		"an unknown key at the top": {
			"judge:\n  - name: tone\n", 1, "judge", "unknown field",
		},
		"a missing criterion": {
			"judges:\n  - name: tone\n    scale: 1-5\n", 2, "judges[0].criterion", "missing",
		},
		"a blank criterion": {
			"judges:\n  - name: tone\n    scale: 1-5\n    criterion: '  '\n", 4, "judges[0].criterion", "missing",
		},
		"a criterion that is a list": {
			"judges:\n  - name: tone\n    scale: 1-5\n    criterion: [a, b]\n", 4, "judges[0].criterion", "must be text, got a list",
		},
		"a missing scale": {
			"judges:\n  - name: tone\n    criterion: Polite.\n", 2, "judges[0].scale", "missing",
		},
		"a scale of dots": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 1..5\n", 4, "judges[0].scale", `cannot read scale "1..5"`,
		},
		"a scale of words": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: good/bad\n", 4, "judges[0].scale", `cannot read scale "good/bad"`,
		},
		"a scale upside down": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 5-1\n", 4, "judges[0].scale", "LO below HI",
		},
		"a scale with leading zeros": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 01-05\n", 4, "judges[0].scale", `cannot use scale "01-05": write its grades without leading zeros (1-5)`,
		},
		"a scale with a leading zero at its top": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 0-010\n", 4, "judges[0].scale", `cannot use scale "0-010": write its grades without leading zeros (0-10)`,
		},
		"a scale past 10": {
			"judges:\n  - name: tone\n    criterion: Polite.\n    scale: 0-100\n", 4, "judges[0].scale", "from 0 to 10",
		},
		"a name of a built-in metric": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n  - name: answer_relevancy\n    criterion: b\n    scale: 1-5\n", 5, "judges[1].name", "built-in metric",
		},
		"a name twice": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n  - name: tone\n    criterion: b\n    scale: 0-10\n", 5, "judges[1].name", "names two judges",
		},
		"a name a gate cannot carry": {
			"judges:\n  - name: Tone.v2\n    criterion: a\n    scale: 1-5\n", 2, "judges[0].name", "lower-case letters",
		},
		"a missing name": {
			"judges:\n  - criterion: a\n    scale: 1-5\n", 2, "judges[0].name", "missing",
		},
		"a field it cannot read": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    fields: [question, response]\n", 5, "judges[0].fields[1]", `cannot read field "response"`,
		},
		"a metadata field without a name": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    fields:\n      - answer\n      - metadata.\n", 7, "judges[0].fields[1]", `cannot read field "metadata."`,
		},
		"a field twice": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    fields: [answer, answer]\n", 5, "judges[0].fields[1]", "named twice",
		},
		"a rubric grade off the scale": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    rubric:\n      1: rude\n      6: beyond polite\n", 7, "judges[0].rubric.6", `"6" is not a grade of the scale 1-5`,
		},
		"a rubric grade written twice": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    rubric:\n      3: fair\n      03: middling\n", 7, "judges[0].rubric.03", `"03" is not a grade of the scale 1-5 (1, 2, 3, 4, 5)`,
		},
		"a rubric grade with a sign": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 0-10\n    rubric:\n      +7: good\n", 6, "judges[0].rubric.+7", `"+7" is not a grade of the scale 0-10`,
		},
		"an example graded 04": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    examples:\n      - grade: '04'\n        fields: {question: q, answer: a}\n", 6, "judges[0].examples[0]", `grade "04" is not a grade of the scale 1-5`,
		},
		"a rubric of pass/fail with numbers": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: pass/fail\n    rubric:\n      1: polite\n", 6, "judges[0].rubric.1", "not a grade of the scale pass/fail",
		},
		"an empty rubric line": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 0-10\n    rubric:\n      10: ''\n", 6, "judges[0].rubric.10", "empty rubric line",
		},
		"a threshold off the scale": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    threshold: 0.8\n", 5, "judges[0].threshold", "want a grade from 1 to 5",
		},
		"a threshold that is no number": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    threshold: high\n", 5, "judges[0].threshold", `must be a number, got "high"`,
		},
		"a threshold of pass/fail": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: pass/fail\n    threshold: 1\n", 5, "judges[0].threshold", "leave threshold out",
		},
		"an empty step": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    steps:\n      - Read it.\n      - ''\n", 7, "judges[0].steps[1]", "empty step",
		},
		"no steps in a list": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    steps: []\n", 5, "judges[0].steps", "an empty list",
		},
		"no judge": {
			"judges: []\n", 1, "judges", "no judge",
		},
		"an empty file": {
			"\n", 0, "", "empty judges file",
		},
		"a second YAML document": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n---\njudges:\n  - name: care\n    criterion: b\n    scale: 1-5\n", 5, "", "a second YAML document",
		},
		"a second document after an empty one": {
			"judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n---\n---\njudges:\n  - name: care\n    criterion: b\n    scale: 1-5\n", 6, "", "a second YAML document",
		},
		"a criterion that is a list, in JSON": {
			`{"judges": [{"name": "tone", "criterion": ["a"], "scale": "1-5"}]}`, 1, "judges[0].criterion", "must be text, got a list",
		},
		"a threshold that is no number, in JSON": {
			`{"judges": [{"name": "tone", "criterion": "a", "threshold": "high", "scale": "1-5"}]}`, 1, "judges[0].threshold", `must be a number, got "high"`,
		},
		"a key twice, in JSON": {
			`{"judges": [{"name": "tone", "name": "care", "criterion": "a", "scale": "1-5", "steps": ["x"]}]}`, 1, "judges[0].name", `mapping key "name" already defined`,
		},
		"not YAML": {
			"judges:\n  - name: [tone\n", 0, "", "fix the YAML syntax",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "judges.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tc.file), 0o600))
			reg, err := judges.Extend(agent.Builtins(), path)
			assert.Nil(t, reg)
			ie, ok := errors.AsType[*eval.InputError](err)
			require.True(t, ok, "an input error: %v", err)
			assert.Equal(t, path, ie.File)
			assert.Equal(t, tc.line, ie.Line, "line: %v", err)
			assert.Equal(t, tc.field, ie.Field, "key: %v", err)
			assert.Contains(t, ie.Msg, tc.msg)
		})
	}
}

// TestExampleJudgesFile: the example the README shows reads as it says,
// and each judge becomes a metric of a copy of the registry, the
// registry itself unchanged.
func TestExampleJudgesFile(t *testing.T) {
	t.Parallel()
	base := agent.Builtins()
	reg, err := judges.Extend(base, "../examples/judges.yaml")
	require.NoError(t, err)
	for _, name := range []string{"polite_and_cites", "helpfulness", "matches_reference"} {
		_, inBase := base.Lookup(name)
		assert.False(t, inBase, name)
		e, ok := reg.Lookup(name)
		require.True(t, ok, name)
		assert.True(t, e.Dataset && e.ModelOnly && e.CallsModel(), name)
		assert.Len(t, e.Version, 12)
		assert.Contains(t, reg.Metrics(), name)
	}
	assert.Equal(t, metric.Threshold{Offline: 0.5, Model: 0.5}, mustLookup(t, reg, "polite_and_cites").Threshold)
	assert.Equal(t, metric.Threshold{Offline: 0.75, Model: 0.75}, mustLookup(t, reg, "helpfulness").Threshold)
	assert.Equal(t, metric.Threshold{Offline: 0.7, Model: 0.7}, mustLookup(t, reg, "matches_reference").Threshold)
	assert.Equal(t, metric.NeedsAnswer|metric.NeedsReference, mustLookup(t, reg, "matches_reference").Needs)

	data, err := os.ReadFile("../examples/judges.yaml")
	require.NoError(t, err)
	defs, err := judges.ReadDefinitions("judges.yaml", data, base)
	require.NoError(t, err)
	require.Len(t, defs, 3)
	critic, rubric, score := defs[0], defs[1], defs[2]
	assert.True(t, critic.Scale.PassFail)
	assert.Equal(t, []string{"question", "answer", "metadata.policy"}, critic.Fields)
	assert.Equal(t, []prompts.RubricLine{
		{Grade: "pass", Text: "polite, and any refund claim matches the policy it cites"},
		{Grade: "fail", Text: "rude or dismissive, or a refund claim without the policy"},
	}, critic.Rubric)
	assert.Nil(t, critic.Steps, "written by the model")
	assert.Len(t, rubric.Steps, 3)
	assert.Equal(t, judges.Scale{Lo: 1, Hi: 5}, rubric.Scale)
	assert.Len(t, rubric.Rubric, 5)
	assert.Equal(t, "1", rubric.Rubric[0].Grade)
	assert.InDelta(t, 4, rubric.Threshold, 0)
	assert.Equal(t, judges.Scale{Lo: 0, Hi: 10}, score.Scale)
	assert.Nil(t, score.Steps)
	assert.InDelta(t, 7, score.Threshold, 0)
	assert.Equal(t, 33, score.Line)
}

func mustLookup(t *testing.T, reg *metric.Registry, name string) metric.Entry {
	t.Helper()
	e, ok := reg.Lookup(name)
	require.True(t, ok, name)
	return e
}

// TestDefinedCheckNamesTheJudgesFile: a record without a field a judge
// reads fails the judge's check, which names the judge, the field, the
// judges file's line and key; a missing answer is a skip, not a failure.
func TestDefinedCheckNamesTheJudgesFile(t *testing.T) {
	t.Parallel()
	defs, err := judges.ReadDefinitions("j.yaml", []byte("judges:\n  - name: tone\n    criterion: a\n    scale: 1-5\n    fields:\n      - answer\n      - reference\n      - contexts\n      - metadata.region.code\n"), &metric.Registry{})
	require.NoError(t, err)
	d := defs[0]
	full := eval.Sample{Query: "q", Answer: "a", Reference: "r", Sources: []eval.Source{{Text: "c"}}, Metadata: map[string]any{"region": map[string]any{"code": 7}}}
	tests := map[string]struct {
		edit func(s *eval.Sample)
		want string
		is   error
	}{
		"every field":       {func(*eval.Sample) {}, "", nil},
		"no answer":         {func(s *eval.Sample) { s.Answer = "" }, "", nil},
		"no reference":      {func(s *eval.Sample) { s.Reference = " " }, "judge tone reads reference (j.yaml:7: judges[0].fields[1])", eval.ErrNoReference},
		"no contexts":       {func(s *eval.Sample) { s.Sources = nil }, "judge tone reads contexts (j.yaml:8: judges[0].fields[2])", eval.ErrNoContexts},
		"no metadata":       {func(s *eval.Sample) { s.Metadata = nil }, "judge tone reads metadata.region.code (j.yaml:9: judges[0].fields[3])", nil},
		"a null metadata":   {func(s *eval.Sample) { s.Metadata = map[string]any{"region": map[string]any{"code": nil}} }, "metadata.region.code", nil},
		"a path into text":  {func(s *eval.Sample) { s.Metadata = map[string]any{"region": "EU"} }, "metadata.region.code", nil},
		"a number is there": {func(s *eval.Sample) { s.Metadata = map[string]any{"region": map[string]any{"code": 0}} }, "", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := full
			tc.edit(&s)
			var reg metric.Registry
			require.NoError(t, reg.Add(d.Entry()))
			sc, err := reg.New("tone", nil)
			require.NoError(t, err)
			err = sc.(metric.Checker).Check(s)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
		})
	}
}
