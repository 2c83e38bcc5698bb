package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/fixtures"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/llm/dryrun"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/web"
)

type researchFlags struct {
	mode         string
	corpus       string
	search       string
	urls         []string
	out          string
	format       string
	timeout      time.Duration
	allowPrivate bool
	now          string
	quiet        bool
	llm          llmFlags
}

func newResearchCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := researchFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:   `research [flags] "question"`,
		Short: "Research a question end to end: search, gate, synthesize a cited report, score and repair it",
		Long: `Research a question: search the corpus (or the web), fetch and extract the
sources, summarize them and keep those the relevance gate grades 3 or more of
5, write a report whose every claim is cited, score it with the research
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
search backend that cannot be reached, an interrupted run, or an --out
folder that could not be written.`,
		Example: `  assay research "How do heat pumps perform in cold climates?"
  assay research --mode deep --out run/ "What are the health effects of microplastics in drinking water?"
  assay research --corpus ~/notes --llm openai:gpt-4o-mini "..."
  assay research --search searxng:http://127.0.0.1:8888 --url https://example.org/page "..."`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runResearch(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "mode", "standard", "quick, standard or deep")
	fl.StringVar(&f.corpus, "corpus", "", "folder of Markdown, HTML and text documents with front matter (default: the embedded corpus)")
	fl.StringVar(&f.search, "search", "local", "search backend: local, or searxng:URL")
	fl.StringSliceVar(&f.urls, "url", nil, "add a source by URL (repeatable)")
	fl.StringVar(&f.out, "out", "", "folder to write report.md, card.json, sources.json and trace.jsonl into as the run goes")
	fl.StringVar(&f.format, "format", "md", "stdout format: md, json or yaml")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop the run after this long and write what was done (0: no limit)")
	fl.BoolVar(&f.allowPrivate, "allow-private", false, "allow fetching from private and loopback addresses (never cloud metadata)")
	fl.StringVar(&f.now, "now", "", "the date the run takes as today: source recency is judged against it and the trace's times start from it (default: now)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
	f.llm.register(fl)
	return cmd
}

func runResearch(cmd *cobra.Command, f researchFlags, question string) error {
	if err := checkFormat(f.format, "md", "json", "yaml"); err != nil {
		return err
	}
	mode, err := agent.ModeNamed(f.mode)
	if err != nil {
		return inputErr(fmt.Errorf("--mode: %w", err))
	}
	if strings.TrimSpace(question) == "" {
		return inputErr(fmt.Errorf("the question is empty"))
	}
	now, err := clock(f.now)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	searcher, closeSearch, err := f.searcher(ctx, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer closeSearch()
	client, closeCache, err := f.llm.client(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer closeCache()
	cfg := agent.Research{
		Searcher: searcher,
		Fetcher:  &web.Fetcher{Guard: web.Guard{AllowPrivate: f.allowPrivate}},
		URLs:     f.urls, Mode: mode,
		// One clock for the stages' times and for recency: it starts at
		// --now (default: now) and runs on, so stages take their time.
		Options: agent.Options{Model: client, Now: agent.ClockFrom(now())},
	}
	if f.llm.dryRun {
		// The real run, its model a recording stand-in.
		rec := dryrun.New(client, f.llm.metrics.DryRun, agent.StandIn)
		dry := cfg
		dry.Model = dryrun.Client(rec, client)
		if _, err := dry.Run(ctx, question); err != nil {
			return &exitError{code: exitInfra, err: err}
		}
		printPlan(cmd.OutOrStdout(), client, rec.Calls())
		return nil
	}
	if f.out != "" {
		// The folder is written as the run goes (agent.RunFolder), so a run
		// that is killed leaves its trace and its last iteration's files.
		folder, err := agent.OpenRunFolder(f.out)
		if err != nil {
			return inputErr(fmt.Errorf("--out %w", err))
		}
		cfg.Folder = folder
	}
	status := prog.NewStatus(cmd.ErrOrStderr(), prog.Config{Quiet: f.quiet, Live: prog.IsTerminal(cmd.ErrOrStderr())})
	cfg.OnEvent = func(e agent.Event) {
		if line, ended := stageLine(e); ended {
			status.End(line)
		} else {
			status.Begin(line)
		}
	}
	res, runErr := cfg.Run(ctx, question)
	status.Close()
	var outErr error
	if cfg.Folder != nil {
		outErr = cfg.Folder.Close()
	}
	if res == nil {
		return inputErr(runErr)
	}
	stderr := cmd.ErrOrStderr()
	// The run reaches stdout even when --out cannot be written.
	if err := printRun(cmd.OutOrStdout(), f.format, res); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	for _, s := range res.Sources {
		if s.FoundBy == "--url" && s.Dropped != "" {
			fmt.Fprintf(stderr, "assay: --url %s: dropped: %s\n", s.URL, s.Dropped)
		}
	}
	if !client.Offline() {
		f.llm.summary(stderr, client, res.Defaulted)
	}
	if runErr == nil {
		// A run an error stopped says so once, in the exit's message.
		fmt.Fprintf(stderr, "assay: %s: %s\n", res.Status, res.Reason)
	}
	return researchExit(runErr, outErr, f.out, client.BudgetStops(), f.llm, res)
}

// researchExit picks the exit of a research run that returned res: 3 for
// a run an error stopped, a budget that stopped calls, or a folder that
// could not be written; then --strict; then 1 for any status but pass.
func researchExit(runErr, outErr error, out string, budgetStops int, fl llmFlags, res *agent.Run) error {
	var me *agent.ModelError
	var ue *web.UnreachableError
	switch {
	case budgetStops > 0 && (runErr == nil || errors.As(runErr, &me)):
		// The cause of the defaults, rather than their count.
		return &exitError{code: exitInfra, err: fmt.Errorf("budget reached: %d call(s) not made under --max-cost $%s, and the steps they were for fell back to their defaults; raise --max-cost (or use the response cache) and run again",
			budgetStops, strconv.FormatFloat(fl.maxCost, 'f', -1, 64))}
	case errors.As(runErr, &me):
		return &exitError{code: exitInfra, err: fmt.Errorf("%w; check that the model server is up and its key is valid (--llm, OPENAI_BASE_URL, OPENAI_API_KEY), or run with --llm offline", runErr)}
	case errors.As(runErr, &ue):
		return &exitError{code: exitInfra, err: fmt.Errorf("%w; check that it is running at that address, or search the local corpus (--search local, --corpus DIR)", runErr)}
	case runErr != nil:
		return &exitError{code: exitInfra, err: fmt.Errorf("research stopped: %w", runErr)}
	case outErr != nil:
		return &exitError{code: exitInfra, err: fmt.Errorf("--out %w", outErr)}
	}
	if err := fl.strictErr(res.Defaulted); err != nil {
		return err
	}
	if res.Status != agent.StatusPass {
		return &exitError{code: exitFailed}
	}
	return nil
}

// searcher opens the search backend. Files of a --corpus folder that
// cannot be searched are named on w; a folder with nothing to search is an
// input error.
func (f researchFlags) searcher(ctx context.Context, w io.Writer) (agent.Searcher, func(), error) {
	if u, ok := strings.CutPrefix(f.search, "searxng:"); ok {
		if u == "" {
			return nil, nil, inputErr(fmt.Errorf("--search: searxng needs a URL, as in searxng:http://127.0.0.1:8888"))
		}
		return &web.SearxNG{BaseURL: u}, func() {}, nil
	}
	if f.search != "local" {
		return nil, nil, inputErr(fmt.Errorf("--search: must be local or searxng:URL, got %q", f.search))
	}
	dir, fsys := f.corpus, fs.FS(nil)
	if dir == "" {
		sub, err := fs.Sub(fixtures.Corpus, "corpus")
		if err != nil {
			return nil, nil, err
		}
		dir, fsys = "embedded:fixtures/corpus", sub
	}
	dbPath := ""
	if d := f.llm.env("ASSAY_CACHE_DIR"); d != "" {
		p, err := web.DefaultIndexPath(dir, fsys)
		if err != nil {
			return nil, nil, err
		}
		dbPath = filepath.Join(d, filepath.Base(p))
	}
	l, err := web.OpenLocal(ctx, dir, fsys, dbPath)
	if err != nil {
		return nil, nil, inputErr(fmt.Errorf("--corpus: %w", err))
	}
	if fsys == nil { // a folder of the user's, not the embedded corpus
		if err := corpusErr(dir, l.Stats()); err != nil {
			_ = l.Close()
			return nil, nil, inputErr(err)
		}
		if !f.quiet {
			for _, s := range firstFew(l.Stats().Skipped) {
				fmt.Fprintf(w, "assay: --corpus %s: skipped %s\n", dir, s)
			}
		}
	}
	return l, func() { _ = l.Close() }, nil
}

// corpusErr says why a corpus folder has nothing to search, or returns nil.
func corpusErr(dir string, st web.Stats) error {
	if st.Indexed+st.Unchanged > 0 {
		return nil
	}
	if st.Files == 0 {
		return fmt.Errorf("--corpus %s: no Markdown, HTML or text files (.md, .markdown, .txt, .html, .htm) to search", dir)
	}
	return fmt.Errorf("--corpus %s: none of its %d file(s) can be searched (each needs front matter with a url):\n  %s",
		dir, st.Files, strings.Join(firstFew(st.Skipped), "\n  "))
}

// firstFew keeps a long list of skipped files readable.
func firstFew(skipped []string) []string {
	const n = 10
	if len(skipped) <= n {
		return skipped
	}
	return append(slices.Clone(skipped[:n]), fmt.Sprintf("... and %d more", len(skipped)-n))
}

func printRun(w io.Writer, format string, res *agent.Run) error {
	v := agent.NewRunCard(res, true)
	switch format {
	case "json":
		return writeJSON(w, v)
	case "yaml":
		var m any
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		// Numbers stay json.Number, so integers such as durations in
		// nanoseconds are not printed as floats with an exponent.
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return err
		}
		return writeYAML(w, yamlNumbers(m))
	}
	if _, err := io.WriteString(w, res.Report); err != nil {
		return err
	}
	if cv, ok := agent.NewRunView(res); ok {
		fmt.Fprintf(w, "\n---\n\n")
		_, err := io.WriteString(w, cv.Markdown())
		if err != nil {
			return err
		}
	}
	how := res.Mode.Name + " mode"
	if res.Decision != "" { // an interrupted run has made none
		how = string(res.Decision) + ", " + how
	}
	fmt.Fprintf(w, "\nResearch status: **%s** (%s). %s\n", res.Status, how, res.Reason)
	for _, it := range res.Iterations[min(1, len(res.Iterations)):] {
		fmt.Fprintf(w, "- Iteration %d: fix %q (re-ran stages %v): %s -> %s %.1f/%.0f\n",
			it.Iteration, it.Fix.Dimension, it.Stages, it.Applied, it.Card.Status, it.Card.Total, it.Card.Max)
	}
	return nil
}

// yamlNumbers replaces the json.Numbers of a decoded JSON value with int64
// (when whole) or float64, which the YAML encoder writes as plain numbers.
func yamlNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = yamlNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = yamlNumbers(x)
		}
	}
	return v
}

// stageLine is a stage event as a status line, and whether the stage
// has ended (a stage that begins has no duration and no outputs yet).
func stageLine(e agent.Event) (line string, ended bool) {
	if e.Duration == 0 && len(e.Outputs) == 0 {
		return fmt.Sprintf("[%d] %s...", e.Iteration, e.Stage), false
	}
	line = strings.TrimSpace(fmt.Sprintf("[%d] %s %s", e.Iteration, e.Stage, summarize(e.Outputs)))
	if len(e.Errors) > 0 {
		line += fmt.Sprintf(" (%d error(s))", len(e.Errors))
	}
	return line, true
}

func summarize(m map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if f, ok := v.(float64); ok {
			// Four significant digits: 0.94, not 0.9400000000000001.
			v = strconv.FormatFloat(f, 'g', 4, 64)
		}
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	return strings.Join(parts, " ")
}
