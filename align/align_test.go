package align_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/align"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
)

const (
	labelsFile = "../examples/support-labels.jsonl"
	judgeFile  = "../examples/support-judge.yaml"
	// phrase is what the fake judge needs in a criterion to grade right.
	phrase = "concrete step"
)

// truth maps each answer of the example labels to its label.
func truth(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open(labelsFile)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			Answer string          `json:"answer"`
			Human  map[string]bool `json:"human"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		out[r.Answer] = r.Human["helpful_reply"]
	}
	require.NoError(t, sc.Err())
	require.Len(t, out, 40)
	return out
}

// right is the grade a correct judge gives the sample of g.
func right(truth map[string]bool, g llmtest.GradeRequest) string {
	for answer, ok := range truth {
		if strings.Contains(g.Sample, answer) {
			if ok {
				return "pass"
			}
			return "fail"
		}
	}
	return "pass"
}

// ptr is a pointer to v, for a Job's settings.
func ptr[T any](v T) *T { return &v }

func job(t *testing.T, srv *llmtest.Server) align.Job {
	dir := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": dir}
	j := align.Job{Metric: "helpful_reply", Judges: judgeFile, Labels: labelsFile, Out: filepath.Join(dir, "aligned.yaml"),
		Seed: 7, Judging: judging.Default(), Env: func(k string) string { return env[k] }}
	j.Judging.LLM.Spec = "openai:fake-judge"
	return j
}

func TestAlign(t *testing.T) {
	t.Parallel()
	tr := truth(t)
	rewrites := []string{"The reply is friendly and short.", "The reply gives the customer a " + phrase + " to take to solve the problem."}
	tests := map[string]struct {
		rule     func(llmtest.GradeRequest) string
		gain     bool
		failed   bool
		what     string
		examples bool
	}{
		"a criterion that names what people look for is found and written": {
			rule: func(g llmtest.GradeRequest) string {
				if strings.Contains(g.System, phrase) {
					return right(tr, g)
				}
				return "pass"
			},
			gain: true, what: "criterion rewrite 2",
		},
		"few-shot examples that make the judge right are found and written": {
			rule: func(g llmtest.GradeRequest) string {
				if g.Examples > 0 {
					return right(tr, g)
				}
				return "pass"
			},
			gain: true, what: "as it was, 2 examples", examples: true,
		},
		"wording that changes nothing claims no gain": {
			rule: func(g llmtest.GradeRequest) string {
				// Right on most samples, wrong on the same few, whatever
				// the prompt says.
				for answer := range tr {
					if strings.Contains(g.Sample, answer) && len(answer)%4 == 0 {
						return map[string]string{"pass": "fail", "fail": "pass"}[right(tr, g)]
					}
				}
				return right(tr, g)
			},
			what: "as it was",
		},
		"a judge that keeps failing fails the run": {
			rule:   func(llmtest.GradeRequest) string { return "7" },
			failed: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.Graded(tc.rule, rewrites...)))
			j := job(t, srv)
			out, err := align.Align(context.Background(), j)
			require.NoError(t, err)
			var b strings.Builder
			out.Write(&b)
			t.Log("\n" + b.String())
			assert.Equal(t, 28, out.Train)
			assert.Equal(t, 12, out.Heldout)
			assert.Equal(t, tc.gain, out.Gain)
			if tc.failed {
				assert.NotEmpty(t, out.Failed)
				assert.Positive(t, out.Failures)
				assert.Contains(t, b.String(), "run failed")
				assert.NoFileExists(t, j.Out)
				return
			}
			assert.Empty(t, out.Failed)
			assert.Equal(t, tc.what, out.What)
			assert.Equal(t, 12, out.Before.N)
			if !tc.gain {
				assert.NoFileExists(t, j.Out)
				assert.Contains(t, b.String(), "no gain supported")
				assert.Equal(t, 0.0, out.Diff.Mean)
				return
			}
			assert.Greater(t, out.Diff.Lo, 0.0)
			assert.Equal(t, 1.0, out.After.Mean)
			assert.Less(t, out.Before.Mean, 0.8)
			assert.Contains(t, b.String(), "gain supported")
			data, err := os.ReadFile(j.Out)
			require.NoError(t, err)
			defs, err := judges.ReadDefinitions(j.Out, data, &metric.Registry{})
			require.NoError(t, err)
			require.Len(t, defs, 1)
			assert.Equal(t, out.Aligned.Version(), defs[0].Version())
			assert.Equal(t, tc.examples, len(defs[0].Examples) > 0)
			assert.Positive(t, out.Search.Usage.Calls)
		})
	}
}

func TestAlignIsDeterministic(t *testing.T) {
	t.Parallel()
	tr := truth(t)
	rule := func(g llmtest.GradeRequest) string {
		if strings.Contains(g.System, phrase) {
			return right(tr, g)
		}
		return "pass"
	}
	var outs []*align.Outcome
	for range 2 {
		srv := llmtest.New(t, llmtest.Func(llmtest.Graded(rule, "The reply gives a "+phrase+".")))
		out, err := align.Align(context.Background(), job(t, srv))
		require.NoError(t, err)
		outs = append(outs, out)
	}
	assert.Equal(t, outs[0].Diff, outs[1].Diff)
	assert.Equal(t, outs[0].Before, outs[1].Before)
	assert.Equal(t, outs[0].What, outs[1].What)
}

func TestAlignBadInput(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	dir := t.TempDir()
	few := filepath.Join(dir, "few.jsonl")
	require.NoError(t, os.WriteFile(few, []byte(`{"id":"a","question":"q","answer":"a","human":{"helpful_reply":true}}`+"\n"), 0o644))
	// Copies, so that a run that wrote --out would not touch the repository's.
	judgesCopy, labelsCopy := filepath.Join(dir, "judges.yaml"), filepath.Join(dir, "labels.jsonl")
	for src, dst := range map[string]string{judgeFile: judgesCopy, labelsFile: labelsCopy} {
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, data, 0o644))
	}
	t.Cleanup(func() { // after the subtests
		for src, dst := range map[string]string{judgeFile: judgesCopy, labelsFile: labelsCopy} {
			want, err := os.ReadFile(src)
			require.NoError(t, err)
			got, err := os.ReadFile(dst)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "%s is as it was", dst)
		}
	})
	noAnswerField := filepath.Join(dir, "graded.jsonl")
	require.NoError(t, os.WriteFile(noAnswerField, []byte(strings.Repeat(`{"question":"q","answer":"a","human":{"helpful_reply":3}}`+"\n", 12)), 0o644))
	tests := map[string]struct {
		edit func(*align.Job)
		want string
	}{
		"a built-in judge has no definition":  {func(j *align.Job) { j.Metric, j.Judges = "faithfulness", "" }, "--metric faithfulness"},
		"a judge the file lacks":              {func(j *align.Job) { j.Metric = "nope" }, "defines no judge nope"},
		"a holdout off (0, 1)":                {func(j *align.Job) { j.Holdout = ptr(1.5) }, "--holdout"},
		"a holdout of 0, given":               {func(j *align.Job) { j.Holdout = ptr(0.0) }, "--holdout: want a share between 0 and 1 (0.3 holds out 30% of the labels), got 0"},
		"no candidates, given":                {func(j *align.Job) { j.Candidates = ptr(0) }, "--candidates: want at least 1, got 0"},
		"a negative count of examples":        {func(j *align.Job) { j.Examples = ptr(-1) }, "--examples: want 0 or more"},
		"a share of defaults above one":       {func(j *align.Job) { j.Judging.MaxDefaultRate = 7 }, "--max-default-rate"},
		"a negative share of defaults":        {func(j *align.Job) { j.Judging.MaxDefaultRate = -0.2 }, "--max-default-rate"},
		"too few labels":                      {func(j *align.Job) { j.Labels = few }, "1 record carries the label, want at least 10"},
		"a graded label on a pass/fail judge": {func(j *align.Job) { j.Labels = noAnswerField }, "graded.jsonl:1: human.helpful_reply"},
		"a labels file that is not there":     {func(j *align.Job) { j.Labels = filepath.Join(dir, "none.jsonl") }, "none.jsonl"},
		"--out the judges file": {func(j *align.Job) { j.Judges, j.Out = judgesCopy, filepath.Join(dir, ".", "judges.yaml") },
			"--out: " + judgesCopy + " is the file --judges reads"},
		"--out the labels file": {func(j *align.Job) { j.Labels, j.Out = labelsCopy, labelsCopy }, "--out: " + labelsCopy + " is the file --labels reads"},
		"--out a folder":        {func(j *align.Job) { j.Out = dir }, "--out: " + dir + " is a folder, not a file"},
		"--out in no folder":    {func(j *align.Job) { j.Out = filepath.Join(dir, "none", "aligned.yaml") }, "--out: " + filepath.Join(dir, "none", "aligned.yaml") + ": its folder"},
		"--out standard output": {func(j *align.Job) { j.Out = "-" }, "--out: - (standard output) is not written here"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, srv)
			tc.edit(&j)
			_, err := align.Align(context.Background(), j)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// labelLines writes a labels file of the labels given, one record a
// line (a label of nil leaves the record without one), and returns its
// path.
func labelLines(t *testing.T, labels ...any) string {
	t.Helper()
	var b strings.Builder
	for i, l := range labels {
		rec := map[string]any{"id": "r" + strconv.Itoa(i+1), "question": "Is parcel " + strconv.Itoa(i+1) + " insured?", "answer": "Reply " + strconv.Itoa(i+1) + "."}
		if l != nil {
			rec["human"] = map[string]any{"helpful_reply": l}
		}
		line, err := json.Marshal(rec)
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "labels.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// TestAlignRefusesLabelsItCannotRead: a label that is there but does not
// read as one of its kind is bad input naming its line, as agree has
// it, never a record left out in silence; a pass/fail judge's labels
// name the line of the first that is no pass or fail; and labels all of
// one kind, which a judge that always gives it agrees with perfectly,
// are refused.
func TestAlignRefusesLabelsItCannotRead(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	graded := filepath.Join(t.TempDir(), "graded.yaml")
	require.NoError(t, os.WriteFile(graded, []byte("judges:\n  - name: helpful_reply\n    criterion: The reply helps.\n    scale: 1-5\n"), 0o644))
	bools := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = i%3 != 0
		}
		return out
	}
	tests := map[string]struct {
		labels []any
		judges string
		// oneSample labels one question and answer on every line.
		oneSample bool
		want      string
	}{
		"one sample, labelled on every line": {
			labels: bools(12), oneSample: true, want: "labels.jsonl: human.helpful_reply: the 12 labelled records all show the judge the same question, answer",
		},
		"a word that is no pass or fail on line 4": {
			labels: append(append(bools(3), "not sure"), bools(11)...), want: `labels.jsonl:4: human.helpful_reply: "not sure"`,
		},
		"a grade among pass and fail labels on line 6": {
			labels: append(append(bools(5), 3.0), bools(10)...), want: "labels.jsonl:6: human.helpful_reply: 3",
		},
		"every record labelled a pass": {
			labels: []any{true, "yes", 1.0, true, nil, true, true, "true", true, true, true, 1.0}, want: "labels.jsonl: human.helpful_reply: every label is true",
		},
		"every record graded 4": {
			labels: []any{4.0, 4.0, "4", 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0}, judges: graded, want: "labels.jsonl: human.helpful_reply: every label is 4",
		},
		"a word among grades on line 2": {
			labels: []any{4.0, "excellent", 2.0, 5.0, 1.0, 3.0, 4.0, 2.0, 5.0, 1.0, 3.0, 4.0}, judges: graded,
			want: `labels.jsonl:2: human.helpful_reply: "excellent"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := job(t, srv)
			j.Labels = labelLines(t, tc.labels...)
			if tc.oneSample {
				data, err := os.ReadFile(j.Labels)
				require.NoError(t, err)
				data = regexp.MustCompile(`parcel \d+|Reply \d+`).ReplaceAll(data, []byte("one"))
				require.NoError(t, os.WriteFile(j.Labels, data, 0o644))
			}
			if tc.judges != "" {
				j.Judges = tc.judges
			}
			_, err := align.Align(context.Background(), j)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestAlignGradedScale: on a 1-5 judge with a binary label, the search
// finds the threshold that splits the grades as people do, and a rubric
// the fake grades by.
func TestAlignGradedScale(t *testing.T) {
	t.Parallel()
	tr := truth(t)
	judgeYAML := filepath.Join(t.TempDir(), "judges.yaml")
	require.NoError(t, os.WriteFile(judgeYAML, []byte("judges:\n  - name: helpful_reply\n    criterion: The reply answers the question.\n    scale: 1-5\n"), 0o644))
	tests := map[string]struct {
		rule      func(llmtest.GradeRequest) string
		what      string
		threshold float64
		rubric    bool
	}{
		"a threshold that splits the grades as people do": {
			rule: func(g llmtest.GradeRequest) string {
				return map[string]string{"pass": "4", "fail": "3"}[right(tr, g)]
			},
			what: "as it was, threshold 4", threshold: 4,
		},
		"rubric anchors the judge grades by": {
			rule: func(g llmtest.GradeRequest) string {
				if strings.Contains(g.System, "a sample at grade 5") {
					return map[string]string{"pass": "5", "fail": "1"}[right(tr, g)]
				}
				return "3"
			},
			what: "as it was, rubric anchors", threshold: 3, rubric: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.Graded(tc.rule, "The reply answers the question, fully.")))
			j := job(t, srv)
			j.Judges = judgeYAML
			out, err := align.Align(context.Background(), j)
			require.NoError(t, err)
			var b strings.Builder
			out.Write(&b)
			t.Log("\n" + b.String())
			require.True(t, out.Gain, b.String())
			assert.Equal(t, tc.what, out.What)
			assert.Equal(t, 1.0, out.After.Mean)
			assert.Positive(t, out.Search.Thresholds)
			data, err := os.ReadFile(j.Out)
			require.NoError(t, err)
			defs, err := judges.ReadDefinitions(j.Out, data, &metric.Registry{})
			require.NoError(t, err)
			assert.Equal(t, tc.threshold, defs[0].Threshold)
			assert.Equal(t, tc.rubric, len(defs[0].Rubric) == 5)
		})
	}
}

// TestAlignDryRunIsAnUpperBound: the calls a dry run plans are at least
// those the run makes with no cache to help, whatever the search tries
// (three rewrites, a rubric, every few-shot set, an aligned judge that
// grades the held-out part again).
func TestAlignDryRunIsAnUpperBound(t *testing.T) {
	t.Parallel()
	tr := truth(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	passFail := write("passfail.yaml", "judges:\n  - name: helpful_reply\n    criterion: The reply answers the question.\n    scale: pass/fail\n")
	graded := write("graded.yaml", "judges:\n  - name: helpful_reply\n    criterion: The reply answers the question.\n    scale: 1-5\n")
	withSteps := write("steps.yaml", "judges:\n  - name: helpful_reply\n    criterion: The reply answers the question.\n    steps: [Read the reply., Grade it.]\n    scale: 0-10\n")
	tests := map[string]struct {
		judges               string
		candidates, examples int
	}{
		"pass/fail, three candidates":              {judges: passFail, candidates: 3, examples: 4},
		"pass/fail, two candidates, no examples":   {judges: passFail, candidates: 2, examples: 0},
		"pass/fail, the default search":            {judges: passFail, candidates: 8, examples: 4},
		"graded, four candidates":                  {judges: graded, candidates: 4, examples: 2},
		"graded, every candidate the search has":   {judges: graded, candidates: 12, examples: 6},
		"graded with its own steps, one candidate": {judges: withSteps, candidates: 1, examples: 4},
		"graded with its own steps, five":          {judges: withSteps, candidates: 5, examples: 4},
	}
	// Right only with the second rewrite, so that the aligned judge is
	// another than the one as it was, and grades the held-out part too.
	rule := func(g llmtest.GradeRequest) string {
		grade := "pass"
		if strings.Contains(g.System, "solves the problem") {
			grade = right(tr, g)
		}
		switch {
		case strings.Contains(g.System, "0-10"):
			return map[string]string{"pass": "8", "fail": "2"}[grade]
		case strings.Contains(g.System, "1-5"):
			return map[string]string{"pass": "4", "fail": "2"}[grade]
		}
		return grade
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.Graded(rule, "The reply answers it.", "The reply solves the problem.", "The reply helps.")))
			j := job(t, srv)
			j.Judges, j.Candidates, j.Examples = tc.judges, &tc.candidates, &tc.examples
			dry := j
			dry.Judging.DryRun = true
			plan, err := align.Align(context.Background(), dry)
			require.NoError(t, err)
			j.Judging.LLM.NoCache = true
			out, err := align.Align(context.Background(), j)
			require.NoError(t, err)
			require.Empty(t, out.Failed)
			t.Logf("planned %d, made %d (%d cache hits), %d candidates", plan.Planned, out.Search.Usage.Calls, out.Search.Usage.CacheHits, out.Search.Candidates)
			assert.LessOrEqual(t, out.Search.Usage.Calls, plan.Planned, "%d candidates scored", out.Search.Candidates)
			assert.LessOrEqual(t, out.Search.Candidates, tc.candidates)
		})
	}
}

// TestAlignReadsAProfilesJudges: --judges takes a profile that defines
// judges, as judge, bench and agree take it (its help says so), and the
// judge aligned is the profile's.
func TestAlignReadsAProfilesJudges(t *testing.T) {
	t.Parallel()
	tr := truth(t)
	rule := func(g llmtest.GradeRequest) string {
		if strings.Contains(g.System, phrase) {
			return right(tr, g)
		}
		return "pass"
	}
	srv := llmtest.New(t, llmtest.Func(llmtest.Graded(rule, "The summary gives a "+phrase+" that answers the question.")))
	j := job(t, srv)
	j.Judges, j.Metric, j.Label = "../examples/profiles/plain-report.yaml", "answers_the_question", "helpful_reply"
	out, err := align.Align(context.Background(), j)
	require.NoError(t, err)
	assert.Equal(t, "answers_the_question", out.Judge)
	require.True(t, out.Gain)
	data, err := os.ReadFile(j.Out)
	require.NoError(t, err)
	defs, err := judges.ReadDefinitions(j.Out, data, &metric.Registry{})
	require.NoError(t, err)
	require.Len(t, defs, 1)
	assert.Equal(t, []string{"Read the question and say what a direct answer would state.", "Read the executive summary and find that statement, or its absence."}, defs[0].Steps, "the profile's steps kept")

	j = job(t, srv)
	j.Judges, j.Metric = "../examples/profiles/plain-report.yaml", "grounding"
	_, err = align.Align(context.Background(), j)
	var ie *eval.InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), "defines no judge grounding")
}

// TestAlignReadsLabelsFromStandardInput: --labels - reads the labels
// from standard input, as agree reads its data, rather than saying it
// is already used.
func TestAlignReadsLabelsFromStandardInput(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(labelsFile)
	require.NoError(t, err)
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	j := job(t, srv)
	j.Labels, j.Stdin = "-", strings.NewReader(string(data))
	j.Judging.DryRun = true
	out, err := align.Align(context.Background(), j)
	require.NoError(t, err)
	assert.Equal(t, "<stdin>", out.File)
	assert.Equal(t, 28, out.Train)
	assert.Equal(t, 12, out.Heldout)
	assert.Zero(t, srv.Calls())
}
