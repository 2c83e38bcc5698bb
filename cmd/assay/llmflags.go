package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/assaylabs/assay/eval"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/setup"
	"github.com/assaylabs/assay/metric"
)

// llmFlags are the model-client flags shared by the commands that judge.
type llmFlags struct {
	spec        string
	noCache     bool
	dryRun      bool
	maxCost     float64
	strict      bool
	concurrency int
	rpm, tpm    int
	prices      string
	maxElapsed  time.Duration
	callTimeout time.Duration
	// maxDefaultRate is --max-default-rate, registered by the commands
	// that judge datasets (judge, agree); see defaultRateErr.
	maxDefaultRate float64
	// maxSkipRate is --max-skip-rate, registered with --max-default-rate.
	maxSkipRate float64
	// samples is --samples, registered by the commands that judge
	// datasets (judge, agree, bench); see sampled. stable counts the
	// sampled judgements for the summary line.
	samples int
	stable  *stability
	env     func(string) string
	// metrics are the metrics --metric and profiles take.
	metrics *metric.Registry
}

// registerSamples adds --samples, for the commands that judge datasets.
func registerSamples(fl *pflag.FlagSet, f *llmFlags) {
	fl.IntVar(&f.samples, "samples", 1, fmt.Sprintf("ask the model this many times per judgement (at temperature %g, each cached apart) and report its self-consistency; "+
		"the value is the mean, or the majority grade; a judgement is unstable when its samples' majority share is below 1 or their spread (std) above %g", judges.SampleTemperature, judges.UnstableStd))
}

// checkSamples checks --samples against the model before any call: k > 1
// needs a model, the offline judges being deterministic.
func (f *llmFlags) checkSamples(m judges.Model) error {
	if err := judges.CheckSamples(f.samples, m); err != nil {
		return inputErr(err)
	}
	f.stable = &stability{}
	return nil
}

// sampled wraps s to ask its model --samples times per judgement, with
// the metric's pass threshold for the majority verdict of ratio values;
// with --samples 1 it is s itself.
func (f *llmFlags) sampled(s eval.Scorer, threshold float64) eval.Scorer {
	if f.samples < 2 {
		return s
	}
	return judges.Sampled{Scorer: s, K: f.samples, Threshold: threshold}
}

// sampledScorers is build with each metric's scorer wrapped by sampled,
// at that metric's threshold.
func (f *llmFlags) sampledScorers(metrics []string, threshold func(string) float64, build func(judges.Model) []eval.Scorer) func(judges.Model) []eval.Scorer {
	return func(m judges.Model) []eval.Scorer {
		out := build(m)
		for i, name := range metrics {
			out[i] = f.sampled(out[i], threshold(name))
		}
		return out
	}
}

// stability counts the sampled judgements of a run and the unstable ones
// (judges.Unstable). It is safe for concurrent use.
type stability struct {
	judged, unstable atomic.Int64
}

// add counts sc when it is a sampled judgement; nil counts nothing.
func (st *stability) add(sc eval.Score) {
	if st == nil || sc.Skipped || sc.Evidence.Counts[judges.CountSamples] < 2 {
		return
	}
	st.judged.Add(1)
	if judges.Unstable(sc) {
		st.unstable.Add(1)
	}
}

func (f *llmFlags) register(fl *pflag.FlagSet) {
	f.samples = 1     // asked once where --samples is not offered
	f.maxSkipRate = 1 // any skip allowed where --max-skip-rate is not offered
	fl.StringVar(&f.spec, "llm", "", "judge model as backend:model (openai:gpt-4o-mini, ollama:qwen2.5:7b, vllm:NAME, langchain:anthropic:MODEL, offline);\n"+
		"assay agree takes several, comma separated, as a jury;\n"+
		"default: $ASSAY_LLM, else openai:gpt-4o-mini when $OPENAI_API_KEY is set, else offline")
	fl.BoolVar(&f.noCache, "no-cache", false, "do not read or write the response cache")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the calls, tokens and cost the run would need, and make no call")
	fl.Float64Var(&f.maxCost, "max-cost", 0, "stop starting model calls once spending would pass this many US dollars (0: no limit)")
	fl.BoolVar(&f.strict, "strict", false, "exit 3 when any judge fell back to its neutral default")
	fl.IntVar(&f.concurrency, "concurrency", 8, "model calls in flight at most")
	fl.IntVar(&f.rpm, "rpm", 0, "model requests per minute at most (0: no limit)")
	fl.IntVar(&f.tpm, "tpm", 0, "model tokens per minute at most (0: no limit)")
	fl.StringVar(&f.prices, "prices", "", "YAML file of model prices per million tokens ({model: {in: 0.15, out: 0.6}}) over the built-in table")
	fl.DurationVar(&f.maxElapsed, "max-retry-time", 2*time.Minute, "give up retrying one call after this long")
	fl.DurationVar(&f.callTimeout, "call-timeout", time.Minute, "cut one attempt of a call after this long and retry (a stalled server)")
}

// judging is the library's form of the flags.
func (f *llmFlags) judging() judging.Config {
	return judging.Config{
		LLM: setup.Config{
			Spec: f.spec, NoCache: f.noCache, Concurrency: f.concurrency, RPM: f.rpm, TPM: f.tpm, MaxCostUSD: f.maxCost,
			PricesFile: f.prices, MaxRetryTime: f.maxElapsed, CallTimeout: f.callTimeout,
		},
		DryRun: f.dryRun, Strict: f.strict, MaxDefaultRate: f.maxDefaultRate, MaxSkipRate: f.maxSkipRate, Samples: f.samples,
	}
}

// client builds the model client the flags and environment say
// (setup.Open), with its notices on stderr. The returned close function
// closes the client's idle connections and the cache.
func (f *llmFlags) client(stderr io.Writer) (*llm.Client, func(), error) {
	if strings.Contains(f.spec, ",") {
		return nil, nil, inputErr(errors.New("--llm: one model here; juries are for assay agree"))
	}
	c, closer, err := setup.Open(setup.Config{
		Spec: f.spec, NoCache: f.noCache || f.dryRun,
		Concurrency: f.concurrency, RPM: f.rpm, TPM: f.tpm, MaxCostUSD: f.maxCost, PricesFile: f.prices,
		MaxRetryTime: f.maxElapsed, CallTimeout: f.callTimeout,
		Notices: stderr,
	}, f.env)
	if err != nil {
		return nil, nil, inputErr(err)
	}
	return c, func() { _ = closer.Close() }, nil
}

// jurySpecs are the models of a comma-separated --llm (assay agree's
// jury), each once; a single spec, or none, is nil.
func (f *llmFlags) jurySpecs() ([]string, error) {
	if !strings.Contains(f.spec, ",") {
		return nil, nil
	}
	var specs []string
	for part := range strings.SplitSeq(f.spec, ",") {
		spec := strings.TrimSpace(part)
		switch {
		case spec == "":
			return nil, inputErr(fmt.Errorf("--llm %q: an empty model between commas: write openai:gpt-4o-mini,ollama:qwen2.5:7b", f.spec))
		case slices.Contains(specs, spec):
			return nil, inputErr(fmt.Errorf("--llm: %s is given twice: a jury's models are distinct", spec))
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

// summary prints what the model client did, on stderr.
func (f *llmFlags) summary(w io.Writer, c *llm.Client, defaulted int) {
	u := c.Usage()
	fmt.Fprintf(w, "judge: %s; calls %d (retries %d, cache hits %d", judgeName(c), u.Calls, u.Retries, u.CacheHits)
	if u.CacheErrors > 0 {
		fmt.Fprintf(w, ", cache errors %d", u.CacheErrors)
	}
	fmt.Fprintf(w, "), tokens %d in / %d out", u.TokensIn, u.TokensOut)
	if u.Estimated {
		fmt.Fprint(w, " (partly estimated)")
	}
	fmt.Fprintf(w, ", cost %s; neutral defaults %d", u.Cost(), defaulted)
	if f.samples > 1 && f.stable != nil {
		fmt.Fprintf(w, "; unstable %d of %d judgement(s) over %d samples (majority share below 1 or spread std above %g)",
			f.stable.unstable.Load(), f.stable.judged.Load(), f.samples, judges.UnstableStd)
	}
	fmt.Fprintln(w)
}

func judgeName(c *llm.Client) string { return judges.Method(c) }

// budgetErr is exit 3 once the cost budget refused calls (their judges
// used the neutral default), or nil: a run cut short by its budget never
// passes.
func (f *llmFlags) budgetErr(c *llm.Client) error {
	if n := c.BudgetStops(); n > 0 {
		// The limit as the user gave it, never rounded to $0.0000.
		return &exitError{code: exitInfra, err: fmt.Errorf("budget reached: %d call(s) not made (--max-cost $%s); their judges used the neutral default",
			n, strconv.FormatFloat(f.maxCost, 'f', -1, 64))}
	}
	return nil
}

// authErr is exit 3 with the server's message once it refused the
// credentials, or nil. A run whose scorers keep going on errors (agree)
// checks it: no call was sent after the refusal.
func (f *llmFlags) authErr(c *llm.Client) error {
	if err := c.AuthErr(); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	return nil
}

// newMeter starts the progress of a run over n records on stderr, with
// the money the client spends when it is a model's. Off a terminal a line
// is printed every $ASSAY_PROGRESS_EVERY (a duration; 5s by default).
func newMeter(cmd *cobra.Command, f *llmFlags, label string, n int, quiet bool, client *llm.Client) (*prog.Meter, error) {
	cfg := prog.Config{Label: label, Total: n, Quiet: quiet, Live: prog.IsTerminal(cmd.ErrOrStderr())}
	if v := f.env("ASSAY_PROGRESS_EVERY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, inputErr(fmt.Errorf("$ASSAY_PROGRESS_EVERY: want a positive duration such as 30s, got %q", v))
		}
		cfg.Every = d
	}
	if !client.Offline() {
		cfg.Cost = client.Spent
	}
	return prog.New(cmd.ErrOrStderr(), cfg), nil
}

// checkMaxDefaultRate checks --max-default-rate before any call.
func (f *llmFlags) checkMaxDefaultRate() error {
	if !(f.maxDefaultRate >= 0 && f.maxDefaultRate <= 1) { // NaN too
		return inputErr(fmt.Errorf("--max-default-rate: want a share from 0 to 1 (0.05 is 5%%), got %g", f.maxDefaultRate))
	}
	return nil
}

// defaultRateErr is the exit 3 for a run whose share of neutral defaults
// is over --max-default-rate (0 under --strict), or nil.
func (f *llmFlags) defaultRateErr(d judging.Defaults) error {
	limit, flag := f.maxDefaultRate, "--max-default-rate "+strconv.FormatFloat(f.maxDefaultRate, 'f', -1, 64)
	if f.strict {
		limit, flag = 0, "--strict (no default allowed)"
	}
	var re *judging.DefaultRateError
	if !errors.As(d.Check(limit), &re) {
		return nil
	}
	return &exitError{code: exitInfra, err: fmt.Errorf("%s fell back to the neutral default, over %s: %s\n%s, "+
		"or allow more defaults with --max-default-rate", re.Summary(), flag, re.Cause(), judging.DefaultAdvice(re))}
}
