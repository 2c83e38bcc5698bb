package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/report"
)

type scoreFlags struct {
	profile string
	query   string
	sources string
	tiers   string
	format  string
	now     string
	// truth and telemetry are the daily profile's TRUTH.json and RUN.json.
	truth     string
	telemetry string
	llm       llmFlags
}

func newScoreCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := scoreFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:   "score [flags] FILE",
		Short: "Score a research report (Markdown) or a retrieval sample (JSON)",
		Long: `Score a research report with the research profile (the default), or a
retrieval sample with --profile context. FILE "-" reads standard input.
Without --profile, a JSON object with query and chunks is taken for a
retrieval sample and scored with the context profile; other JSON is refused.
A dataset (JSON Lines, a JSON array, CSV or TSV of samples) is refused with the
command that judges it (assay judge, or assay bench --profile).

The research card (seed 000) has grounding 5, source quality 2, diversity 1,
completeness 1 and clarity 1 points; grounding below 5/5 fails the report,
a total of 8 or more passes it, anything else should iterate.

With --profile daily (seed 003), FILE is a daily report judged against
--truth TRUTH.json (and --telemetry RUN.json, or an assay research
card.json, for QoS): faithfulness, completeness, reasoning quality,
compliance and QoS, overall_quality and the publish/review gate (exit 0
on publish, 1 on review). A copy of the built-in profile with kind: daily
can be given as --profile FILE.yaml.`,
		Example: `  assay score fixtures/reports/pass.md --query "How does HTTP/3 differ from HTTP/2?"
  assay score --format json fixtures/reports/iterate.md
  assay score --profile context --format json fixtures/context/good.json
  assay score --profile daily --truth fixtures/daily/truth.json --telemetry fixtures/daily/run.json --format text fixtures/daily/th-faithful.md`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScore(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.profile, "profile", "research", "built-in profile (research, context, daily) or a profile YAML file")
	fl.StringVar(&f.query, "query", "", "the research query the report answers (default: the report's title)")
	fl.StringVar(&f.sources, "sources", "", "JSON file of sources with credibility scores or metadata (seed 000's validated_citations)")
	fl.StringVar(&f.tiers, "tiers", "", "YAML file of credibility tiers that extends or overrides the built-in ones")
	fl.StringVar(&f.format, "format", "yaml", "output format: yaml, json, md or text")
	fl.StringVar(&f.truth, "truth", "", "daily profile: TRUTH.json, the data the report was written from (values, percentiles, news)")
	fl.StringVar(&f.telemetry, "telemetry", "", "daily profile: RUN.json, the producing run's timings, calls, tokens, cost and errors (or its card.json), for QoS")
	fl.StringVar(&f.now, "now", "", "the date to judge source recency against (YYYY-MM-DD or RFC 3339; default: today)")
	f.llm.register(fl)
	registerChecker(fl, &f.llm)
	return cmd
}

func runScore(cmd *cobra.Command, f scoreFlags, file string) error {
	if err := checkFormat(f.format, "yaml", "json", "md", "text"); err != nil {
		return err
	}
	now, err := clock(f.now)
	if err != nil {
		return err
	}
	job := agent.ScoreJob{File: file, Stdin: cmd.InOrStdin(), Query: f.query, Sources: f.sources, Tiers: f.tiers,
		Truth: f.truth, Telemetry: f.telemetry, Now: now, Registry: f.llm.metrics, Judging: f.llm.judging(), Env: f.llm.env, Log: cmd.ErrOrStderr()}
	if cmd.Flags().Changed("profile") {
		job.Profile = f.profile
	}
	out, err := agent.ScoreFile(cmd.Context(), job)
	if err != nil {
		return runError(err)
	}
	if err := out.Write(cmd.OutOrStdout(), f.format); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	if out.Report != nil {
		out.Report.Write(cmd.ErrOrStderr())
	}
	return failuresErr(out.Failures)
}

// checkFormat accepts --format when it is one of allowed, names of the
// one set of output formats (report.OutputFormats).
func checkFormat(got string, allowed ...string) error {
	return report.CheckOutputFormat(got, allowed...)
}

// clock is the clock for recency rules: today, or the date --now gives.
func clock(now string) (func() time.Time, error) {
	if now == "" {
		return time.Now, nil
	}
	t, err := parseDate(now)
	if err != nil {
		return nil, inputErr(fmt.Errorf("--now: %w", err))
	}
	return heuristics.FixedClock(t), nil
}

func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("want YYYY-MM-DD or RFC 3339, got %q", s)
}
