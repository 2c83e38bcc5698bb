package main

import (
	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/metric"
)

type researchFlags struct {
	job    agent.ResearchJob
	cutoff int
	now    string
	llm    llmFlags
}

// researchLong is the help text of the command.
const researchLong = `Research a question: search the corpus (or the web), fetch and extract the
sources, summarize them and keep those the relevance gate grades 3 or more of
5 (--relevance-cutoff N, or the profile's gate.relevance_cutoff), write a report whose every claim is cited, score it with the research
profile, and repair it through seed 001's priority queue (at most two
iterations). The report and its score card go to stdout, progress to stderr.

Offline (the default: no --llm, no API key) the corpus is the embedded one,
the gate is lexical and the report extractive: every sentence is a source
sentence cited with itself as the quote.

Modes: quick (3 sources; a full report needs all 3), standard (7; full from
4, short from 2), deep (10; full from 5, short from 2). Fewer surviving
sources than a short report needs gives an explanation of what was searched
and dropped instead of a padded report.

A card whose model judge fell back to its neutral default is not a pass.
With --out, the folder is written as the run goes: trace.jsonl a line per
stage as it ends, report.md, card.json and sources.json after each
iteration (status "running" until the end), so a killed run leaves them.

Exit codes: 0 pass, 1 rejected or insufficient data, 2 usage, 3 failure: a
model that failed every call, a --max-cost budget that stopped calls, a
search backend that cannot be reached or fails the question's search, an
interrupted run, or an --out folder that could not be written.`

func newResearchCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := researchFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:   `research [flags] "question"`,
		Short: "Research a question end to end: search, gate, synthesize a cited report, score and repair it",
		Long:  researchLong,
		Example: `  assay research "How do heat pumps perform in cold climates?"
  assay research --mode deep --out run/ "What are the health effects of microplastics in drinking water?"
  assay research --corpus ~/notes --llm openai:gpt-4o-mini "..."
  assay research --search searxng:http://127.0.0.1:8888 --url https://example.org/page "..."`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runResearch(cmd, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.job.Mode, "mode", "standard", "quick, standard or deep")
	fl.StringVar(&f.job.Profile, "profile", "research", "research profile: the built-in one or a .yaml file of kind report (scoring and relevance gate)")
	fl.IntVar(&f.cutoff, "relevance-cutoff", 0, "least relevance grade (1-5) the gate keeps; 0 or anything outside 1-5 is refused (default: the profile's gate.relevance_cutoff, 3)")
	fl.StringVar(&f.job.Corpus, "corpus", "", "folder of Markdown, HTML and text documents with front matter (default: the embedded corpus)")
	fl.StringVar(&f.job.Search, "search", "local", "search backend: local, or searxng:URL")
	fl.StringArrayVar(&f.job.URLs, "url", nil, "add a source by URL (repeat the flag for more; a comma stays in the URL)")
	fl.StringVar(&f.job.Out, "out", "", "folder to write report.md, card.json, sources.json and trace.jsonl into as the run goes")
	fl.StringVar(&f.job.Format, "format", "md", "stdout format: md, json or yaml")
	fl.DurationVar(&f.job.Timeout, "timeout", 0, "stop the run after this long and write what was done (0: no limit)")
	fl.BoolVar(&f.job.AllowPrivate, "allow-private", false, "allow fetching from private and loopback addresses (never cloud metadata)")
	fl.StringVar(&f.now, "now", "", "the date the run takes as today: source recency is judged against it and the trace's times start from it (default: now)")
	fl.BoolVarP(&f.job.Quiet, "quiet", "q", false, "no progress on stderr")
	f.llm.register(fl)
	registerChecker(fl, &f.llm)
	return cmd
}

func runResearch(cmd *cobra.Command, f *researchFlags, question string) error {
	now, err := clock(f.now)
	if err != nil {
		return err
	}
	job := f.job
	job.Question, job.AsOf, job.Registry = question, now(), f.llm.metrics
	job.Judging, job.Env, job.Log = f.llm.judging(), f.llm.env, cmd.ErrOrStderr()
	if cmd.Flags().Changed("relevance-cutoff") {
		job.RelevanceCutoff = &f.cutoff
	}
	out, err := agent.RunResearch(cmd.Context(), job)
	if err != nil {
		return runError(err)
	}
	if err := out.Write(cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	return failuresErr(out.Failures)
}
