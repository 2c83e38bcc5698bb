package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/runstore"
)

func newRunsCmd(env func(string) string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List, show, compare, trend and export the recorded evaluation runs",
		Long: `Every assay bench run is recorded in the run store, an SQLite file in the
user data directory ($XDG_DATA_HOME/assay/runs.db, ~/.local/share/assay on
Linux; $ASSAY_DATA_DIR/runs.db when that is set). A RUN is a run id, a
unique beginning of one, or a run folder (assay bench --out DIR).

--format text (the default) and md print tables for people, json and
yaml the same data with the same keys; list and trend take jsonl too,
a record a line. A row of the store that no longer reads back is named
under list's table, and in its json, yaml and jsonl follows the runs as
{"id": ..., "unreadable": "what is wrong"}, with no other key. An unknown
run exits 2.`,
	}
	runs := runstore.Runs{Env: env}
	cmd.AddCommand(newRunsListCmd(runs), newRunsShowCmd(runs), newRunsDiffCmd(runs), newRunsTrendCmd(runs), newRunsExportCmd(runs))
	return cmd
}

// runsFormat registers --format: the formats of one document
// (runstore.DocumentFormats()), and jsonl too when list.
func runsFormat(cmd *cobra.Command, format *string, list bool) {
	formats := "text, md, json or yaml"
	if list {
		formats = "text, md, json, yaml or jsonl (a record a line)"
	}
	cmd.Flags().StringVar(format, "format", report.OutputText, "output format: "+formats)
}

func newRunsListCmd(runs runstore.Runs) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the recorded runs, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := report.CheckOutputFormat(format, report.OutputFormats()...); err != nil {
				return err
			}
			l, err := runs.List(cmd.Context())
			return writeRuns(cmd.OutOrStdout(), l, format, err)
		},
	}
	runsFormat(cmd, &format, true)
	return cmd
}

func newRunsShowCmd(runs runstore.Runs) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a run's summary: a table, or summary.json with --format json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckOutputFormat(format, runstore.DocumentFormats()...); err != nil {
				return err
			}
			v, err := runs.Show(cmd.Context(), args[0])
			return writeRuns(cmd.OutOrStdout(), v, format, err)
		},
	}
	runsFormat(cmd, &format, false)
	return cmd
}

func newRunsDiffCmd(runs runstore.Runs) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare run B with run A: means, paired tests, flips, seed 002's alerts and A/B analysis",
		Long: `Compare run B (the current run, the treatment) with run A (the baseline,
the control), metric by metric: each mean and the delta; over the samples
both runs scored, the Wilcoxon signed-rank test, the mean difference with
its paired bootstrap 95% interval, the samples whose pass/fail flipped
each way with McNemar's exact test on them (its mid-p beside it), and the
samples that moved most; seed 002's quality alerts (a degradation
warning below 0.85 x the baseline mean, a critical alert below 0.4) and
its A/B analysis with its "n >= 100 each" rule beside the real tests.
A and B are run ids or run folders. Runs with samples the other lacks
(other datasets) are compared on the samples both have, and the diff
says how many each has alone. When B was judged by another model or
other prompt versions than A, the diff says so (judged_otherwise in
JSON): the changes measure the judge too.

--format md writes a short summary for a pull request or
$GITHUB_STEP_SUMMARY (a table, the alerts, the flips, lists capped);
--format json everything, flips listed up to 100 each way.

Exits 1 when an alert is raised, as assay bench --baseline does.`,
		Example: `  assay runs diff 20261101-0900-1a2b 20261103-0900-3c4d
  assay runs diff assay-runs/old assay-runs/new
  assay runs diff --format md main-run pr-run >> "$GITHUB_STEP_SUMMARY"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckOutputFormat(format, runstore.DocumentFormats()...); err != nil {
				return err
			}
			d, err := runs.Diff(cmd.Context(), args[0], args[1])
			if err := writeRuns(cmd.OutOrStdout(), d, format, err); err != nil {
				return err
			}
			if len(d.Alerts) > 0 {
				return &exitError{code: exitFailed}
			}
			return nil
		},
	}
	runsFormat(cmd, &format, false)
	return cmd
}

func newRunsTrendCmd(runs runstore.Runs) *cobra.Command {
	var ds, format string
	cmd := &cobra.Command{
		Use:   "trend METRIC",
		Short: "Show a metric's mean over time for one dataset",
		Long: `Show the mean of METRIC in every recorded run of one dataset, oldest first:
seed 003's "track scores over time". --dataset names the dataset by its
file (hashed) or its sha256; without it, the dataset of the last run that
judged METRIC. A run judged by another model or other prompt versions than
the run before it is marked, and said how (judged_otherwise in JSON).`,
		Example: `  assay runs trend faithfulness --dataset data/rag.jsonl`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckOutputFormat(format, report.OutputFormats()...); err != nil {
				return err
			}
			t, err := runs.Trend(cmd.Context(), args[0], ds)
			return writeRuns(cmd.OutOrStdout(), t, format, err)
		},
	}
	cmd.Flags().StringVar(&ds, "dataset", "", "the dataset: its file, or its sha256 (default: the last run's that judged METRIC)")
	runsFormat(cmd, &format, true)
	return cmd
}

func newRunsExportCmd(runs runstore.Runs) *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:   "export RUN",
		Short: "Export a run as a table: one row per sample and metric (csv, jsonl or parquet)",
		Long: `Export RUN as a table for pandas, DuckDB or a spreadsheet: one row per
sample and metric, in the dataset's order: the sample's id, question,
answer, contexts, reference and metadata (a column per key,
metadata.KEY), then metric, value, points, max, pass, defaulted,
skipped, error, reason, model, latency_ms and cost_usd.

--format csv (the default) joins a sample's contexts with a blank line;
jsonl and parquet keep them a list. Cells are written exactly as the run
has them, for pandas and DuckDB: no quote is put before a cell beginning
with =, +, - or @, so a spreadsheet may run such a cell as a formula;
import the file into one as text. The samples' fields are read again
from the run's dataset (from the copy of standard input its folder
keeps, input.jsonl, when it read that); when it no longer reads, they
are left empty and a note says why on stderr. -o FILE writes the file whole or not at all
(default: standard output).`,
		Example: `  assay runs export 20261103-0900-3c4d -o run.csv
  assay runs export assay-runs/new --format parquet -o run.parquet
  duckdb -c "SELECT metric, avg(value) FROM 'run.parquet' GROUP BY metric"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			x, err := runs.ExportFile(cmd.Context(), args[0], format, out, cmd.OutOrStdout())
			if err != nil {
				return runError(err)
			}
			if x.Note != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "assay: %s\n", x.Note)
			}
			if out != "" && out != "-" {
				fmt.Fprintf(cmd.ErrOrStderr(), "assay: %d row(s) of run %s in %s\n", x.Rows, termtext.Visible(x.Run), termtext.Visible(out))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", runstore.ExportCSV, "csv, jsonl or parquet")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to FILE (default: standard output)")
	return cmd
}

// writeRuns writes what a runs subcommand found, or maps the error of
// finding it to its exit code (runError).
func writeRuns(w io.Writer, v interface{ Write(io.Writer, string) error }, format string, err error) error {
	if err != nil {
		return runError(err)
	}
	if err := v.Write(w, format); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	return nil
}
