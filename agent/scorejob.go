package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/internal/encode"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
)

// ScoreJob is `assay score`: one report scored with a profile into its
// card: a research report (Markdown), a retrieval sample (JSON) with the
// context profile, or a daily report against its ground truth (seed 003).
type ScoreJob struct {
	// File is the report's path; "-" reads Stdin.
	File  string
	Stdin io.Reader
	// Profile is a built-in profile (research, context, daily) or a
	// profile YAML file; empty picks it from the input: a JSON object with
	// query and chunks is a retrieval sample (context), other text a
	// research report. A profile that scores a Markdown report refuses a
	// dataset (dataset.Sniff), naming the command that judges it.
	Profile string
	// Query is the research query the report answers (default: its
	// title); Sources a JSON file of its sources; Tiers a YAML file of
	// credibility tiers over the built-in ones.
	Query, Sources, Tiers string
	// Truth and Telemetry are the daily profile's TRUTH.json and RUN.json.
	Truth, Telemetry string
	// Now is the clock of recency rules; nil is time.Now.
	Now func() time.Time
	// Registry holds the metrics profiles name; nil is the built-in ones.
	Registry *metric.Registry
	// Judging is the model client and the rules for its failures.
	Judging judging.Config
	// Env reads the environment; Log receives notices.
	Env func(string) string
	Log io.Writer
}

// ScoreOutcome is a scored report: its card (or a daily report's result),
// what a model did, and why it did not pass. A dry run has Plan only.
type ScoreOutcome struct {
	// Profile and Sample are the card's profile and what it judged; nil
	// Profile for a daily report, whose result is Daily.
	Profile *Profile
	Sample  eval.Sample
	Card    eval.Card
	Daily   *daily.Result
	// Report is what the model did; nil when no model judged.
	Report   *judging.Report
	Failures judging.Failures
	Plan     *judging.Plan
}

// Write prints the card (or the daily result, or a dry run's plan) in
// format: yaml, json, md or text.
func (o *ScoreOutcome) Write(w io.Writer, format string) error {
	switch {
	case o.Plan != nil:
		o.Plan.Write(w)
		return nil
	case o.Daily != nil:
		return renderDaily(w, format, *o.Daily)
	}
	return render(w, format, o.Profile, o.Card, o.Sample)
}

// ScoreFile runs job. The error is an *eval.InputError for bad input or
// settings, or another error when scoring could not go on; a card that
// did not pass is an outcome with a judging.FailVerdict failure.
func ScoreFile(ctx context.Context, job ScoreJob) (*ScoreOutcome, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	if err := job.Judging.Check(); err != nil {
		return nil, err
	}
	p, err := scoreProfile(job, job.Truth != "", job.Telemetry != "")
	if err != nil {
		return nil, err
	}
	in, err := readScoreInput(job)
	if err != nil {
		return nil, err
	}
	return scoreBytes(ctx, job, p, in)
}

// scoreProfile loads the job's profile and checks that the side files
// given are those it reads.
func scoreProfile(job ScoreJob, truth, telemetry bool) (*Profile, error) {
	p, err := Profiles{Metrics: job.Registry}.Load(cmpOr(job.Profile, "research"))
	if err != nil {
		return nil, inputErr(err)
	}
	switch {
	case p.Kind == KindDaily && !truth:
		return nil, &eval.InputError{Field: "--truth", Msg: "missing: the daily profile judges a report against the data it was written from; give --truth TRUTH.json"}
	case p.Kind != KindDaily && (truth || telemetry):
		return nil, &eval.InputError{Msg: "--truth and --telemetry: only the daily profile reads them; add --profile daily"}
	}
	return p, nil
}

// ScoreInput is what ScoreBytes scores: the report (or retrieval sample)
// and the side files it is scored with, as bytes, each with the name
// errors call it by. A side file left nil is not given.
type ScoreInput struct {
	Name, SourcesName, TruthName, TelemetryName string
	Data, Sources, Truth, Telemetry             []byte
}

// readScoreInput reads the files job names.
func readScoreInput(job ScoreJob) (ScoreInput, error) {
	in := ScoreInput{Name: DisplayName(job.File), SourcesName: job.Sources, TruthName: job.Truth, TelemetryName: job.Telemetry}
	var err error
	if in.Data, err = ReadInput(job.File, job.Stdin, MaxInput); err != nil {
		return in, err
	}
	for _, f := range []struct {
		flag, file string
		data       *[]byte
	}{{"--sources", job.Sources, &in.Sources}, {"--truth", job.Truth, &in.Truth}, {"--telemetry", job.Telemetry, &in.Telemetry}} {
		if f.file == "" {
			continue
		}
		if *f.data, err = readSideFile(f.flag, f.file); err != nil {
			return in, err
		}
	}
	return in, nil
}

// readSideFile reads the file a flag names beside the report: a path,
// never standard input, which "-" would stand for and which only the
// report is read from.
func readSideFile(flag, file string) ([]byte, error) {
	if file == "-" {
		return nil, eval.FlagError(flag, "- (standard input) is not read here, only the report is: give the file's path (./- for a file named -)")
	}
	return ReadInput(file, nil, MaxInput)
}

// ScoreBytes is ScoreFile of input held in memory (assay serve's
// /v1/score): job's File, Stdin, Sources, Truth and Telemetry are not
// read, in's bytes are scored in their place. Data must be UTF-8 text,
// not blank (a leading byte-order mark is dropped), as ReadInput checks a
// file's: other data is an *eval.InputError naming in.Name.
func ScoreBytes(ctx context.Context, job ScoreJob, in ScoreInput) (*ScoreOutcome, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	p, err := scoreProfile(job, in.Truth != nil, in.Telemetry != nil)
	if err != nil {
		return nil, err
	}
	if in.Data, err = checkInput(in.Name, in.Data); err != nil {
		return nil, err
	}
	return scoreBytes(ctx, job, p, in)
}

// scoreBytes is ScoreBytes with the profile loaded and checked.
func scoreBytes(ctx context.Context, job ScoreJob, p *Profile, in ScoreInput) (*ScoreOutcome, error) {
	job.Env, job.Log = judging.Env(job.Env), judging.Writer(job.Log)
	if job.Now == nil {
		job.Now = time.Now
	}
	if p.Kind != KindContext {
		if err := refuseDataset(job, p, in); err != nil {
			return nil, err
		}
	}
	if p.Kind == KindDaily {
		if err := job.Judging.CheckChecker(daily.Metrics()); err != nil {
			return nil, err
		}
		return scoreDaily(ctx, job, p.Daily, in)
	}
	profiles := Profiles{Metrics: job.Registry}
	name := cmpOr(job.Profile, "research")
	var err error
	opt := Options{Now: job.Now}
	if job.Tiers != "" {
		if opt.Tiers, err = loadTiers(job.Tiers); err != nil {
			return nil, inputErr(err)
		}
	}
	data, file := in.Data, in.Name
	if job.Profile == "" {
		detected, err := detectProfile(file, data)
		if err != nil {
			return nil, err
		}
		if detected != name {
			if p, err = profiles.Load(detected); err != nil {
				return nil, inputErr(err)
			}
			fmt.Fprintf(job.Log, "assay: %s is a retrieval sample (a JSON object with query and chunks): scoring it with --profile %s\n", file, detected)
		}
	}
	out := &ScoreOutcome{Profile: p}
	if out.Sample, err = sampleOf(p, job, in); err != nil {
		return nil, err
	}
	if err := job.Judging.CheckChecker(p.Names()); err != nil {
		return nil, err
	}
	s, err := job.Judging.Open(job.Log, job.Env)
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.Close() }() // idle connections and the cache
	// The session's registry: faithfulness takes the fact checker, when there is one.
	p = p.WithMetrics(s.Registry(p.Metrics()))
	out.Profile = p
	if err := p.Metrics().CheckModel(p.Names(), s.Model()); err != nil {
		return nil, err
	}
	if err := p.CheckSample(out.Sample); err != nil {
		return nil, &eval.InputError{File: file, Msg: err.Error(), Err: err}
	}
	if job.Judging.DryRun {
		metrics, scorers := p.ModelScorers(opt)
		sample := out.Sample
		sample.ID = file
		out.Plan, err = judging.DryRun(ctx, s.Client(), metrics, scorers, 1, func(yield func(eval.Sample, error) bool) { yield(sample, nil) }, p.Metrics().DryRun)
		return out, err
	}
	opt.Model = s.Model()
	if out.Card, err = Score(ctx, p, out.Sample, opt); err != nil {
		return nil, err
	}
	if !judges.Offline(s.Model()) || job.Judging.Checker != "" {
		r := s.Report(out.Card.Defaulted)
		out.Report = &r
	}
	out.Failures = s.CardFailures(out.Card.Defaulted)
	if out.Card.Status != eval.StatusPass {
		out.Failures = append(out.Failures, judging.Failure{Kind: judging.FailVerdict, Err: fmt.Errorf("the card's status is %s", out.Card.Status)})
	}
	return out, nil
}

// sampleOf is what a profile judges of the input: a retrieval sample for
// the context profile, else the report with its query and sources.
func sampleOf(p *Profile, job ScoreJob, in ScoreInput) (eval.Sample, error) {
	if p.Kind == KindContext {
		return eval.DecodeContextSample(in.Name, in.Data)
	}
	sample := eval.Sample{Query: job.Query, Answer: string(in.Data)}
	if in.Sources != nil {
		var err error
		if sample.Sources, err = eval.DecodeSources(in.SourcesName, in.Sources); err != nil {
			return eval.Sample{}, err
		}
	}
	return sample, nil
}

// scoreDaily scores a daily report (seed 003): the five scorers against
// the truth (and the telemetry, for QoS), overall_quality and the gate.
// With a model, the seed's "future enhancement": a model's semantic
// verdict on the reasoning, beside the deterministic score.
func scoreDaily(ctx context.Context, job ScoreJob, p *daily.Profile, in ScoreInput) (*ScoreOutcome, error) {
	data := in.Data
	truth, err := eval.ReadTruth(in.TruthName, in.Truth, p.MetricNames())
	if err != nil {
		return nil, err
	}
	var tel *eval.Telemetry
	if in.Telemetry != nil {
		if tel, err = eval.ReadTelemetry(in.TelemetryName, in.Telemetry); err != nil {
			return nil, err
		}
	}
	r := p.Score(string(data), truth, tel)
	s, err := job.Judging.Open(job.Log, job.Env)
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.Close() }() // idle connections and the cache
	out := &ScoreOutcome{Daily: &r}
	defaulted := 0
	if !judges.Offline(s.Model()) {
		sc, err := judges.Reasoning{Model: s.Model()}.Score(ctx, eval.Sample{Query: truth.Subject["name"], Answer: string(data)})
		if err != nil {
			return nil, err
		}
		r.SemanticReasoning = &daily.SemanticVerdict{Label: "LLM reasoning verdict (semantic, not in overall_quality)",
			Method: sc.Method, Score: round1(sc.Points), Reason: sc.Reason, Defaulted: sc.Defaulted}
		if sc.Defaulted {
			defaulted++
		}
		rep := s.Report(defaulted)
		out.Report = &rep
	}
	out.Failures = s.CardFailures(defaulted)
	if r.Gate.Decision != daily.Publish {
		out.Failures = append(out.Failures, judging.Failure{Kind: judging.FailVerdict, Err: fmt.Errorf("the gate's decision is %s", r.Gate.Decision)})
	}
	return out, nil
}

// inputErr is err as an input error, unless it is one already (which
// names its file, line and field).
func inputErr(err error) error {
	if _, ok := errors.AsType[*eval.InputError](err); ok {
		return err
	}
	return &eval.InputError{Msg: err.Error(), Err: err}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// refuseDataset is the input error for a dataset given where p scores
// one Markdown report (a research or daily report), naming the command
// that judges the dataset; nil when the input is no dataset.
func refuseDataset(job ScoreJob, p *Profile, in ScoreInput) error {
	found := dataset.Sniff(in.Data)
	if found.Format == "" {
		return nil
	}
	file := shellWord(cmpOr(job.File, in.Name))
	kind := cmpOr(found.Profile, "RAG")
	var what, how string
	switch {
	case found.Format == dataset.FormatJSONL:
		what = "JSON Lines of " + kind + " samples"
	case found.Format == dataset.FormatCSV:
		what = "CSV of " + kind + " samples"
	case found.Format == dataset.FormatTSV:
		what = "TSV of " + kind + " samples"
	case found.Array:
		what = "a JSON array of " + kind + " samples"
	default:
		what = "one " + kind + " sample in JSON"
	}
	switch {
	case found.Profile == "":
		how = fmt.Sprintf("assay judge --metric faithfulness %s (assay judge --help lists the metrics), or keep a run with assay bench --metric faithfulness %s", file, file)
	default:
		profile := found.Profile
		if job.Profile != "" && (p.Kind == KindDaily) == (profile == dataset.ProfileDaily) && profile != dataset.ProfileContext {
			profile = shellWord(job.Profile) // the user's own profile of that kind
		}
		how = fmt.Sprintf("assay bench --profile %s %s", profile, file)
		if found.Format != dataset.FormatJSONL {
			how += ", written as JSON Lines (one sample a line)"
		}
	}
	return &eval.InputError{File: in.Name, Msg: fmt.Sprintf("is a dataset (%s), not a Markdown report: assay score judges one report; judge the dataset with %s", what, how)}
}

// shellWord is s as one word of a POSIX shell command.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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

// render prints a card in format.
func render(w io.Writer, format string, p *Profile, card eval.Card, sample eval.Sample) error {
	var v any
	var md string
	if p.Kind == KindContext {
		cv := NewContextView(p, card, sample)
		v, md = cv, cv.Markdown()
	} else {
		rv := NewResearchView(p, card)
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
		if cv, ok := v.(ContextView); ok {
			b, err := cv.AppendJSON(nil)
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		}
		return encode.JSON(w, v)
	case "md":
		_, err := io.WriteString(w, md)
		return err
	default:
		return encode.YAML(w, v)
	}
}

func renderDaily(w io.Writer, format string, r daily.Result) error {
	switch format {
	case "text":
		_, err := io.WriteString(w, r.Text())
		return err
	case "md":
		_, err := io.WriteString(w, r.Markdown())
		return err
	case "json":
		return encode.JSON(w, r)
	default:
		return encode.YAML(w, r)
	}
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

// MaxInput is the largest report, sample or side file read, so a wrong
// file cannot exhaust memory (datasets: dataset.MaxSize).
const MaxInput = 10 << 20

// ReadInput reads a file ("-" is stdin) and checks that it is non-empty
// UTF-8 text of at most limit bytes. A leading UTF-8 byte-order mark is
// dropped.
func ReadInput(file string, stdin io.Reader, limit int) ([]byte, error) {
	name := DisplayName(file)
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
	return checkInput(name, data)
}

// checkInput is data, the input named name, without a byte-order mark,
// or the *eval.InputError of input that is blank or not UTF-8 text.
func checkInput(name string, data []byte) ([]byte, error) {
	// A byte-order mark is not content: an editor's mark before JSON made
	// it unreadable, and a file of the mark alone was scored as a report.
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if strings.TrimSpace(string(data)) == "" {
		return nil, &eval.InputError{File: name, Msg: "empty input: nothing to score"}
	}
	if err := eval.CheckText(name, data); err != nil {
		return nil, err
	}
	return data, nil
}

// DisplayName is how errors name a file: standard input as <stdin>.
func DisplayName(file string) string {
	if file == "-" {
		return "<stdin>"
	}
	return file
}

func loadTiers(file string) (*heuristics.Tiers, error) {
	data, err := readSideFile("--tiers", file)
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
func textCard(p *Profile, card eval.Card, sample eval.Sample) string {
	var b strings.Builder
	if p.Kind == KindContext {
		v := NewContextView(p, card, sample)
		fmt.Fprintf(&b, "%s context %.3f, CRAG %s: %s\n  %s\n", strings.ToUpper(v.Status), v.Overall, v.CRAG.Classification, v.CRAG.Action.Type, v.Reason)
		for _, r := range []struct {
			name string
			v    float64
		}{{"retrieval confidence", v.RetrievalConfidence}, {"context sufficiency", v.ContextSufficiency},
			{"diversity", v.DiversityScore}, {"estimated faithfulness", v.EstimatedFaithfulness}} {
			fmt.Fprintf(&b, "  - %s %.3f\n", r.name, r.v)
		}
		for _, r := range v.Scores {
			flag := ""
			if r.Defaulted {
				flag = " DEFAULTED"
			}
			fmt.Fprintf(&b, "  - %s %s/%s%s: %s\n", r.Metric, num2(r.Points), num2(r.Max), flag, termtext.Visible(r.Reason))
		}
		if v.Warning != "" {
			fmt.Fprintf(&b, "  - warning: %s\n", v.Warning)
		}
		for _, q := range v.CRAG.Action.SubQueries {
			fmt.Fprintf(&b, "  - sub-query: %s\n", termtext.Visible(q))
		}
		if q := v.CRAG.Action.SearchQuery; q != "" {
			fmt.Fprintf(&b, "  - search: %s\n", termtext.Visible(q))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s %s/%s (passes at %s) [%s]\n  %s\n", strings.ToUpper(card.Status), num2(card.Total), num2(card.Max),
		num2(card.PassThreshold), card.Judge, card.Reason)
	for _, sc := range card.Scores {
		flag := ""
		if sc.Defaulted {
			flag = " DEFAULTED"
		}
		fmt.Fprintf(&b, "  - %s %s/%s%s: %s\n", sc.Metric, num2(sc.Points), num2(sc.Max), flag, termtext.Visible(sc.Reason))
	}
	for _, fx := range card.Fixes {
		fmt.Fprintf(&b, "  fix %d. %s: %s\n", fx.Priority, fx.Dimension, fx.Action)
	}
	return b.String()
}

// num2 prints a point value as the cards do: 4.9, 5, 0.25.
func num2(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }
