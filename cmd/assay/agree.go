package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/metric"
)

type agreeFlags struct {
	job       agree.Job
	grades    string
	threshold float64
	format    string
	style     agree.Style
	llm       llmFlags
}

// agreeHelp is assay agree's long help.
const agreeHelp = `Compare a judge's values with a human label of each record. The values come
from one of three places:

  --metric NAME   run the judge now over FILE (several, comma separated or
                  repeated: a table each);
  --score FIELD   read them from FILE: a precomputed judge value or a second
                  rater (meta.judge_grade, human.rater2: a dotted path into
                  the record's id, human labels or metadata); no model call;
  RUN_DIR         a stored bench run (assay bench --out): its results.jsonl
                  joined by id with the labels of the dataset its config.json
                  names (--dataset FILE when that path no longer holds it);
                  --metric picks the run's metrics to read; no model call.

A binary label (human.faithful, human.relevant: true/false or 1/0) gets
balanced accuracy, precision, recall, F1, Cohen's kappa and the Matthews
correlation (MCC) at the judge's default threshold (0.5 for --score) and at
the best threshold for this data, and ROC AUC. The default threshold's
balanced accuracy comes with a 95% bootstrap interval (stratified, 2000
resamples, fixed seed). When the values are in [0, 1] they are read as
chances and their calibration is measured: Brier score, expected calibration
error and a 10-bin reliability table (in JSON; in Markdown with
--calibration, beside MCC). With --baseline the plain token-overlap baseline
is measured beside the judge.

A graded label (numbers with more than two values, 1-5 or 0-3; detected, or
--label-type graded) gets Spearman, Kendall tau-b and Pearson, which rank
the judge's values as they are against the grades; and linear and quadratic
weighted kappa, ordinal and interval Krippendorff alpha and the MAE (in
grades), which need the judge on the grade scale: its values as given when
they are grades (a second rater), else its native points when its scale is
the grades' (source_relevance's 1-5), else its value v in [0, 1] mapped to
the grade nearest min + v*(max-min); a value that is none of these (2.5
of two raters' mean) leaves them undefined. The grades are those observed,
or --grades. Each statistic has a 95% bootstrap interval (2000 resamples, fixed
seed; resamples where it is undefined are dropped and counted).

--by FIELD (meta.model, meta.domain) measures every statistic per value of
the field too, beside the whole.

--estimate estimates the mean human label over every record the judge
scored, when only some records carry the label: the mean of the labels
corrected by the judge's error on them (prediction-powered inference,
PPI++, with its weight on the judge chosen to narrow the interval and never
widen it past the labels'), with its 95% interval, beside the labels alone,
the judge alone and the effective number of labels (how many labels alone
would give as narrow an interval). The judge scores every record, labelled
or not. A binary label reads the judge's value as the chance it is true; a
graded one puts the judge on the grades as above. It needs at least 10
labelled records with a judge value, some records without the label, every
labelled record scored, and every label readable (exit 2 otherwise).
With --weight FIELD (meta.label_weight, as an annotation queue labelled in
its active order exports it) each label is weighted by the field, 1/the
probability the record had of being labelled, and the estimate is the
weighted one (active inference): unbiased for labels taken with unequal
probabilities; a labelled record without a weight of 1 or more exits 2.

Defaulted judge results are counted and left out of the statistics, never
averaged in; more of them than --max-default-rate allows (5%, none under
--strict) exits 3. So are records without a value (the judge cannot score
them, the field is missing, the run has no result): the first is named on
standard error, and when no labelled record has a value the run exits 2.`

func newAgreeCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := agreeFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:   "agree (--metric NAME[,NAME] | --score FIELD) --label LABEL [flags] FILE\n  assay agree --label LABEL [flags] RUN_DIR",
		Short: "Measure how well a judge agrees with human labels",
		Long:  agreeHelp,
		Example: `  assay agree --metric faithfulness --label faithful --baseline data/begin.dev.jsonl
  assay agree --metric source_relevance --label relevant --llm openai:gpt-4o-mini data/msmarco.dev.jsonl
  assay agree --score meta.judge_grade --label relevance --by meta.model fixtures/rag/graded.jsonl
  assay agree --label faithful --calibration runs/nightly
  assay agree --score meta.judge_score --label relevant --estimate --by meta.model data.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAgree(cmd, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.job.Metrics, "metric", nil, "judges to run now, comma separated, or the metrics of a stored run to read, a table each: "+fmt.Sprint(reg.Metrics()))
	fl.StringVar(&f.job.Score, "score", "", "read the judge's values from this field of each record (meta.NAME, human.NAME) instead of running a judge")
	fl.StringVar(&f.job.Label, "label", "", "human label to compare with (required), e.g. faithful, relevant, relevance; !NAME reads a binary one negated (!hallucinated)")
	fl.StringVar(&f.job.LabelType, "label-type", "", "binary or graded (default: graded when the label holds numbers other than 0 and 1)")
	fl.StringVar(&f.grades, "grades", "", "the grades of a graded label, for the kappas, e.g. 1,2,3,4,5 (default: those observed)")
	fl.StringVar(&f.job.By, "by", "", "also measure per value of this field (meta.model, meta.domain)")
	fl.StringVar(&f.job.Dataset, "dataset", "", "with RUN_DIR: the run's dataset, when the path in its config.json no longer holds it")
	fl.Float64Var(&f.threshold, "threshold", -1, "decision threshold on the judge's value for a binary label (default: the judge's own; 0.5 with --score)")
	fl.BoolVar(&f.job.Baseline, "baseline", false, "also measure the plain token-overlap baseline")
	fl.BoolVar(&f.job.Estimate, "estimate", false, "also estimate the mean label over every record from the labels and the judge's values on all of them (PPI++), beside the labels alone and the judge alone")
	fl.StringVar(&f.job.Weight, "weight", "", "with --estimate: weight each label by this field (meta.label_weight), 1/its probability of being labelled")
	fl.BoolVar(&f.style.Calibration, "calibration", false, "Markdown: also print MCC, Brier, ECE and the reliability table of a binary label (JSON always has them)")
	fl.StringVar(&f.format, "format", "md", "output format: md or json")
	f.llm.register(fl)
	registerMaxDefaultRate(fl, &f.llm)
	registerSamples(fl, &f.llm)
	registerChecker(fl, &f.llm)
	registerJudges(fl, &f.llm)
	fl.BoolVarP(&f.job.Quiet, "quiet", "q", false, "no progress on stderr")
	_ = cmd.MarkFlagRequired("label")
	return cmd
}

func runAgree(cmd *cobra.Command, f *agreeFlags, data string) error {
	if err := checkFormat(f.format, "md", "json"); err != nil {
		return err
	}
	grades, err := agree.ParseGrades(f.grades)
	if err != nil {
		return inputErr(err)
	}
	job := f.job
	job.Grades = grades
	if cmd.Flags().Changed("threshold") {
		job.Threshold = &f.threshold
	}
	reg, err := f.llm.registry()
	if err != nil {
		return runError(err)
	}
	job.Data, job.Stdin, job.Env, job.Log, job.Registry = data, cmd.InOrStdin(), f.llm.env, cmd.ErrOrStderr(), reg
	job.Judging = f.llm.judging()
	out, err := agree.Measure(cmd.Context(), job)
	if err != nil {
		return runError(err)
	}
	f.style.JSON = f.format == "json"
	if err := out.Write(cmd.OutOrStdout(), cmd.ErrOrStderr(), f.style); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	return failuresErr(out.Failures)
}
