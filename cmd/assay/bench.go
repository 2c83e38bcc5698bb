package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/flagerror"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
)

type benchFlags struct {
	job   bench.Job
	llm   llmFlags
	batch bool
}

// benchLong is the help text of the command.
const benchLong = `Judge every sample of DATA and keep the run in a folder (--out DIR, by
default assay-runs/RUN_ID): config.json (the command, Assay's version, the
prompt versions, the model, the dataset's path and sha256), results.jsonl
(one line per sample and metric, written as each finishes, so a killed run
loses at most the line being written) and summary.json (per metric: n,
mean, std, median, min, max, p10, a bootstrap 95% interval of the mean,
defaults, errors, tokens, cost and latency), which is also printed.

DATA is read as judge reads it with --metric (JSON, JSON Lines, CSV or TSV, with
Assay's, RAGAS's or DeepEval's field names); with --profile context it is
JSON Lines of retrieval samples ({query, chunks, context} a line), judged
as context_quality and its four sub-scores; with --profile research JSON
Lines of {id, query, report}, judged as the research card's five dimensions
and its total. --profile FILE.yaml judges with a profile of your own (its
records those of its kind: report, context or daily), with the judges it
defines (judges:) among its dimensions. DATA "-" reads standard input, which is copied into the run
folder (input.jsonl) as it is read.

The folder also gets report.html, one page that opens from disk: the
figures, a chart per metric, the gates, the baseline, and the samples
worth reading (each metric's lowest, and those that flipped pass/fail
against the baseline) with their question, answer, contexts, reference
and evidence, filtered by metric, state and words. Every run is recorded in the run store (SQLite under
the user data directory; $ASSAY_DATA_DIR moves it), which assay runs lists.

--resume with --out DIR of an unfinished run judges only the pairs not in
its results.jsonl, and those that fell back to the neutral default or
failed; another dataset or configuration is refused.

--gate 'METRIC.STAT OP NUMBER' (repeatable) fails the run when it does not
hold, as seed 002's CI checks: --gate 'context_quality.mean>=0.65'.
--baseline compares each metric's mean with an earlier run's, over the
samples both scored: a paired Wilcoxon signed-rank test, the mean
difference with its paired bootstrap interval, the samples that flipped
pass/fail each way with McNemar's exact test (see assay runs diff); it
raises seed 002's alerts: degradation (warning) under 0.85 x the baseline
mean, threshold (critical) under 0.4. --summary-md FILE appends the
comparison as a short Markdown summary (for $GITHUB_STEP_SUMMARY).
--junit FILE writes the gates and the samples below their thresholds as
JUnit XML.

--label NAME (a binary human label of the records: human.faithful, true/false
or 1/0; !NAME negated) measures each metric's calibration against it: the
Brier score, the expected calibration error and a 10-bin reliability table,
in summary.json and drawn in report.html as a reliability diagram.

--workers N judges through a NATS JetStream queue (an embedded server
kept in the run folder's nats/) with N workers in this process, each with
its own --concurrency (as a remote worker has), so N workers make up to N
x --concurrency calls at once; --cluster [ADDR] listens for workers on
other machines and prints their command (assay worker), --queue
nats://HOST:4222 uses an existing NATS. A task whose deliveries run out is
recorded as undelivered (exit 3); a run that gets no result for
--stall-timeout (5m) stops with exit 3, saying how many pairs are missing,
what the queue holds and the command that resumes it; --resume
republishes what results.jsonl and the queue's replies lack.

--batch sends the model calls through the server's batch endpoint
(/v1/files and /v1/batches: OpenAI's, or a compatible server's) at the
batch price (half the model's, or batch: SHARE in the --prices file). A
judge's dependent calls take a round each: the calls of a round go out as
one batch, polled until it is done ($ASSAY_BATCH_POLL, 5s by default, is
the first wait; it doubles up to a minute), then the judges run again.
Polls failing for 15 minutes in a row, or a batch not done 25 hours on,
stop the run. The batches are kept in the run folder's batches.json:
--resume picks up a batch in flight instead of paying for it again (one
the server no longer knows is sent again). The calls a failed or expired
batch did not answer are sent directly.

Exit codes are judge's: 1 below a --min floor, a failed --gate or an alert;
3 when more judgements defaulted than --max-default-rate allows, a budget
stopped calls, or the run was interrupted (resume it).`

func newBenchCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := benchFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:   "bench (--metric NAME[,NAME] | --profile context|research) [flags] DATA",
		Short: "Run judges over a dataset into a run folder that is kept and can be resumed",
		Long:  benchLong,
		Example: `  assay bench --metric faithfulness,answer_relevancy data.jsonl
  assay bench --profile context --out runs/ctx retrievals.jsonl
  assay bench --metric faithfulness --resume --out assay-runs/20261124T221500Z-3f9a data.jsonl
  assay bench --profile context --gate 'context_quality.mean>=0.65' --gate 'context_quality.min>=0.3' --baseline latest --junit junit.xml retrievals.jsonl`,
		Args: flagerror.ExactArgs(1), // --cluster ADDR, without =, leaves ADDR an argument
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(cmd, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.job.Metrics, "metric", nil, "metrics to judge, comma separated (or --profile)")
	fl.StringVar(&f.job.Profile, "profile", "", "judge DATA with a card instead: context (retrieval samples), research (reports), daily ({id, report, truth, telemetry}) or a profile .yaml file")
	fl.StringVar(&f.job.Out, "out", "", "the run folder (default: assay-runs/RUN_ID in the working directory)")
	fl.BoolVar(&f.job.Resume, "resume", false, "resume the unfinished run in --out: judge only what its results.jsonl lacks, defaulted or failed")
	fl.StringVar(&f.job.Min, "min", "", "exit 1 when a value is below this floor: one for all metrics (0.7), by metric (faithfulness=0.8) or both")
	f.llm.register(fl)
	registerMaxDefaultRate(fl, &f.llm)
	registerSamples(fl, &f.llm)
	registerChecker(fl, &f.llm)
	registerJudges(fl, &f.llm)
	registerQueue(fl, &f.job.Queue)
	fl.BoolVar(&f.batch, "batch", false, "send the model calls through the server's batch endpoint (/v1/batches) at the batch price, in rounds, polling until each batch is done")
	fl.BoolVarP(&f.job.Quiet, "quiet", "q", false, "no progress on stderr")
	fl.StringArrayVar(&f.job.Gates, "gate", nil, "exit 1 unless 'METRIC.STAT OP NUMBER' holds (STAT: mean, min, max, median, p10, pass_rate, defaulted, defaulted_rate; OP: >=, >, <=, <); repeatable")
	fl.StringVar(&f.job.JUnit, "junit", "", "also write the gates and the samples as JUnit XML to FILE, for CI")
	fl.StringVar(&f.job.Label, "label", "", "measure each metric's calibration against this binary human label of the records (faithful; !NAME negated): Brier, ECE and a reliability diagram")
	fl.StringVar(&f.job.Baseline, "baseline", "", "compare with an earlier run: its folder, its id in the run store, or latest (the last run of the same dataset and metrics); exit 1 on seed 002's alerts")
	fl.StringVar(&f.job.SummaryMD, "summary-md", "", "with --baseline, append the comparison's Markdown summary (as assay runs diff --format md) to FILE, e.g. $GITHUB_STEP_SUMMARY")
	return cmd
}

func runBench(cmd *cobra.Command, f *benchFlags, file string) error {
	reg, err := f.llm.registry()
	if err != nil {
		return runError(err)
	}
	job := f.job
	job.Data, job.Stdin, job.Env, job.Registry = file, cmd.InOrStdin(), f.llm.env, reg
	job.Judging = f.llm.judging()
	job.Judging.LLM.Batch = f.batch
	job.Log, job.Command, job.Version = cmd.ErrOrStderr(), os.Args, version(debug.ReadBuildInfo())
	out, err := bench.Execute(cmd.Context(), job)
	if err != nil {
		return runError(err)
	}
	if err := out.Write(cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	return failuresErr(out.Failures)
}

// runError is the exit of a library run's error: an input error (bad
// input or settings, said with the file, line and field) is exit 2, any
// other (the model refused the key, the disk failed) exit 3.
func runError(err error) error {
	var ie *eval.InputError
	if errors.As(err, &ie) && !errors.Is(err, llm.ErrAuth) {
		return inputErr(err)
	}
	return &exitError{code: exitInfra, err: err}
}

// failuresErr is the exit of a run that ended: 3 for the first failure of
// the run itself (interrupted, over budget, too many defaults), 1 for a
// verdict on what was scored (a floor, then gates and alerts, said
// already), nil when it passed.
func failuresErr(fs judging.Failures) error {
	if f := fs.Infra(); f != nil {
		return &exitError{code: exitInfra, err: f.Err}
	}
	gates, alerts := 0, 0
	for _, f := range fs {
		switch f.Kind {
		case judging.FailFloor:
			return &exitError{code: exitFailed, err: f.Err}
		case judging.FailVerdict:
			return &exitError{code: exitFailed} // the card says so
		case judging.FailGate:
			gates++
		case judging.FailAlert:
			alerts++
		}
	}
	if gates+alerts == 0 {
		return nil
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("%d gate(s) failed, %d alert(s) raised", gates, alerts)}
}
