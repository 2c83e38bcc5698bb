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
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/fixtures"
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

func newResearchCmd(env func(string) string) *cobra.Command {
	f := researchFlags{llm: llmFlags{env: env}}
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

Exit codes: 0 pass, 1 rejected or insufficient data, 2 usage, 3 failure.`,
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
	fl.StringVar(&f.out, "out", "", "folder to write report.md, card.json, sources.json and trace.jsonl")
	fl.StringVar(&f.format, "format", "md", "stdout format: md, json or yaml")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop the run after this long and write what was done (0: no limit)")
	fl.BoolVar(&f.allowPrivate, "allow-private", false, "allow fetching from private and loopback addresses (never cloud metadata)")
	fl.StringVar(&f.now, "now", "", "the date to judge source recency against (default: today)")
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
	opt := agent.Options{Now: now}
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
		URLs:     f.urls, Mode: mode, Model: client, Options: opt,
	}
	if f.llm.dryRun {
		calls, err := cfg.Plan(ctx, question, client.Counter().Count)
		if err != nil {
			return &exitError{code: exitInfra, err: err}
		}
		printPlan(cmd.OutOrStdout(), client, calls)
		return nil
	}
	if f.out != "" {
		if err := checkOutDir(f.out); err != nil {
			return inputErr(err)
		}
	}
	progress := newProgress(cmd.ErrOrStderr(), f.quiet)
	cfg.OnEvent = progress.event
	res, runErr := cfg.Run(ctx, question)
	progress.done()
	if res == nil {
		return inputErr(runErr)
	}
	// The run reaches stdout even when --out cannot be written.
	if err := printRun(cmd.OutOrStdout(), f.format, res); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	if f.out != "" {
		if err := writeRun(f.out, res); err != nil {
			return &exitError{code: exitInfra, err: fmt.Errorf("--out %s: %w", f.out, err)}
		}
	}
	if client.Name() != "offline" {
		f.llm.summary(cmd.ErrOrStderr(), client, res.Defaulted)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "assay: %s: %s\n", res.Status, res.Reason)
	if runErr != nil {
		return &exitError{code: exitInfra, err: fmt.Errorf("research stopped: %w", runErr)}
	}
	if err := f.llm.strictErr(res.Defaulted); err != nil {
		return err
	}
	if res.Status != eval.StatusPass {
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

// runView is the JSON and YAML form of a run on stdout and in card.json.
type runView struct {
	*agent.Run
	Report string     `json:"report,omitempty" yaml:"report,omitempty"`
	Card   *eval.Card `json:"final_card,omitempty" yaml:"final_card,omitempty"`
}

func (v runView) final() *eval.Card {
	if n := len(v.Iterations); n > 0 {
		c := v.Iterations[n-1].Card
		return &c
	}
	return nil
}

func printRun(w io.Writer, format string, res *agent.Run) error {
	v := runView{Run: res, Report: res.Report}
	v.Card = v.final()
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
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
		m = yamlNumbers(m)
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(m); err != nil {
			return err
		}
		return enc.Close()
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
		how = res.Decision + ", " + how
	}
	fmt.Fprintf(w, "\nResearch status: **%s** (%s). %s\n", res.Status, how, res.Reason)
	for _, it := range res.Iterations[min(1, len(res.Iterations)):] {
		fmt.Fprintf(w, "- Iteration %d: fix %q (re-ran stages %v): %s -> %s %.1f/%.0f\n",
			it.Iteration, it.Fix.Dimension, it.Stages, it.Applied, it.Card.Status, it.Card.Total, it.Card.Max)
	}
	return nil
}

// checkOutDir creates dir if needed and checks that files can be created
// in it, so that a run is not wasted on a folder it cannot write.
func checkOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	probe, err := os.CreateTemp(dir, ".assay-probe-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the probe's random name would only confuse
		}
		return fmt.Errorf("--out %s: not writable: %w", dir, err)
	}
	name := probe.Name()
	return errors.Join(probe.Close(), os.Remove(name))
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

// writeRun writes the run's files into dir: report.md, card.json,
// sources.json and trace.jsonl. Each is written to a temporary file first
// and renamed into place only once all four are written, so a failure
// leaves the files of an earlier run whole.
func writeRun(dir string, res *agent.Run) error {
	v := runView{Run: res}
	v.Card = v.final()
	card, err := indentJSON(v)
	if err != nil {
		return err
	}
	sources, err := indentJSON(res.Sources)
	if err != nil {
		return err
	}
	var trace bytes.Buffer
	enc := json.NewEncoder(&trace)
	enc.SetEscapeHTML(false)
	for _, e := range res.Trace {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	files := []struct {
		name string
		data []byte
	}{
		{"report.md", []byte(res.Report)},
		{"card.json", card},
		{"sources.json", sources},
		{"trace.jsonl", trace.Bytes()},
	}
	var temps []string
	defer func() {
		for _, t := range temps {
			if t != "" {
				_ = os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		target := filepath.Join(dir, f.name)
		if st, err := os.Lstat(target); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("%s: exists and is not a regular file", target)
		}
		tmp, err := writeTemp(dir, f.name, f.data)
		if err != nil {
			return err
		}
		temps = append(temps, tmp)
	}
	for i, f := range files {
		if err := os.Rename(temps[i], filepath.Join(dir, f.name)); err != nil {
			return err
		}
		temps[i] = "" // renamed: nothing to remove
	}
	return nil
}

// writeTemp writes data to a new temporary file in dir named after name
// and returns its path.
func writeTemp(dir, name string, data []byte) (string, error) {
	fh, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return "", err
	}
	_, werr := fh.Write(data)
	if err := errors.Join(werr, fh.Chmod(0o644), fh.Close()); err != nil {
		_ = os.Remove(fh.Name())
		return "", fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	return fh.Name(), nil
}

func indentJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// progress prints stages on stderr: one live line on a terminal, plain
// lines otherwise.
type progress struct {
	w     io.Writer
	live  bool
	quiet bool
}

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, quiet: quiet}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.live = true
		}
	}
	return p
}

func (p *progress) event(e agent.Event) {
	if p.quiet {
		return
	}
	var line string
	if e.Duration == 0 && len(e.Outputs) == 0 {
		if !p.live {
			return
		}
		line = fmt.Sprintf("[%d] %s...", e.Iteration, e.Stage)
	} else {
		line = strings.TrimSpace(fmt.Sprintf("[%d] %s %s", e.Iteration, e.Stage, summarize(e.Outputs)))
		if len(e.Errors) > 0 {
			line += fmt.Sprintf(" (%d error(s))", len(e.Errors))
		}
	}
	if p.live {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) done() {
	if p.live && !p.quiet {
		fmt.Fprint(p.w, "\r\033[K")
	}
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
