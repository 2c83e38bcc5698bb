package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/judges"
)

type agreeFlags struct {
	metric    string
	label     string
	threshold float64
	baseline  bool
	format    string
	quiet     bool
	llm       llmFlags
}

func newAgreeCmd(env func(string) string) *cobra.Command {
	f := agreeFlags{llm: llmFlags{env: env}}
	cmd := &cobra.Command{
		Use:   "agree --metric NAME --label LABEL [flags] FILE",
		Short: "Measure how well a judge agrees with human labels",
		Long: `Run a judge over a labelled dataset and compare its values with a binary
human label (human.faithful, human.relevant, ...): balanced accuracy,
precision, recall, F1 and Cohen's kappa at the judge's default threshold and
at the best threshold for this data, and ROC AUC. The default threshold's
balanced accuracy comes with a 95% bootstrap interval (stratified, 2000
resamples, fixed seed), to show how much a dataset of this size can tell.
With --baseline the plain token-overlap baseline is measured beside it.

Defaulted judge results are counted and left out of the statistics, never
averaged in; more of them than --max-default-rate allows (5%, none under
--strict) exits 3. So are records the judge cannot score (context_recall without
a reference, say): the first is named on standard error, and when no
labelled record can be scored the run exits 2.`,
		Example: `  assay agree --metric faithfulness --label faithful --baseline data/begin.dev.jsonl
  assay agree --metric source_relevance --label relevant --llm openai:gpt-4o-mini data/msmarco.dev.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAgree(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.metric, "metric", "", "judge to measure (required): "+fmt.Sprint(judges.Metrics()))
	fl.StringVar(&f.label, "label", "", "binary human label to compare with (required), e.g. faithful, relevant; !NAME reads one negated (!hallucinated)")
	fl.Float64Var(&f.threshold, "threshold", -1, "decision threshold on the judge's value (default: the judge's own)")
	fl.BoolVar(&f.baseline, "baseline", false, "also measure the plain token-overlap baseline")
	fl.StringVar(&f.format, "format", "md", "output format: md or json")
	f.llm.register(fl)
	registerMaxDefaultRate(fl, &f.llm)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
	_ = cmd.MarkFlagRequired("metric")
	_ = cmd.MarkFlagRequired("label")
	return cmd
}

func runAgree(cmd *cobra.Command, f agreeFlags, file string) error {
	if err := checkFormat(f.format, "md", "json"); err != nil {
		return err
	}
	if _, err := judges.New(f.metric, nil); err != nil {
		return inputErr(fmt.Errorf("--metric: %w", err))
	}
	setThreshold := cmd.Flags().Changed("threshold")
	if setThreshold && !(f.threshold >= 0 && f.threshold <= 1) { // NaN too
		return inputErr(fmt.Errorf("--threshold: want a value from 0 to 1, got %g", f.threshold))
	}
	if err := f.llm.checkMaxDefaultRate(); err != nil {
		return err
	}
	// A first pass checks the whole dataset, so that bad input is reported
	// before any model call; each scorer reads it again record by record.
	labelled := 0
	data, err := bench.OpenDataset(file, bench.DatasetOptions{Stdin: cmd.InOrStdin(), Visit: func(r bench.Record) error {
		if _, ok := r.Label(f.label); ok {
			labelled++
		}
		return nil
	}})
	if err != nil {
		return inputErr(err)
	}
	if labelled == 0 {
		return inputErr(fmt.Errorf("%s: no record has the binary label human.%s", data.Name(), f.label))
	}
	client, closeCache, err := f.llm.client(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer closeCache()
	if f.llm.dryRun {
		return dryRun(cmd.Context(), cmd.OutOrStdout(), client, []string{f.metric}, judgeScorers([]string{f.metric}), data.Len(), data.Records())
	}
	judge, _ := judges.New(f.metric, client)
	th := f.threshold
	if !setThreshold {
		th = judges.DefaultThreshold(f.metric, client)
	}
	type job struct {
		scorer    eval.Scorer
		metric    string
		threshold float64
	}
	jobs := []job{{judge, f.metric, th}}
	if f.baseline {
		jobs = append(jobs, job{judges.TokenOverlap{}, judges.MetricTokenOverlap, judges.DefaultThreshold(judges.MetricTokenOverlap, nil)})
	}
	var results []bench.AgreeResult
	defaulted := 0
	for _, j := range jobs {
		t := j.threshold
		meter, err := newMeter(cmd, &f.llm, "agree "+j.metric, labelled, f.quiet, client)
		if err != nil {
			return err
		}
		res, err := bench.AgreeStream(cmd.Context(), data.Records(), bench.Job{Scorer: metered{j.scorer, meter}, Metric: j.metric, Concurrency: bench.TasksPerCall * f.llm.concurrency},
			bench.AgreeOptions{Label: f.label, Threshold: &t})
		meter.Close()
		switch {
		case err != nil && cmd.Context().Err() != nil:
			return &exitError{code: exitInfra, err: err}
		case err != nil:
			return runErr(data, err)
		}
		if err := f.llm.authErr(client); err != nil {
			return err
		}
		if err := unscored(cmd.ErrOrStderr(), data.Name(), res); err != nil {
			return err
		}
		defaulted += res.Defaulted
		results = append(results, res)
	}
	if err := printAgree(cmd.OutOrStdout(), f.format, data.Name(), results); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	f.llm.summary(cmd.ErrOrStderr(), client, defaulted)
	if err := f.llm.budgetErr(client); err != nil {
		return err
	}
	for _, r := range results {
		if err := f.llm.defaultRateErr(rowDefaults(r)); err != nil {
			return err
		}
		if r.N == 0 && r.Defaulted > 0 {
			// Nothing was measured: a run whose every judgement fell
			// back to the neutral default must not pass for a result.
			return &exitError{code: exitInfra, err: fmt.Errorf("%s: all %d labelled records fell back to the neutral default (the model calls failed): nothing to compare with the labels",
				r.Metric, r.Defaulted)}
		}
	}
	return nil
}

// metered counts each record its scorer scored on a progress meter.
type metered struct {
	eval.Scorer
	meter *prog.Meter
}

var _ eval.Scorer = metered{}

func (m metered) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	sc, err := m.Scorer.Score(ctx, s)
	defaulted := 0
	if sc.Defaulted {
		defaulted = 1
	}
	m.meter.Add(1, defaulted)
	return sc, err
}

// rowDefaults counts the judgements of r's rows and their defaults, each
// metric apart, so that the baseline beside a judge does not dilute it.
func rowDefaults(r bench.AgreeResult) bench.Defaults {
	d := bench.Defaults{Total: len(r.Rows)}
	for _, row := range r.Rows {
		if !row.Defaulted {
			continue
		}
		d.Defaulted++
		if d.First == nil && row.Err != "" {
			d.First = fmt.Errorf("record %s: %s: %w", row.ID, r.Metric, errors.New(row.Err))
		}
	}
	return d
}

// unscored reports the labelled records the scorer returned an error for
// (a record without a field its metric needs, say; defaults are counted
// apart): an input error when that is every one of them, else a note on w
// naming the first, as the statistics leave them out.
func unscored(w io.Writer, file string, res bench.AgreeResult) error {
	if res.Errors == 0 {
		return nil
	}
	i := slices.IndexFunc(res.Rows, func(r bench.Row) bool { return r.Err != "" && !r.Defaulted })
	if i < 0 {
		return nil
	}
	row := res.Rows[i]
	msg, _, _ := strings.Cut(row.Err, "\n") // a panic's stack stays in the JSON rows
	where := fmt.Sprintf("%s:%d: record %s: %s", file, row.Line, row.ID, msg)
	if res.Errors == len(res.Rows) {
		return inputErr(fmt.Errorf("%s (%s could score none of the %d labelled records)", where, res.Metric, len(res.Rows)))
	}
	fmt.Fprintf(w, "assay: %s (%d of %d labelled records left out)\n", where, res.Errors, len(res.Rows))
	return nil
}

func printAgree(w io.Writer, format, file string, rs []bench.AgreeResult) error {
	if format == "json" {
		return writeJSON(w, rs)
	}
	// Buffered, so that a failed write (a full disk) is kept and returned.
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Agreement with human labels on %s\n\n", file)
	fmt.Fprint(bw, bench.MarkdownHeader)
	for _, r := range rs {
		fmt.Fprint(bw, r.Markdown())
	}
	return bw.Flush()
}
