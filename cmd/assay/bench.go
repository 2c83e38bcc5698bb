package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

type benchFlags struct {
	metrics []string
	profile string
	out     string
	resume  bool
	min     minFlag
	quiet   bool
	gates   []string
	junit   string
	base    string
	label   string
	llm     llmFlags
}

// reportSamples is how many samples report.html and the JUnit file show:
// those with the lowest values.
const reportSamples = 1000

// spoolName is the copy of standard input (or a pipe) kept in the run
// folder, read by the check pass and by the run.
const spoolName = "input.jsonl"

func newBenchCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := benchFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:   "bench (--metric NAME[,NAME] | --profile context|research) [flags] DATA",
		Short: "Run judges over a dataset into a run folder that is kept and can be resumed",
		Long: `Judge every sample of DATA and keep the run in a folder (--out DIR, by
default assay-runs/RUN_ID): config.json (the command, Assay's version, the
prompt versions, the model, the dataset's path and sha256), results.jsonl
(one line per sample and metric, written as each finishes, so a killed run
loses at most the line being written) and summary.json (per metric: n,
mean, std, median, min, max, p10, a bootstrap 95% interval of the mean,
defaults, errors, tokens, cost and latency), which is also printed.

DATA is read as judge reads it with --metric (JSON, JSON Lines or CSV, with
Assay's, RAGAS's or DeepEval's field names); with --profile context it is
JSON Lines of retrieval samples ({query, chunks, context} a line), judged
as context_quality and its four sub-scores; with --profile research JSON
Lines of {id, query, report}, judged as the research card's five dimensions
and its total. DATA "-" reads standard input, which is copied into the run
folder (input.jsonl) as it is read.

The folder also gets report.html, one page that opens from disk: the
figures, a chart per metric, the gates, the baseline, and every sample
with its evidence. Every run is recorded in the run store (SQLite under
the user data directory; $ASSAY_DATA_DIR moves it), which assay runs lists.

--resume with --out DIR of an unfinished run judges only the pairs not in
its results.jsonl; another dataset or configuration is refused.

--gate 'METRIC.STAT OP NUMBER' (repeatable) fails the run when it does not
hold, as seed 002's CI checks: --gate 'context_quality.mean>=0.65'.
--baseline compares each metric's mean with an earlier run's, with a paired
Wilcoxon signed-rank test over the samples both scored, and raises seed
002's alerts: degradation (warning) under 0.85 x the baseline mean,
threshold (critical) under 0.4. --junit FILE writes the gates and the
samples below their thresholds as JUnit XML.

--label NAME (a binary human label of the records: human.faithful, true/false
or 1/0; !NAME negated) measures each metric's calibration against it: the
Brier score, the expected calibration error and a 10-bin reliability table,
in summary.json and drawn in report.html as a reliability diagram.

Exit codes are judge's: 1 below a --min floor, a failed --gate or an alert;
3 when more judgements defaulted than --max-default-rate allows, a budget
stopped calls, or the run was interrupted (resume it).`,
		Example: `  assay bench --metric faithfulness,answer_relevancy data.jsonl
  assay bench --profile context --out runs/ctx retrievals.jsonl
  assay bench --metric faithfulness --resume --out assay-runs/20261124T221500Z-3f9a data.jsonl
  assay bench --profile context --gate 'context_quality.mean>=0.65' --gate 'context_quality.min>=0.3' --baseline latest --junit junit.xml retrievals.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.metrics, "metric", nil, "metrics to judge, comma separated (or --profile)")
	fl.StringVar(&f.profile, "profile", "", "judge DATA with a card instead: context (retrieval samples), research (reports) or daily ({id, report, truth, telemetry})")
	fl.StringVar(&f.out, "out", "", "the run folder (default: assay-runs/RUN_ID in the working directory)")
	fl.BoolVar(&f.resume, "resume", false, "resume the unfinished run in --out: judge only what its results.jsonl lacks")
	fl.Var(&f.min, "min", "exit 1 when a value is below this floor: one for all metrics (0.7), by metric (faithfulness=0.8) or both")
	f.llm.register(fl)
	registerMaxDefaultRate(fl, &f.llm)
	registerSamples(fl, &f.llm)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
	fl.StringArrayVar(&f.gates, "gate", nil, "exit 1 unless 'METRIC.STAT OP NUMBER' holds (STAT: mean, min, max, median, p10, pass_rate, defaulted, defaulted_rate; OP: >=, >, <=, <); repeatable")
	fl.StringVar(&f.junit, "junit", "", "also write the gates and the samples as JUnit XML to FILE, for CI")
	fl.StringVar(&f.label, "label", "", "measure each metric's calibration against this binary human label of the records (faithful; !NAME negated): Brier, ECE and a reliability diagram")
	fl.StringVar(&f.base, "baseline", "", "compare with an earlier run: its folder, its id in the run store, or latest (the last run of the same dataset and metrics); exit 1 on seed 002's alerts")
	return cmd
}

// benchPlan is what a bench run judges: its metrics, the units that judge
// them given a model, and the thresholds of its summary.
type benchPlan struct {
	metrics []string
	units   func(judges.Model) []bench.Unit
	// scorers are the model-calling scorers for --dry-run and the check
	// pass of judge metrics; nil for a profile.
	scorers func(judges.Model) []eval.Scorer
}

func planBench(f benchFlags) (benchPlan, error) {
	switch {
	case f.profile != "" && len(f.metrics) > 0:
		return benchPlan{}, inputErr(errors.New("--metric and --profile: give one (a profile has its own metrics)"))
	case f.profile != "" && f.llm.samples > 1:
		return benchPlan{}, inputErr(fmt.Errorf("--samples %d: self-consistency is measured on judges named with --metric; a --profile runs its own scorers once (drop --samples or give --metric)", f.llm.samples))
	case f.profile == bench.ProfileContext:
		return benchPlan{metrics: bench.ContextMetrics, units: func(judges.Model) []bench.Unit { return []bench.Unit{bench.ContextUnit()} }}, nil
	case f.profile == bench.ProfileDaily:
		return benchPlan{metrics: bench.DailyMetrics, units: func(judges.Model) []bench.Unit { return []bench.Unit{bench.DailyUnit()} }}, nil
	case f.profile == bench.ProfileResearch:
		p, err := agent.Profiles{Metrics: f.llm.metrics}.Load("research")
		if err != nil {
			return benchPlan{}, inputErr(err)
		}
		return benchPlan{metrics: bench.ResearchMetrics(p), units: func(m judges.Model) []bench.Unit {
			return []bench.Unit{bench.ResearchUnit(p, agent.Options{Model: m})}
		}, scorers: func(m judges.Model) []eval.Scorer {
			_, build := modelScorers(p, agent.Options{})
			return build(m)
		}}, nil
	case f.profile != "":
		return benchPlan{}, inputErr(fmt.Errorf("--profile: want %s, %s or %s, got %q", bench.ProfileContext, bench.ProfileResearch, bench.ProfileDaily, f.profile))
	case len(f.metrics) == 0:
		return benchPlan{}, inputErr(errors.New("--metric: name at least one metric (have " + strings.Join(f.llm.metrics.Metrics(), ", ") +
			"), or give --profile context or --profile research"))
	}
	for i, m := range f.metrics {
		if _, err := f.llm.metrics.New(m, nil); err != nil {
			return benchPlan{}, inputErr(fmt.Errorf("--metric: %w", err))
		}
		if slices.Contains(f.metrics[:i], m) {
			return benchPlan{}, inputErr(fmt.Errorf("--metric: %q is named twice", m))
		}
	}
	// A sampled ratio's majority verdict is at the threshold the summary
	// counts passes at.
	build := func(m judges.Model) []eval.Scorer {
		threshold := func(name string) float64 {
			if v := f.min.Floor(name); v > 0 {
				return v
			}
			return f.llm.metrics.DefaultThreshold(name, m)
		}
		return f.llm.sampledScorers(f.metrics, threshold, judgeScorers(f.llm.metrics, f.metrics))(m)
	}
	return benchPlan{metrics: f.metrics, scorers: build, units: func(m judges.Model) []bench.Unit {
		scs := build(m)
		units := make([]bench.Unit, len(scs))
		for i, sc := range scs {
			units[i] = bench.ScorerUnit(f.metrics[i], sc)
		}
		return units
	}}, nil
}

// benchData is a checked dataset to read again record by record.
type benchData interface {
	Len() int
	Records() iter.Seq2[bench.Record, error]
}

func runBench(cmd *cobra.Command, f benchFlags, file string) error {
	plan, err := planBench(f)
	if err != nil {
		return err
	}
	if err := f.min.Check(plan.metrics); err != nil {
		return inputErr(err)
	}
	gates := make([]bench.Gate, len(f.gates))
	for i, g := range f.gates {
		if gates[i], err = bench.ParseGate(g); err != nil {
			return inputErr(fmt.Errorf("--gate: %w", err))
		}
	}
	if err := f.llm.checkMaxDefaultRate(); err != nil {
		return err
	}
	if f.resume && f.out == "" {
		return inputErr(errors.New("--resume: give the run's folder with --out DIR"))
	}
	client, closeCache, err := f.llm.client(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer closeCache()
	if err := f.llm.checkSamples(client); err != nil {
		return err
	}

	started := time.Now().UTC()
	cfg := bench.RunConfig{RunID: bench.NewRunID(started), Started: started, Command: os.Args, Version: version(debug.ReadBuildInfo()),
		Dataset: file, Profile: f.profile, Metrics: plan.metrics, Model: judgeName(client), Prompts: promptVersions(),
		Settings: benchSettings(f, plan.metrics, client)}
	dir := f.out
	if dir == "" {
		dir = filepath.Join("assay-runs", cfg.RunID)
	}
	// A dry run keeps no folder: standard input is spooled to a temporary one.
	spoolDir := dir
	if f.llm.dryRun {
		if spoolDir, err = os.MkdirTemp("", "assay-bench-"); err != nil {
			return &exitError{code: exitInfra, err: err}
		}
		defer func() { _ = os.RemoveAll(spoolDir) }() // a temporary copy of standard input
	}
	path, sum, err := datasetFile(file, cmd.InOrStdin(), spoolDir)
	if err != nil {
		return err
	}
	cfg.DatasetSHA256 = sum

	var run *bench.Run
	if f.resume {
		if run, err = bench.ResumeRun(dir, cfg); err != nil {
			return inputErr(err)
		}
		cfg = run.Config()
	}
	// The check pass: bad input is reported before any model call.
	var data benchData
	format := bench.Format("")
	if path != file {
		format = bench.FormatJSON // standard input: an array, an object or JSON Lines
	}
	switch {
	case f.profile != "":
		pd, err := bench.OpenProfileData(path, f.profile)
		if err != nil {
			return inputErr(renameInput(err, path, file))
		}
		data = pd
	default:
		ds, err := bench.OpenDataset(path, bench.DatasetOptions{Format: format, Scorers: plan.scorers(client)})
		if err != nil {
			return inputErr(renameInput(err, path, file))
		}
		data = ds
	}
	var labels bench.Labels
	if f.label != "" {
		if labels, err = bench.ReadLabels(data.Records(), f.label); err != nil {
			return inputErr(renameInput(err, path, file))
		}
		if labels.Len() == 0 {
			return inputErr(fmt.Errorf("--label %s: no record of %s has a binary label %s (true/false or 1/0 in its \"human\" object): name a label the records carry, or leave --label out",
				f.label, displayName(file), f.label))
		}
	}
	if f.llm.dryRun {
		if plan.scorers == nil {
			fmt.Fprintf(cmd.OutOrStdout(), "dry run: --profile %s is deterministic and calls no model; %d record(s)\n", f.profile, data.Len())
			return nil
		}
		metrics, scorers := plan.metrics, plan.scorers
		if f.profile == bench.ProfileResearch {
			p, _ := agent.Profiles{Metrics: f.llm.metrics}.Load("research")
			metrics, scorers = modelScorers(p, agent.Options{})
		}
		return dryRun(cmd.Context(), cmd.OutOrStdout(), f.llm.metrics, client, metrics, scorers, data.Len(), data.Records())
	}
	if run == nil {
		if run, err = bench.CreateRun(dir, cfg); err != nil {
			return inputErr(err)
		}
	}
	defer func() { _ = run.Close() }() // closed below, with its error seen; this covers the early returns

	threshold := func(m string) float64 {
		if v := f.min.Floor(m); v > 0 {
			return v
		}
		return benchThreshold(f.llm.metrics, f.profile, m, client)
	}
	gate := func(r bench.Result) {
		// The gate compares the value rounded, as judge prints it.
		f.min.Add(eval.Score{Metric: r.Metric, Value: round(r.Value), Defaulted: r.Defaulted, Skipped: r.Skipped})
	}
	for r := range run.Earlier() {
		gate(r)
	}
	todo := data.Len()
	if n := run.Resumed(); n > 0 {
		todo = pendingRecords(data, run, plan.metrics)
		fmt.Fprintf(cmd.ErrOrStderr(), "bench: resuming %s: %d result(s) kept, %d of %d record(s) to judge\n", dir, n, todo, data.Len())
	}
	meter, err := newMeter(cmd, &f.llm, "bench", todo, f.quiet, client)
	if err != nil {
		return err
	}
	run.OnResult = func(r bench.Result) {
		gate(r)
		if r.Defaulted {
			meter.Add(0, 1)
		}
	}
	err = run.Evaluate(cmd.Context(), data.Records(), plan.units(client), bench.TasksPerCall*f.llm.concurrency,
		func(bench.Record, int) { meter.Add(1, 0) })
	meter.Close()
	interrupted := err != nil && cmd.Context().Err() != nil
	if err != nil && !interrupted {
		if errors.Is(err, llm.ErrAuth) {
			return &exitError{code: exitInfra, err: err}
		}
		var ie *eval.InputError
		if errors.As(err, &ie) {
			return inputErr(renameInput(err, path, file))
		}
		return &exitError{code: exitInfra, err: fmt.Errorf("%s: %w", displayName(file), err)}
	}
	summary := run.Summary(data.Len(), time.Now().UTC(), threshold)
	for _, m := range summary.Metrics {
		f.llm.stable.count(m.Sampled, m.Unstable)
	}
	if cerr := run.Close(); cerr != nil {
		return &exitError{code: exitInfra, err: cerr}
	}
	if labels.Len() > 0 {
		if err := summary.AddCalibration(filepath.Join(dir, bench.FileResults), labels); err != nil {
			return &exitError{code: exitInfra, err: err}
		}
	}
	// The report and the JUnit file show the samples worth reading, so a
	// run of any size keeps flat memory; a baseline comparison reads every
	// value.
	results, err := bench.ReadResultsBounded(filepath.Join(dir, bench.FileResults), reportSamples)
	if err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	if err := f.judgeRun(cfg, &summary, results, gates); err != nil {
		return err
	}
	if werr := writeRunFiles(dir, cfg, summary, results, f.junit, threshold); werr != nil {
		return &exitError{code: exitInfra, err: werr}
	}
	if werr := run.WriteSummary(summary); werr != nil {
		return &exitError{code: exitInfra, err: werr}
	}
	if err := f.record(cfg, summary, dir); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "assay: run store: %v (the run folder %s has the run)\n", err, dir)
	}
	if err := bench.FormatMetricStats(cmd.OutOrStdout(), summary.Metrics); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	for _, m := range summary.Metrics {
		if c := m.Calibration; c != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "bench: %s against %s: Brier %.3f, ECE %.3f (reliability diagram in %s)\n", m.Metric, summary.Label, c.Brier, c.ECE, bench.FileReport)
		}
	}
	f.llm.summary(cmd.ErrOrStderr(), client, run.Defaults().Defaulted)
	fmt.Fprintf(cmd.ErrOrStderr(), "bench: run %s in %s\n", cfg.RunID, dir)
	if interrupted {
		return &exitError{code: exitInfra, err: fmt.Errorf("interrupted with %d of %d record(s) judged (%w): resume with --resume --out %s and the same DATA and flags",
			countComplete(summary), data.Len(), err, dir)}
	}
	if err := f.llm.budgetErr(client); err != nil {
		return err
	}
	if err := f.llm.defaultRateErr(run.Defaults()); err != nil {
		return err
	}
	if err := f.min.Err(); err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	if err := gateAlertErr(cmd.ErrOrStderr(), summary); err != nil {
		return err
	}
	return nil
}

// countComplete is the fewest results of any metric: records judged whole.
func countComplete(s bench.Summary) int {
	n := s.Samples
	for _, m := range s.Metrics {
		n = min(n, m.N)
	}
	return n
}

// pendingRecords counts the records of data with a pair run lacks.
func pendingRecords(data benchData, run *bench.Run, metrics []string) int {
	n := 0
	for rec, err := range data.Records() {
		if err != nil {
			break
		}
		if slices.ContainsFunc(metrics, func(m string) bool { return !run.Done(bench.Key{ID: rec.ID, Metric: m}) }) {
			n++
		}
	}
	return n
}

// datasetFile returns the file to read the dataset from and the sha256 of
// its bytes. A regular file is read where it is; standard input or a pipe,
// which cannot be read twice, is copied into dir as it is read (the check
// pass and the run then both stream the copy), at most bench.MaxDataset
// bytes.
func datasetFile(file string, stdin io.Reader, dir string) (string, string, error) {
	name := displayName(file)
	var r io.Reader
	if file == bench.Stdin {
		r = stdin
	} else {
		fh, err := eval.OpenFile(file)
		if err != nil {
			return "", "", inputErr(err)
		}
		defer func() { _ = fh.Close() }() // read only
		st, err := fh.Stat()
		if err != nil {
			return "", "", inputErr(&eval.InputError{File: name, Msg: "cannot read: " + err.Error()})
		}
		if st.IsDir() {
			return "", "", inputErr(&eval.InputError{File: name, Msg: "is a directory, not a file"})
		}
		if st.Mode().IsRegular() {
			h := sha256.New()
			if _, err := io.Copy(h, fh); err != nil {
				return "", "", inputErr(&eval.InputError{File: name, Msg: "cannot read: " + err.Error()})
			}
			return file, hex.EncodeToString(h.Sum(nil)), nil
		}
		r = fh
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", &exitError{code: exitInfra, err: fmt.Errorf("run folder: %w", err)}
	}
	// Written beside the final name and renamed, so that a resume fed
	// another input never loses the copy the run was judged from before
	// the sha256 is compared.
	spool := filepath.Join(dir, spoolName)
	tmp, err := os.CreateTemp(dir, spoolName+".*")
	if err != nil {
		return "", "", &exitError{code: exitInfra, err: fmt.Errorf("run folder: %w", err)}
	}
	h := sha256.New()
	n, cerr := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(r, bench.MaxDataset+1))
	if err := tmp.Close(); cerr == nil {
		cerr = err
	}
	switch {
	case cerr != nil:
		_ = os.Remove(tmp.Name()) // a partial copy
		return "", "", inputErr(&eval.InputError{File: name, Msg: "cannot read: " + cerr.Error()})
	case n > bench.MaxDataset:
		_ = os.Remove(tmp.Name()) // a partial copy
		return "", "", inputErr(&eval.InputError{File: name, Msg: fmt.Sprintf("larger than the %d MB limit", bench.MaxDataset>>20)})
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if old, err := fileSHA256(spool); err == nil && old != sum {
		_ = os.Remove(tmp.Name()) // another input: the resume will refuse it
		return spool, sum, nil
	}
	if err := os.Rename(tmp.Name(), spool); err != nil {
		return "", "", &exitError{code: exitInfra, err: fmt.Errorf("run folder: %w", err)}
	}
	return spool, sum, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// renameInput names standard input in an input error about its copy.
func renameInput(err error, path, file string) error {
	var ie *eval.InputError
	if path != file && errors.As(err, &ie) && ie.File == path {
		ie.File = displayName(file)
	}
	return err
}

// promptVersions maps each embedded prompt template to its version.
func promptVersions() map[string]string {
	out := map[string]string{}
	for _, name := range prompts.Names() {
		if t, err := prompts.Get(name); err == nil {
			out[name] = t.Version
		}
	}
	return out
}

// benchSettings are the options that change a run's results or verdict,
// compared on --resume.
func benchSettings(f benchFlags, metrics []string, c *llm.Client) map[string]string {
	s := map[string]string{
		"--strict":           strconv.FormatBool(f.llm.strict),
		"--max-default-rate": strconv.FormatFloat(f.llm.maxDefaultRate, 'f', -1, 64),
	}
	if v := f.min.String(); v != "" {
		s["--min"] = v
	}
	if f.llm.samples > 1 {
		// Absent at 1, so that the runs before --samples resume alike.
		s["--samples"] = strconv.Itoa(f.llm.samples)
	}
	for _, m := range metrics {
		s["threshold "+m] = strconv.FormatFloat(benchThreshold(f.llm.metrics, f.profile, m, c), 'f', -1, 64)
	}
	return s
}

// benchThreshold is a metric's pass threshold in a run's summary: the
// context card's pass threshold (seed 002's CRAG "correct", 0.7) for
// context_quality under --profile context, else the metric's default.
func benchThreshold(reg *metric.Registry, profile, name string, c *llm.Client) float64 {
	if profile == bench.ProfileContext && name == agent.MetricContextQuality {
		if p, err := (agent.Profiles{Metrics: reg}).Load("context"); err == nil {
			return p.Pass.Threshold
		}
	}
	return reg.DefaultThreshold(name, c)
}

// judgeRun compares the run with its baseline, when --baseline names one,
// and checks its gates, into the summary.
func (f benchFlags) judgeRun(cfg bench.RunConfig, s *bench.Summary, results *bench.ResultFile, gates []bench.Gate) error {
	if f.base != "" {
		store, err := f.store()
		if err != nil {
			return &exitError{code: exitInfra, err: err}
		}
		defer func() { _ = store.Close() }() // read only here
		dir, err := bench.ResolveBaseline(store, f.base, cfg)
		if err != nil {
			return inputErr(fmt.Errorf("--baseline: %w", err))
		}
		all, err := bench.ReadResults(results.Path)
		if err != nil {
			return &exitError{code: exitInfra, err: err}
		}
		cmp, alerts, err := bench.Compare(dir, all, *s)
		if err != nil {
			return inputErr(fmt.Errorf("--baseline %s: %w", f.base, err))
		}
		s.Baseline, s.Alerts = cmp, alerts
	}
	s.Gates = bench.CheckGates(gates, *s)
	return nil
}

// store opens the run store at its default place ($ASSAY_DATA_DIR).
func (f benchFlags) store() (*bench.Store, error) {
	path, err := bench.DefaultStorePath(f.llm.env)
	if err != nil {
		return nil, err
	}
	return bench.OpenStore(path)
}

// record keeps the run in the run store.
func (f benchFlags) record(cfg bench.RunConfig, s bench.Summary, dir string) error {
	store, err := f.store()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return errors.Join(store.Record(cfg, s, abs), store.Close())
}

// writeRunFiles writes report.html into the run folder and, when junit is
// set, the JUnit XML there, each whole or not at all.
func writeRunFiles(dir string, cfg bench.RunConfig, s bench.Summary, results *bench.ResultFile, junit string, threshold func(string) float64) error {
	if err := writeAtomic(filepath.Join(dir, bench.FileReport), func(w io.Writer) error {
		return bench.WriteReport(w, cfg, s, results)
	}); err != nil {
		return err
	}
	if junit == "" {
		return nil
	}
	return writeAtomic(junit, func(w io.Writer) error {
		return bench.WriteJUnit(w, cfg, s, results, threshold)
	})
}

// writeAtomic writes a file through a temporary one renamed over it.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone once renamed
	bw := bufio.NewWriter(tmp)
	if err := errors.Join(write(bw), bw.Flush(), tmp.Close()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// gateAlertErr is exit 1 when a gate failed or the baseline raised an
// alert, each said on w; nil otherwise.
func gateAlertErr(w io.Writer, s bench.Summary) error {
	failed := 0
	for _, g := range s.Gates {
		if !g.Passed {
			failed++
			fmt.Fprintf(w, "assay: gate %s failed: got %s%s\n", g.Gate, numText(g.Got), reasonText(g.Reason))
		}
	}
	for _, a := range s.Alerts {
		fmt.Fprintf(w, "assay: %s %s alert: %s\n", a.Severity, a.Type, a.Message)
	}
	if failed == 0 && len(s.Alerts) == 0 {
		return nil
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("%d gate(s) failed, %d alert(s) raised", failed, len(s.Alerts))}
}

func numText(n bench.Num) string {
	if math.IsNaN(float64(n)) {
		return "nothing (undefined)"
	}
	return strconv.FormatFloat(float64(n), 'f', 4, 64)
}

func reasonText(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}
