package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
)

type judgeFlags struct {
	metrics []string
	format  string
	min     string
	quiet   bool
	llm     llmFlags
}

func newJudgeCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := judgeFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:   "judge --metric NAME[,NAME] [flags] FILE",
		Short: "Judge RAG samples (question, answer, contexts, reference) with LLM or offline judges",
		Long: `Judge one RAG sample or a dataset of them and print every score with its
evidence: the claims and their verdicts, the sources and their grades, the
gaps.

FILE is a JSON object or array, JSON Lines, CSV or TSV (.tsv), with Assay's field names
or those of RAGAS (question/answer/contexts/ground_truth,
user_input/response/retrieved_contexts/reference) or DeepEval
(input/actual_output/retrieval_context/expected_output); a record may be
a conversation (messages, expected_tool_calls, ordered), and a file of
OTLP JSON export lines is read as the conversations of its spans
(docs/agents.md). FILE "-" reads standard input as JSON (an object, an
array or JSON Lines).

Metrics: ` + strings.Join(reg.Metrics(), ", ") + `.

Without --llm, $ASSAY_LLM or $OPENAI_API_KEY the judges run offline: lexical
and deterministic, labelled "offline (approximate)". A judge whose model
fails after retries scores a neutral 3 of 5 (value 0.5), flagged as
defaulted and counted. When more than --max-default-rate of the judgements
(5% by default; none under --strict) defaulted, the run exits 3, names
the first cause and counts the defaults by kind of cause: a server down, a bad key or a rate limit that never cleared
must not pass for a result.`,
		Example: `  assay judge --metric faithfulness fixtures/rag/eiffel.json
  assay judge --metric faithfulness,answer_relevancy --llm openai:gpt-4o-mini --format jsonl data.jsonl > results.jsonl
  assay judge --metric faithfulness --dry-run --llm openai:gpt-4o data.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runJudge(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.metrics, "metric", nil, "metrics to judge, comma separated (required)")
	fl.StringVar(&f.format, "format", "yaml", "output format: yaml, json, jsonl or text; jsonl (one result a line, written as each record finishes) is the one for files, as a cut-off run leaves only whole lines")
	fl.StringVar(&f.min, "min", "", "exit 1 when a value is below this floor: one for all metrics (0.7), by metric (faithfulness=0.8,answer_relevancy=0.7) or both; a neutral default never passes a floor")
	f.llm.register(fl)
	registerMaxDefaultRate(fl, &f.llm)
	registerSamples(fl, &f.llm)
	registerChecker(fl, &f.llm)
	registerJudges(fl, &f.llm)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
	_ = cmd.MarkFlagRequired("metric")
	return cmd
}

// registerMaxDefaultRate adds --max-default-rate, for the commands that
// judge datasets.
func registerMaxDefaultRate(fl *pflag.FlagSet, f *llmFlags) {
	fl.Float64Var(&f.maxSkipRate, "max-skip-rate", 1,
		"exit 3 when more than this share (0 to 1) of a metric's judgements had nothing to judge (no answer, no claim); a metric with none scored always does")
	fl.Float64Var(&f.maxDefaultRate, "max-default-rate", judging.DefaultMaxRate,
		"exit 3 when more than this share (0 to 1) of the judgements fell back to the neutral default; --strict makes it 0")
}

func runJudge(cmd *cobra.Command, f judgeFlags, file string) error {
	reg, err := f.llm.registry()
	if err != nil {
		return runError(err)
	}
	out, err := bench.Judge(cmd.Context(), bench.JudgeJob{
		Data: file, Stdin: cmd.InOrStdin(), Metrics: f.metrics, Registry: reg, Min: f.min, Format: f.format, Out: cmd.OutOrStdout(),
		Judging: f.llm.judging(), Env: f.llm.env, Log: cmd.ErrOrStderr(), Quiet: f.quiet,
	})
	if err != nil {
		return runError(err)
	}
	out.Write(cmd.OutOrStdout(), cmd.ErrOrStderr())
	return failuresErr(out.Failures)
}
