package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
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
	return cmd
}

func runScore(cmd *cobra.Command, f scoreFlags, file string) error {
	if err := checkFormat(f.format, "yaml", "json", "md", "text"); err != nil {
		return err
	}
	if dp, ok, err := dailyProfile(f.profile); err != nil {
		return inputErr(err)
	} else if ok {
		return runDaily(cmd, f, dp, file)
	}
	if f.truth != "" || f.telemetry != "" {
		return inputErr(fmt.Errorf("--truth and --telemetry: only the daily profile reads them; add --profile daily"))
	}
	p, err := agent.Profiles{Metrics: f.llm.metrics}.Load(f.profile)
	if err != nil {
		return inputErr(err)
	}
	now, err := clock(f.now)
	if err != nil {
		return err
	}
	opt := agent.Options{Now: now}
	if f.tiers != "" {
		t, err := loadTiers(f.tiers)
		if err != nil {
			return inputErr(err)
		}
		opt.Tiers = t
	}
	data, err := readInput(file, cmd.InOrStdin(), maxInput)
	if err != nil {
		return inputErr(err)
	}
	name := displayName(file)
	if !cmd.Flags().Changed("profile") {
		profile, err := detectProfile(name, data)
		if err != nil {
			return inputErr(err)
		}
		if profile != f.profile {
			if p, err = (agent.Profiles{Metrics: f.llm.metrics}).Load(profile); err != nil {
				return inputErr(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "assay: %s is a retrieval sample (a JSON object with query and chunks): scoring it with --profile %s\n", name, profile)
		}
	}

	var sample eval.Sample
	switch p.Kind {
	case agent.KindContext:
		if sample, err = eval.DecodeContextSample(name, data); err != nil {
			return inputErr(err)
		}
	default:
		sample = eval.Sample{Query: f.query, Answer: string(data)}
		if f.sources != "" {
			sd, err := readInput(f.sources, nil, maxInput)
			if err != nil {
				return inputErr(err)
			}
			if sample.Sources, err = eval.DecodeSources(f.sources, sd); err != nil {
				return inputErr(err)
			}
		}
	}

	client, closeCache, err := f.llm.client(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer closeCache()
	if f.llm.dryRun {
		metrics, scorers := modelScorers(p, opt)
		return dryRun(cmd.Context(), cmd.OutOrStdout(), f.llm.metrics, client, metrics, scorers, 1, bench.All([]bench.Record{{ID: name, Sample: sample}}))
	}
	opt.Model = client
	card, err := agent.Score(cmd.Context(), p, sample, opt)
	if err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	if err := render(cmd.OutOrStdout(), f.format, p, card, sample); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	if !client.Offline() {
		f.llm.summary(cmd.ErrOrStderr(), client, card.Defaulted)
	}
	if err := f.llm.budgetErr(client); err != nil {
		return err
	}
	if err := f.llm.strictErr(card.Defaulted); err != nil {
		return err
	}
	if card.Status != eval.StatusPass {
		return &exitError{code: exitFailed}
	}
	return nil
}

// detectProfile picks the profile for input scored without --profile: a
// JSON object with the fields of a retrieval sample (query and chunks) is
// one, scored with the context profile; other JSON is not a report, and an
// input error says what score takes; anything else is a report.
func detectProfile(name string, data []byte) (string, error) {
	text := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")))
	if len(text) == 0 || (text[0] != '{' && text[0] != '[') || !json.Valid(text) {
		return "research", nil // Markdown, which may well start with "[" (a link)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(text, &fields) == nil {
		_, q := fields["query"]
		_, c := fields["chunks"]
		if q && c {
			return "context", nil
		}
	}
	return "", &eval.InputError{File: name, Msg: "is JSON, not a Markdown report: score takes a report, or a retrieval sample " +
		`({"query": ..., "chunks": [...]}) with --profile context; to judge RAG answers in a dataset use assay judge`}
}

// modelScorers are the profile's metrics whose scorers call a model when
// one is set (metric.Entry.CallsModel), and the builder of those scorers
// in the same order.
func modelScorers(p *agent.Profile, opt agent.Options) ([]string, func(judges.Model) []eval.Scorer) {
	var metrics []string
	var idx []int
	for i, s := range p.Specs {
		if m, ok := p.Metrics().Lookup(s.Metric); ok && m.CallsModel() {
			metrics, idx = append(metrics, s.Metric), append(idx, i)
		}
	}
	return metrics, func(m judges.Model) []eval.Scorer {
		opt.Model = m
		all := p.Scorers(opt)
		out := make([]eval.Scorer, len(idx))
		for j, i := range idx {
			out[j] = all[i]
		}
		return out
	}
}

func render(w io.Writer, format string, p *agent.Profile, card eval.Card, sample eval.Sample) error {
	var v any
	var md string
	if p.Kind == agent.KindContext {
		cv := agent.NewContextView(p, card, sample)
		v, md = cv, cv.Markdown()
	} else {
		rv := agent.NewResearchView(p, card)
		v, md = rv, rv.Markdown()
		if format == "yaml" {
			v = rv.YAML()
		}
	}
	switch format {
	case "text":
		_, err := io.WriteString(w, textCard(p, card, sample))
		return err
	case "json":
		return writeJSON(w, v)
	case "md":
		_, err := io.WriteString(w, md)
		return err
	default:
		return writeYAML(w, v)
	}
}

// maxInput is the largest report, sample or side file read, so a wrong
// file cannot exhaust memory (datasets: bench.MaxDataset).
const maxInput = 10 << 20

// readInput reads a file ("-" is stdin) and checks that it is non-empty
// UTF-8 text of at most limit bytes.
func readInput(file string, stdin io.Reader, limit int) ([]byte, error) {
	name := displayName(file)
	var r io.Reader
	if file == "-" {
		if stdin == nil {
			return nil, &eval.InputError{File: name, Msg: "standard input is already used"}
		}
		r = stdin
	} else {
		fh, err := eval.OpenFile(file)
		if err != nil {
			return nil, err
		}
		defer func() { _ = fh.Close() }() // read only
		if st, err := fh.Stat(); err == nil && st.IsDir() {
			return nil, &eval.InputError{File: name, Msg: "is a directory, not a file"}
		}
		r = fh
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, &eval.InputError{File: name, Msg: "cannot read: " + err.Error()}
	}
	if len(data) > limit {
		return nil, &eval.InputError{File: name, Msg: fmt.Sprintf("larger than the %d MB limit", limit>>20)}
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, &eval.InputError{File: name, Msg: "empty input: nothing to score"}
	}
	if err := eval.CheckText(name, data); err != nil {
		return nil, err
	}
	return data, nil
}

func displayName(file string) string {
	if file == "-" {
		return "<stdin>"
	}
	return file
}

// checkFormat accepts --format when it is one of allowed.
func checkFormat(got string, allowed ...string) error {
	if slices.Contains(allowed, got) {
		return nil
	}
	list := strings.Join(allowed[:len(allowed)-1], ", ") + " or " + allowed[len(allowed)-1]
	return inputErr(fmt.Errorf("--format: must be %s, got %q", list, got))
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

func loadTiers(file string) (*heuristics.Tiers, error) {
	data, err := readInput(file, nil, maxInput)
	if err != nil {
		return nil, err
	}
	t, err := heuristics.LoadTiers(file, strings.NewReader(string(data)))
	if err != nil {
		return nil, err
	}
	return heuristics.DefaultTiers().Merge(t), nil
}

// textCard is a card as plain text, in the manner of judge --format text:
// the status and total on the first line, then each score with its reason,
// then the fixes.
func textCard(p *agent.Profile, card eval.Card, sample eval.Sample) string {
	var b strings.Builder
	if p.Kind == agent.KindContext {
		v := agent.NewContextView(p, card, sample)
		fmt.Fprintf(&b, "%s context %.3f, CRAG %s: %s\n  %s\n", strings.ToUpper(v.Status), v.Overall, v.CRAG.Classification, v.CRAG.Action.Type, v.Reason)
		for _, r := range []struct {
			name string
			v    float64
		}{{"retrieval confidence", v.RetrievalConfidence}, {"context sufficiency", v.ContextSufficiency},
			{"diversity", v.DiversityScore}, {"estimated faithfulness", v.EstimatedFaithfulness}} {
			fmt.Fprintf(&b, "  - %s %.3f\n", r.name, r.v)
		}
		if v.Warning != "" {
			fmt.Fprintf(&b, "  - warning: %s\n", v.Warning)
		}
		for _, q := range v.CRAG.Action.SubQueries {
			fmt.Fprintf(&b, "  - sub-query: %s\n", q)
		}
		if q := v.CRAG.Action.SearchQuery; q != "" {
			fmt.Fprintf(&b, "  - search: %s\n", q)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s %s/%s (passes at %s) [%s]\n  %s\n", strings.ToUpper(card.Status), num(card.Total), num(card.Max),
		num(card.PassThreshold), card.Judge, card.Reason)
	for _, sc := range card.Scores {
		flag := ""
		if sc.Defaulted {
			flag = " DEFAULTED"
		}
		fmt.Fprintf(&b, "  - %s %s/%s%s: %s\n", sc.Metric, num(sc.Points), num(sc.Max), flag, sc.Reason)
	}
	for _, fx := range card.Fixes {
		fmt.Fprintf(&b, "  fix %d. %s: %s\n", fx.Priority, fx.Dimension, fx.Action)
	}
	return b.String()
}

// num prints a point value as the cards do: 4.9, 5, 0.25.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }
