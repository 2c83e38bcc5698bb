package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/bench"
)

func newRunsCmd(env func(string) string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List, show, compare and trend the recorded evaluation runs",
		Long: `Every assay bench run is recorded in the run store, an SQLite file in the
user data directory ($XDG_DATA_HOME/assay/runs.db, ~/.local/share/assay on
Linux; $ASSAY_DATA_DIR/runs.db when that is set). A RUN is a run id, a
unique beginning of one, or a run folder (assay bench --out DIR).

An unknown run exits 2.`,
	}
	cmd.AddCommand(newRunsListCmd(env), newRunsShowCmd(env), newRunsDiffCmd(env), newRunsTrendCmd(env))
	return cmd
}

func newRunsListCmd(env func(string) string) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the recorded runs, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openRunStore(env)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			rows, err := st.List(cmd.Context())
			if err != nil {
				return &exitError{code: exitInfra, err: err}
			}
			w := cmd.OutOrStdout()
			if len(rows) == 0 {
				_, err := fmt.Fprintf(w, "no runs recorded yet in %s: assay bench records one\n", st.Path())
				return err
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTARTED\tDATASET\tMETRICS\tMEANS\tSTATUS")
			for _, r := range rows {
				// Names and means from one list, so that they line up.
				names, means := make([]string, len(r.Summary.Metrics)), make([]string, len(r.Summary.Metrics))
				for i, m := range r.Summary.Metrics {
					names[i], means[i] = m.Metric, statText(m.Mean)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, timeText(r.Started), datasetText(r.Dataset, r.DatasetSHA256),
					strings.Join(names, ","), strings.Join(means, ","), bench.RunStatus(r.Summary))
			}
			return tw.Flush()
		},
	}
}

func newRunsShowCmd(env func(string) string) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a run's summary: a table, or summary.json with --format json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			r, err := loadRun(cmd, env, args[0], false)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				return writeJSON(w, r.summary)
			}
			return showRun(w, r)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json (summary.json)")
	return cmd
}

func newRunsDiffCmd(env func(string) string) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare run B with run A: means, a paired test, seed 002's alerts and A/B analysis",
		Long: `Compare run B (the current run, the treatment) with run A (the baseline,
the control), metric by metric: each mean and the delta, the Wilcoxon
signed-rank test over the samples both runs scored, the samples that fell
most, seed 002's quality alerts (a degradation warning below 0.85 x the
baseline mean, a critical alert below 0.4), and seed 002's A/B analysis
(sizes, mean quality, improvement, latency change) with its "n >= 100
each" rule beside the real test. A and B are run ids or run folders.

Exits 1 when an alert is raised, as assay bench --baseline does.`,
		Example: `  assay runs diff 20261101-0900-1a2b 20261103-0900-3c4d
  assay runs diff assay-runs/old assay-runs/new`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			a, err := loadRun(cmd, env, args[0], true)
			if err != nil {
				return err
			}
			b, err := loadRun(cmd, env, args[1], true)
			if err != nil {
				return err
			}
			c, alerts, err := bench.Compare(a.dir, b.folder.Results, b.summary, &b.folder.Config)
			if err != nil {
				return inputErr(err)
			}
			d := runDiff{Baseline: a.id, Current: b.id, Comparison: c, Alerts: alerts}
			for _, m := range c.Metrics {
				d.AB = append(d.AB, abRow{Metric: m.Metric, Analysis: bench.AnalyzeRuns(a.folder.Results, b.folder.Results, m.Metric), Test: m.Test, P: m.P})
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				err = writeJSON(w, d)
			} else {
				err = showDiff(w, a, b, d)
			}
			if err != nil {
				return err
			}
			if len(alerts) > 0 {
				return &exitError{code: exitFailed}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func newRunsTrendCmd(env func(string) string) *cobra.Command {
	var ds string
	cmd := &cobra.Command{
		Use:   "trend METRIC",
		Short: "Show a metric's mean over time for one dataset",
		Long: `Show the mean of METRIC in every recorded run of one dataset, oldest first:
seed 003's "track scores over time". --dataset names the dataset by its
file (hashed) or its sha256; without it, the dataset of the last run that
judged METRIC.`,
		Example: `  assay runs trend faithfulness --dataset data/rag.jsonl`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sha, err := datasetSHA(ds)
			if err != nil {
				return err
			}
			st, err := openRunStore(env)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			pts, err := st.Trend(cmd.Context(), args[0], sha)
			if nf, ok := errors.AsType[*bench.RunNotFoundError](err); ok {
				return inputErr(fmt.Errorf("no recorded run judged %s (run store %s): see assay runs list", args[0], nf.Path))
			}
			if err != nil {
				return &exitError{code: exitInfra, err: err}
			}
			if len(pts) == 0 {
				return inputErr(fmt.Errorf("no recorded run of dataset %s judged %s: see assay runs list", sha, args[0]))
			}
			return showTrend(cmd.OutOrStdout(), args[0], pts)
		},
	}
	cmd.Flags().StringVar(&ds, "dataset", "", "the dataset: its file, or its sha256 (default: the last run's that judged METRIC)")
	return cmd
}

// datasetSHA is the sha256 that --dataset names: a file's, hashed, or the
// hash as given.
func datasetSHA(ds string) (string, error) {
	if ds == "" {
		return "", nil
	}
	f, err := os.Open(ds)
	if errors.Is(err, os.ErrNotExist) {
		if len(ds) == 64 && strings.Trim(strings.ToLower(ds), "0123456789abcdef") == "" {
			return strings.ToLower(ds), nil
		}
		return "", inputErr(fmt.Errorf("--dataset %s: neither a file nor a sha256 (64 hex digits)", ds))
	}
	if err != nil {
		return "", inputErr(fmt.Errorf("--dataset: %w", err))
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", inputErr(fmt.Errorf("--dataset %s: %w", ds, err))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// openRunStore opens the run store where DefaultStorePath puts it.
func openRunStore(env func(string) string) (*bench.Store, error) {
	path, err := bench.DefaultStorePath(env)
	if err != nil {
		return nil, inputErr(err)
	}
	st, err := bench.OpenStore(path)
	if err != nil {
		return nil, &exitError{code: exitInfra, err: err}
	}
	return st, nil
}

// loadedRun is a run named on the command line.
type loadedRun struct {
	id, dir string
	cfg     bench.RunConfig
	summary bench.Summary
	// folder is the run folder read back; nil unless asked for.
	folder *bench.RunFolder
}

// loadRun finds the run ref names: a run folder, else a run id or prefix
// in the store. withFolder reads its folder too (results included),
// which must then still exist.
func loadRun(cmd *cobra.Command, env func(string) string, ref string, withFolder bool) (*loadedRun, error) {
	if _, err := os.Stat(filepath.Join(ref, bench.FileConfig)); err == nil {
		f, err := bench.ReadRunFolder(ref)
		if err != nil {
			return nil, inputErr(err)
		}
		if f.Summary == nil {
			return nil, inputErr(fmt.Errorf("run folder %s has no %s: the run never finished; resume it with assay bench --resume --out %s", ref, bench.FileSummary, ref))
		}
		return &loadedRun{id: f.Config.RunID, dir: ref, cfg: f.Config, summary: *f.Summary, folder: f}, nil
	}
	st, err := openRunStore(env)
	if err != nil {
		return nil, err
	}
	defer func() { _ = st.Close() }()
	row, err := st.Get(cmd.Context(), ref)
	if _, ok := errors.AsType[*bench.RunNotFoundError](err); ok {
		return nil, inputErr(fmt.Errorf("%w (nor is %s a run folder)", err, ref))
	}
	if err != nil {
		return nil, &exitError{code: exitInfra, err: err}
	}
	r := &loadedRun{id: row.ID, dir: row.Dir, cfg: row.Config, summary: row.Summary}
	if withFolder {
		if r.folder, err = bench.ReadRunFolder(row.Dir); err != nil {
			return nil, inputErr(fmt.Errorf("run %s: its folder: %w", row.ID, err))
		}
	}
	return r, nil
}

// statText is a statistic with four places, "-" when undefined.
func statText(n bench.Num) string {
	if f := float64(n); !math.IsNaN(f) && !math.IsInf(f, 0) {
		return fmt.Sprintf("%.4f", f)
	}
	return "-"
}

// pctText is a relative change as a signed percentage, "-" when undefined.
func pctText(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}

func timeText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

func datasetText(path, sha string) string {
	if len(sha) > 8 {
		sha = sha[:8]
	}
	return filepath.Base(path) + " (" + sha + ")"
}

func showRun(w io.Writer, r *loadedRun) error {
	s := r.summary
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "run\t%s\n", r.id)
	fmt.Fprintf(tw, "started\t%s\n", timeText(s.Started))
	fmt.Fprintf(tw, "finished\t%s\n", timeText(s.Finished))
	fmt.Fprintf(tw, "dataset\t%s (sha256 %s)\n", r.cfg.Dataset, r.cfg.DatasetSHA256)
	fmt.Fprintf(tw, "model\t%s\n", r.cfg.Model)
	fmt.Fprintf(tw, "samples\t%d\n", s.Samples)
	fmt.Fprintf(tw, "cost\t$%.4f (%d calls, %d tokens in, %d out)\n", s.Usage.CostUSD, s.Usage.Calls, s.Usage.TokensIn, s.Usage.TokensOut)
	fmt.Fprintf(tw, "folder\t%s\n", r.dir)
	fmt.Fprintf(tw, "status\t%s\n", bench.RunStatus(s))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "METRIC\tN\tSCORED\tDEFAULTED\tERRORS\tMEAN\tSTD\tMEDIAN\tMIN\tMAX\tP10\tCI95\tPASS RATE\tTHRESHOLD")
	for _, m := range s.Metrics {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d (%.1f%%)\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s..%s\t%s\t%g\n", m.Metric, m.N, m.Scored, m.Defaulted, 100*m.DefaultedRate, m.Errors,
			statText(m.Mean), statText(m.Std), statText(m.Median), statText(m.Min), statText(m.Max), statText(m.P10), statText(m.CILow), statText(m.CIHigh), statText(m.PassRate), m.Threshold)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Gates) > 0 {
		fmt.Fprintln(w, "\ngates:")
		for _, g := range s.Gates {
			verdict := "pass"
			if !g.Passed {
				verdict = "FAIL"
			}
			fmt.Fprintf(w, "  %s  %s (got %s)", verdict, g.Gate, statText(g.Got))
			if g.Reason != "" {
				fmt.Fprintf(w, ": %s", g.Reason)
			}
			fmt.Fprintln(w)
		}
	}
	writeAlerts(w, s.Alerts)
	return nil
}

func writeAlerts(w io.Writer, alerts []bench.QualityAlert) {
	if len(alerts) == 0 {
		return
	}
	fmt.Fprintln(w, "\nalerts:")
	for _, a := range alerts {
		fmt.Fprintf(w, "  %s %s %s: %s (%.4f, threshold %.4f)\n", a.Severity, a.Type, a.Metric, a.Message, a.CurrentValue, a.Threshold)
	}
}

// runDiff is what `assay runs diff` reports.
type runDiff struct {
	Baseline   string               `json:"baseline"`
	Current    string               `json:"current"`
	Comparison *bench.Comparison    `json:"comparison"`
	Alerts     []bench.QualityAlert `json:"alerts"`
	AB         []abRow              `json:"ab"`
}

// abRow is seed 002's A/B analysis of one metric with the paired test
// beside it.
type abRow struct {
	Metric   string               `json:"metric"`
	Analysis bench.ABTestAnalysis `json:"analysis"`
	Test     string               `json:"test,omitempty"`
	P        bench.Num            `json:"p_value"`
}

func showDiff(w io.Writer, a, b *loadedRun, d runDiff) error {
	fmt.Fprintf(w, "A (baseline, control):  %s  %s  %s\n", a.id, timeText(a.summary.Started), a.dir)
	fmt.Fprintf(w, "B (current, treatment): %s  %s  %s\n", b.id, timeText(b.summary.Started), b.dir)
	if a.cfg.DatasetSHA256 != b.cfg.DatasetSHA256 {
		fmt.Fprintf(w, "note: the runs judged different datasets (%s, %s): only the samples with the same id are paired\n", datasetText(a.cfg.Dataset, a.cfg.DatasetSHA256), datasetText(b.cfg.Dataset, b.cfg.DatasetSHA256))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "METRIC\tA MEAN\tB MEAN\tDELTA\tPAIRED\tP\tTEST")
	for _, m := range d.Comparison.Metrics {
		delta := statText(m.Delta)
		if !math.IsNaN(float64(m.Delta)) && m.Delta >= 0 {
			delta = "+" + delta
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", m.Metric, statText(m.BaselineMean), statText(m.CurrentMean), delta, m.Paired, statText(m.P), m.Test)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nA/B analysis (seed 002; control A, treatment B):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "METRIC\tCONTROL N\tTREATMENT N\tCONTROL MEAN\tTREATMENT MEAN\tIMPROVEMENT\tLATENCY A\tLATENCY B\tLATENCY CHANGE\tSEED RULE (N>=100 EACH)\tPAIRED TEST (P<0.05)")
	for _, r := range d.AB {
		an := r.Analysis
		rule := "not significant"
		if an.IsSignificant {
			rule = "significant"
		}
		test := "-"
		if p := float64(r.P); !math.IsNaN(p) {
			test = "not significant"
			if p < 0.05 {
				test = "significant"
			}
			test += fmt.Sprintf(" (p=%.4f)", p)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.4f\t%.4f\t%s\t%.0fms\t%.0fms\t%s\t%s\t%s\n", r.Metric, an.ControlSampleSize, an.TreatmentSampleSize,
			an.ControlAvgQuality, an.TreatmentAvgQuality, pctText(an.QualityImprovement), an.ControlAvgLatency, an.TreatmentAvgLatency, pctText(an.LatencyChange), rule, test)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range d.Comparison.Metrics {
		if len(m.Fell) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nfell most, %s:\n", m.Metric)
		for _, f := range m.Fell {
			fmt.Fprintf(w, "  %s  %.4f -> %.4f (%+.4f)\n", f.ID, f.Baseline, f.Current, f.Current-f.Baseline)
		}
	}
	writeAlerts(w, d.Alerts)
	return nil
}

func showTrend(w io.Writer, metric string, pts []bench.TrendPoint) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "STARTED\tRUN\t%s MEAN\tSCORED\tCHANGE\n", strings.ToUpper(metric))
	prev := math.NaN()
	for _, p := range pts {
		mean := float64(p.Mean)
		change := ""
		if !math.IsNaN(prev) && !math.IsNaN(mean) {
			change = fmt.Sprintf("%+.4f", mean-prev)
		}
		bar := ""
		if !math.IsNaN(mean) {
			bar = strings.Repeat("#", int(math.Round(20*mean)))
			prev = mean
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\n", timeText(p.Started), p.RunID, statText(p.Mean), p.Scored, p.N, change, bar)
	}
	return tw.Flush()
}
