package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/backend"
	"github.com/assaylabs/assay/llm/dryrun"
	"github.com/assaylabs/assay/metric"
)

type judgeFlags struct {
	metrics []string
	format  string
	min     minFlag
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

FILE is a JSON object or array, JSON Lines, or CSV, with Assay's field names
or those of RAGAS (question/answer/contexts/ground_truth,
user_input/response/retrieved_contexts/reference) or DeepEval
(input/actual_output/retrieval_context/expected_output). FILE "-" reads
standard input as JSON (an object, an array or JSON Lines).

Metrics: ` + strings.Join(reg.Metrics(), ", ") + `.

Without --llm, $ASSAY_LLM or $OPENAI_API_KEY the judges run offline: lexical
and deterministic, labelled "offline (approximate)". A judge whose model
fails after retries scores a neutral 3 of 5 (value 0.5), flagged as
defaulted and counted. When more than --max-default-rate of the judgements
(5% by default; none under --strict) defaulted, the run exits 3 and names
the first cause: a server down, a bad key or a rate limit that never cleared
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
	fl.Var(&f.min, "min", "exit 1 when a value is below this floor: one for all metrics (0.7), by metric (faithfulness=0.8,answer_relevancy=0.7) or both; a neutral default never passes a floor")
	f.llm.register(fl)
	registerMaxDefaultRate(fl, &f.llm)
	registerSamples(fl, &f.llm)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
	_ = cmd.MarkFlagRequired("metric")
	return cmd
}

// newMeter starts the progress of a run over n records on stderr, with
// the money the client spends when it is a model's. Off a terminal a line
// is printed every $ASSAY_PROGRESS_EVERY (a duration; 5s by default).
func newMeter(cmd *cobra.Command, f *llmFlags, label string, n int, quiet bool, client *llm.Client) (*prog.Meter, error) {
	cfg := prog.Config{Label: label, Total: n, Quiet: quiet, Live: prog.IsTerminal(cmd.ErrOrStderr())}
	if v := f.env("ASSAY_PROGRESS_EVERY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, inputErr(fmt.Errorf("$ASSAY_PROGRESS_EVERY: want a positive duration such as 30s, got %q", v))
		}
		cfg.Every = d
	}
	if !client.Offline() {
		cfg.Cost = func() float64 { return client.Usage().CostUSD }
	}
	return prog.New(cmd.ErrOrStderr(), cfg), nil
}

// registerMaxDefaultRate adds --max-default-rate, for the commands that
// judge datasets.
func registerMaxDefaultRate(fl *pflag.FlagSet, f *llmFlags) {
	fl.Float64Var(&f.maxDefaultRate, "max-default-rate", bench.DefaultMaxRate,
		"exit 3 when more than this share (0 to 1) of the judgements fell back to the neutral default; --strict makes it 0")
}

// checkMaxDefaultRate checks --max-default-rate before any call.
func (f *llmFlags) checkMaxDefaultRate() error {
	if !(f.maxDefaultRate >= 0 && f.maxDefaultRate <= 1) { // NaN too
		return inputErr(fmt.Errorf("--max-default-rate: want a share from 0 to 1 (0.05 is 5%%), got %g", f.maxDefaultRate))
	}
	return nil
}

// defaultRateErr is the exit 3 for a run whose share of neutral defaults
// is over --max-default-rate (0 under --strict), or nil.
func (f *llmFlags) defaultRateErr(d bench.Defaults) error {
	limit, flag := f.maxDefaultRate, "--max-default-rate "+strconv.FormatFloat(f.maxDefaultRate, 'f', -1, 64)
	if f.strict {
		limit, flag = 0, "--strict (no default allowed)"
	}
	var re *bench.DefaultRateError
	if !errors.As(d.Check(limit), &re) {
		return nil
	}
	return &exitError{code: exitInfra, err: fmt.Errorf("%s fell back to the neutral default, over %s: %s\n%s, "+
		"or allow more defaults with --max-default-rate", re.Summary(), flag, re.Cause(), defaultAdvice(re))}
}

// defaultAdvice says what to look at for the first cause of a run's
// defaults.
func defaultAdvice(cause error) string {
	var se *llm.StatusError
	switch {
	case errors.Is(cause, llm.ErrInvalidOutput):
		return "the model's replies do not follow the judges' JSON schema: use a model that supports structured output, " +
			"or set $ASSAY_OPENAI_OUTPUT (json_object or prompt) to what the server supports"
	case errors.Is(cause, judges.ErrMissingVerdicts):
		return "the model left items without a verdict even when asked again: use a stronger model"
	case errors.As(cause, &se) && se.Code == http.StatusTooManyRequests:
		return "the server kept rate limiting: lower --concurrency, set --rpm or --tpm, or raise --max-retry-time"
	}
	return "check that the model server is up and the key and model name are right (--llm, $OPENAI_BASE_URL, $OPENAI_API_KEY)"
}

// judgeResult is one score as printed.
type judgeResult struct {
	ID        string        `json:"id" yaml:"id"`
	Metric    string        `json:"metric" yaml:"metric"`
	Value     float64       `json:"value" yaml:"value"`
	Points    float64       `json:"points" yaml:"points"`
	Max       float64       `json:"max" yaml:"max"`
	Method    string        `json:"method" yaml:"method"`
	Reason    string        `json:"reason" yaml:"reason"`
	Defaulted bool          `json:"defaulted,omitempty" yaml:"defaulted,omitempty"`
	Skipped   bool          `json:"skipped,omitempty" yaml:"skipped,omitempty"`
	Error     string        `json:"error,omitempty" yaml:"error,omitempty"`
	Evidence  eval.Evidence `json:"evidence,omitzero" yaml:"evidence,omitempty"`
	Usage     eval.Usage    `json:"usage,omitzero" yaml:"usage,omitempty"`
}

func runJudge(cmd *cobra.Command, f judgeFlags, file string) error {
	if err := checkFormat(f.format, "yaml", "json", "jsonl", "text"); err != nil {
		return err
	}
	if len(f.metrics) == 0 {
		return inputErr(errors.New("--metric: name at least one metric (have " + strings.Join(f.llm.metrics.Metrics(), ", ") + ")"))
	}
	for i, m := range f.metrics {
		if _, err := f.llm.metrics.New(m, nil); err != nil {
			return inputErr(fmt.Errorf("--metric: %w", err))
		}
		if slices.Contains(f.metrics[:i], m) {
			return inputErr(fmt.Errorf("--metric: %q is named twice", m))
		}
	}
	if err := f.min.Check(f.metrics); err != nil {
		return inputErr(err)
	}
	if err := f.llm.checkMaxDefaultRate(); err != nil {
		return err
	}
	client, closeCache, err := f.llm.client(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer closeCache()
	if err := f.llm.checkSamples(client); err != nil {
		return err
	}
	// A sampled ratio's majority verdict is at the threshold the summary
	// counts passes at: the --min floor where one is set, else the
	// metric's default threshold.
	threshold := func(m string) float64 {
		if v := f.min.Floor(m); v > 0 {
			return v
		}
		return f.llm.metrics.DefaultThreshold(m, client)
	}
	build := f.llm.sampledScorers(f.metrics, threshold, judgeScorers(f.llm.metrics, f.metrics))
	scorers := build(client)
	// A first pass checks the whole dataset, records and what each metric
	// needs of them, so that bad input is reported before any model call;
	// the run reads it again record by record.
	data, err := bench.OpenDataset(file, bench.DatasetOptions{Stdin: cmd.InOrStdin(), Scorers: scorers})
	if err != nil {
		return inputErr(err)
	}
	if f.llm.dryRun {
		return dryRun(cmd.Context(), cmd.OutOrStdout(), f.llm.metrics, client, f.metrics, build, data.Len(), data.Records())
	}
	// Results are written as records finish, in record order, so a long run
	// shows progress and an interrupted one keeps what it judged, and the
	// writing overlaps the wait for the model.
	// Progress goes to stderr: a bar on a terminal, a line every few
	// seconds elsewhere.
	meter, err := newMeter(cmd, &f.llm, "judge", data.Len(), f.quiet, client)
	if err != nil {
		return err
	}
	out := newResultWriter(meter.Writer(cmd.OutOrStdout()), f.format)
	// The summary's "passed" is at the --min floor where one is set, else
	// at the metric's default threshold.
	tally := bench.Tally{Threshold: threshold}
	done := 0
	var defaults bench.Defaults
	var werr error
	// Goroutines are cheap; the client's --concurrency limit sets the pace
	// of model calls, so the fan-out must not be the bottleneck.
	err = bench.ScoreStream(cmd.Context(), data.Records(), scorers, bench.TasksPerCall*f.llm.concurrency, func(_ int, rec bench.Record, scores []eval.Score) error {
		defaulted := 0
		for _, sc := range scores {
			tally.Add(sc)
			f.llm.stable.add(sc)
			defaults.Add(named(rec.ID, sc))
			if sc.Defaulted {
				defaulted++
			}
			r := resultOf(rec.ID, sc)
			// The gate compares the value printed, rounded.
			f.min.Add(eval.Score{Metric: r.Metric, Value: r.Value, Defaulted: r.Defaulted, Skipped: r.Skipped})
			if werr = out.write(r); werr != nil {
				return werr
			}
		}
		done++
		meter.Add(1, defaulted)
		werr = out.flush()
		return werr
	})
	// A run that failed before any result was written prints nothing
	// rather than an empty list next to its error; an interrupted one
	// prints what it judged, which may be an empty list.
	interrupted := err != nil && cmd.Context().Err() != nil
	if cerr := out.close((err == nil || interrupted) && werr == nil); werr == nil {
		werr = cerr
	}
	meter.Close() // after the results it may print, before the summary
	defaulted := tally.Defaulted()
	if werr == nil && (err == nil || interrupted) {
		// An interrupted run still shows what it judged and spent.
		if data.Len() > 1 {
			_ = bench.FormatSummaries(cmd.ErrOrStderr(), tally.Summaries())
		}
		f.llm.summary(cmd.ErrOrStderr(), client, defaulted)
		if n := tally.Skipped(); n > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "judge: skipped %d result(s) with nothing to judge (no answer, no claim): not scored, never passing --min\n", n)
		}
	}
	switch {
	case werr != nil:
		return &exitError{code: exitInfra, err: werr}
	case interrupted:
		return &exitError{code: exitInfra, err: fmt.Errorf("interrupted after %d of %d records: %w", done, data.Len(), err)}
	case err != nil:
		return runErr(data, err)
	}
	if err := f.llm.budgetErr(client); err != nil {
		return err
	}
	if err := f.llm.defaultRateErr(defaults); err != nil {
		return err
	}
	if err := f.min.Err(); err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	return nil
}

// judgeScorers returns the builder of the judges of metrics, which reg.New
// has checked, judging with a model.
func judgeScorers(reg *metric.Registry, metrics []string) func(judges.Model) []eval.Scorer {
	return func(m judges.Model) []eval.Scorer {
		out := make([]eval.Scorer, len(metrics))
		for i, name := range metrics {
			out[i], _ = reg.New(name, m)
		}
		return out
	}
}

// named is sc with its error, if any, naming the record and metric, for
// the default-rate message.
func named(id string, sc eval.Score) eval.Score {
	if sc.Err != nil {
		sc.Err = fmt.Errorf("record %s: %s: %w", id, sc.Metric, sc.Err)
	}
	return sc
}

func resultOf(id string, sc eval.Score) judgeResult {
	r := judgeResult{ID: id, Metric: sc.Metric, Value: round(sc.Value), Points: round(sc.Points), Max: sc.Max,
		Method: sc.Method, Reason: sc.Reason, Defaulted: sc.Defaulted, Skipped: sc.Skipped, Evidence: sc.Evidence, Usage: sc.Usage}
	if sc.Err != nil {
		r.Error = sc.Err.Error()
	}
	return r
}

func round(v float64) float64 { return float64(int64(v*10000+0.5)) / 10000 }

// resultWriter writes judge results one by one in a format (yaml, json or
// text) whose whole is the same as encoding the list at once, and which
// stays well-formed when close is called after a partial run. jsonl is one
// JSON object a line, the format for files: each flush hands the lines it
// holds to the writer in one Write, so a run killed at any point (even
// kill -9, which skips close) leaves only whole lines, each readable alone.
type resultWriter struct {
	w      *bufio.Writer
	format string
	n      int
	buf    bytes.Buffer
}

func newResultWriter(w io.Writer, format string) *resultWriter {
	return &resultWriter{w: bufio.NewWriter(w), format: format}
}

func (rw *resultWriter) write(r judgeResult) error {
	defer func() { rw.n++ }()
	switch rw.format {
	case "jsonl":
		// Held in buf until flush, which writes whole lines only.
		enc := json.NewEncoder(&rw.buf)
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	case "json":
		// One element of an array indented by two spaces, as
		// json.MarshalIndent of the whole list writes it.
		rw.buf.Reset()
		enc := json.NewEncoder(&rw.buf)
		enc.SetIndent("  ", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return err
		}
		sep := ",\n  "
		if rw.n == 0 {
			sep = "[\n  "
		}
		_, _ = rw.w.WriteString(sep) // a bufio.Writer keeps its first error for Write and Flush
		_, err := rw.w.Write(bytes.TrimSuffix(rw.buf.Bytes(), []byte("\n")))
		return err
	case "text":
		flag := ""
		if r.Defaulted {
			flag = " DEFAULTED"
		}
		if r.Skipped {
			flag = " SKIPPED"
		}
		fmt.Fprintf(rw.w, "%s %s %.3f (%g/%g)%s [%s]\n  %s\n", r.ID, r.Metric, r.Value, r.Points, r.Max, flag, r.Method, r.Reason)
		for _, c := range r.Evidence.Claims {
			src := ""
			if c.SourceID != "" {
				src = " <- " + c.SourceID
			}
			fmt.Fprintf(rw.w, "  - [%s] %s%s\n", c.Verdict, c.Text, src)
		}
		for _, s := range r.Evidence.Sources {
			fmt.Fprintf(rw.w, "  - %s: %g %s\n", s.URL, s.Rating, s.Basis)
		}
		for _, g := range r.Evidence.Gaps {
			fmt.Fprintf(rw.w, "  - gap: %s\n", g)
		}
		return nil
	default:
		// A one-item sequence per result: the items of one sequence.
		enc := yaml.NewEncoder(rw.w)
		enc.SetIndent(2)
		if err := enc.Encode([]judgeResult{r}); err != nil {
			return err
		}
		return enc.Close()
	}
}

// flush writes out what is buffered, so finished records show at once.
func (rw *resultWriter) flush() error {
	if rw.format == "jsonl" && rw.buf.Len() > 0 {
		// The bufio.Writer is empty here, so it passes the lines on in
		// one Write (directly when they are larger than its buffer).
		_, err := rw.w.Write(rw.buf.Bytes())
		rw.buf.Reset()
		if err != nil {
			return err
		}
	}
	return rw.w.Flush()
}

// close ends the list and flushes. With nothing written, complete says
// whether to write an empty list (the run finished) or nothing (it failed).
func (rw *resultWriter) close(complete bool) error {
	switch {
	case rw.format == "jsonl":
		// No records is no lines: an empty file is an empty JSON Lines
		// file. Lines not yet flushed are written whole.
		return rw.flush()
	case rw.n == 0 && complete && rw.format != "text":
		_, _ = rw.w.WriteString("[]\n") // its error comes back from Flush
	case rw.format == "json" && rw.n > 0:
		_, _ = rw.w.WriteString("\n]\n") // its error comes back from Flush
	}
	return rw.w.Flush()
}

// planRow is one line of a dry run's table.
type planRow struct {
	name           string
	calls, in, out int
}

// printPlanRows prints a dry run's table with costs and a total. A model
// missing from the price table has its costs marked unknown, never $0.
func printPlanRows(w io.Writer, c *llm.Client, rows []planRow) {
	prices := c.Prices()
	priced := c.Offline() || prices.Known(c.Name())
	cost := func(in, out int) string {
		if !priced {
			return "unknown"
		}
		return fmt.Sprintf("%.4f", prices.Cost(c.Name(), in, out))
	}
	fmt.Fprintf(w, "%-20s %8s %12s %12s %10s\n", "step", "calls", "tokens in", "tokens out", "cost USD")
	var total planRow
	for _, r := range rows {
		fmt.Fprintf(w, "%-20s %8d %12d %12d %10s\n", r.name, r.calls, r.in, r.out, cost(r.in, r.out))
		total.calls += r.calls
		total.in += r.in
		total.out += r.out
	}
	fmt.Fprintf(w, "%-20s %8d %12d %12d %10s\n", "total", total.calls, total.in, total.out, cost(total.in, total.out))
	if !priced {
		fmt.Fprintf(w, "cost unknown: model %s is not in the price table; give --prices FILE with its price per million tokens ({%s: {in: 0.15, out: 0.6}})\n",
			backend.ModelName(c.Name()), backend.ModelName(c.Name()))
	}
	totalCost := prices.Cost(c.Name(), total.in, total.out)
	switch limit := c.MaxCost(); {
	case limit <= 0 || !priced:
	case totalCost > limit:
		fmt.Fprintf(w, "over --max-cost $%.4f: new calls would stop after about %.0f%% of the estimate; the judges left would score neutral defaults\n",
			limit, 100*limit/totalCost)
	default:
		fmt.Fprintf(w, "within --max-cost $%.4f\n", limit)
	}
	if c.Offline() {
		fmt.Fprintln(w, "offline makes no model calls; the figures are what a model would need")
	}
}

// printPlan prints a research run's recorded calls, step by step.
func printPlan(w io.Writer, c *llm.Client, calls []dryrun.Call) {
	fmt.Fprintf(w, "dry run for %s: the research run, repairs included, with stand-in replies; no call made (a real run's repairs depend on its model's replies: at most two)\n", judgeName(c))
	var rows []planRow
	idx := map[string]int{}
	for _, call := range calls {
		i, ok := idx[call.Tag]
		if !ok {
			i = len(rows)
			idx[call.Tag] = i
			rows = append(rows, planRow{name: call.Tag})
		}
		rows[i].add(call)
	}
	printPlanRows(w, c, rows)
}

func (r *planRow) add(c dryrun.Call) {
	r.calls++
	r.in += c.TokensIn
	r.out += c.TokensOut
}

// dryRun runs the scorers of metrics (built by scorers, with the model
// given, in the order of metrics) on the n records, read one at a time,
// against a recording backend standing in for c's model with the stand-in
// replies of reg's metrics, and prints the calls, tokens and cost the run
// would need. No call is made.
func dryRun(ctx context.Context, w io.Writer, reg *metric.Registry, c *llm.Client, metrics []string, scorers func(judges.Model) []eval.Scorer,
	n int, recs iter.Seq2[bench.Record, error]) error {
	rec := dryrun.New(c, reg.DryRun)
	js := scorers(dryrun.Client(rec, c))
	type row struct {
		planRow
		err error // the first record this metric cannot be judged on
	}
	per := make([]row, len(metrics))
	for r, err := range recs {
		if err != nil {
			return inputErr(err)
		}
		for i, m := range metrics {
			if per[i].err != nil {
				continue
			}
			// One scorer at a time, so each call is its metric's.
			before := len(rec.Calls())
			sc, err := js[i].Score(ctx, r.Sample)
			if err != nil {
				if ctx.Err() != nil {
					return &exitError{code: exitInfra, err: ctx.Err()}
				}
				per[i].err = fmt.Errorf("record %s: %s: %w", r.ID, m, err)
				continue
			}
			if sc.Defaulted {
				// The stand-in replies are valid by construction: a judge
				// that refused one has changed its reply schema.
				return &exitError{code: exitInfra, err: fmt.Errorf("dry run: record %s: %s refused the stand-in reply (%w); its metric entry's DryRun must answer its schema", r.ID, m, sc.Err)}
			}
			for _, call := range rec.Calls()[before:] {
				per[i].add(call)
			}
		}
	}
	for i := range metrics {
		if err := per[i].err; err != nil {
			return inputErr(err) // the first metric's, as metric by metric
		}
	}
	fmt.Fprintf(w, "dry run for %s on %d record(s); no call made\n", judgeName(c), n)
	var rows []planRow
	for i, m := range metrics {
		r := per[i].planRow
		r.name = m
		rows = append(rows, r)
	}
	printPlanRows(w, c, rows)
	return nil
}
