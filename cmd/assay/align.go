package main

import (
	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/align"
	"github.com/assaylabs/assay/metric"
)

// alignHelp is assay align's long help.
const alignHelp = `Improve a judge you defined (--judges) against human labels (--labels: the
records assay agree reads, with human.LABEL, by default the judge's name).

The labelled records are split, with --seed, into a training part and a
held-out part (--holdout); records that show the judge the same sample (one
answer labelled by two people) go to one part together. On the training part only, align searches the
judge's criterion (rewrites the model proposes from the records the judge got
wrong), a rubric's anchors (graded scales), few-shot examples drawn from the
training labels, and the threshold of a graded scale; at most --candidates
judges are scored. The best is then measured on the held-out part beside the
judge as it was, each with a 95% bootstrap interval, and their paired
difference with its interval.

Exit codes: 0 a gain the interval supports, the aligned judge written to --out
(a judges file); 1 no gain supported, nothing written; 2 bad input; 3 the run
failed (more judge failures than --max-default-rate allows, counted and
shown, never averaged in).`

func newAlignCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	var job align.Job
	var holdout float64
	var candidates, examples int
	f := llmFlags{env: env, metrics: reg}
	cmd := &cobra.Command{
		Use:     "align --metric NAME --judges FILE --labels FILE [flags]",
		Short:   "Improve a judge you defined against human labels, measured on held-out labels",
		Long:    alignHelp,
		Example: `  assay align --metric helpful_reply --judges examples/support-judge.yaml --labels examples/support-labels.jsonl --llm openai:gpt-4o-mini --out aligned.yaml`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			job.Judges, job.Registry, job.Judging = f.judges, reg, f.judging()
			job.Env, job.Log, job.Stdin = env, cmd.ErrOrStderr(), cmd.InOrStdin()
			job.Holdout, job.Candidates, job.Examples = &holdout, &candidates, &examples
			out, err := align.Align(cmd.Context(), job)
			if err != nil {
				return runError(err)
			}
			out.Write(cmd.OutOrStdout())
			switch {
			case out.Failed != "":
				return &exitError{code: exitInfra}
			case !out.Gain && !out.DryRun:
				return &exitError{code: exitFailed}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&job.Metric, "metric", "", "the judge to align, one --judges defines (required)")
	fl.StringVar(&job.Labels, "labels", "", "the labels file: records with the human label (required; - reads standard input)")
	fl.StringVar(&job.Label, "label", "", "the human label (human.NAME; default: the judge's name)")
	fl.StringVar(&job.Out, "out", "aligned.yaml", "where the aligned judge goes, as a judges file, when a gain is supported")
	fl.Uint64Var(&job.Seed, "seed", 1, "seed of the split, the examples drawn and the intervals")
	fl.Float64Var(&holdout, "holdout", align.DefaultHoldout, "share of the labelled records held out to measure on")
	fl.IntVar(&candidates, "candidates", align.DefaultCandidates, "most judges scored on the training part, the one as it was included")
	fl.IntVar(&examples, "examples", align.DefaultExamples, "most few-shot examples a candidate shows (0: none)")
	f.register(fl)
	registerMaxDefaultRate(fl, &f)
	registerJudges(fl, &f)
	_ = cmd.MarkFlagRequired("metric")
	_ = cmd.MarkFlagRequired("labels")
	return cmd
}
