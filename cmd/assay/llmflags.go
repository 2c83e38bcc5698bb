package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
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
	// that judge datasets (judge, agree, bench).
	maxDefaultRate float64
	// maxSkipRate is --max-skip-rate, registered with --max-default-rate.
	maxSkipRate float64
	// samples is --samples, registered by the commands that judge
	// datasets (judge, agree, bench).
	samples int
	// checker and checkerChunk are --checker and --checker-chunk,
	// registered by the commands that judge datasets.
	checker      string
	checkerChunk int
	env          func(string) string
	// metrics are the metrics --metric and profiles take.
	metrics *metric.Registry
	// judges is --judges, registered by the commands that judge datasets.
	judges string
}

// registerJudges adds --judges, for the commands that judge datasets.
func registerJudges(fl *pflag.FlagSet, f *llmFlags) {
	fl.StringVar(&f.judges, "judges", "", "YAML file of judges you define (criterion, steps, scale, rubric, fields, threshold), each then a --metric; see examples/judges.yaml; or a profile that defines judges")
}

// registry is the metrics --metric takes: the command's, with the judges
// of --judges (a judges file, or a profile that defines judges).
func (f *llmFlags) registry() (*metric.Registry, error) {
	if f.judges == "" {
		return f.metrics, nil
	}
	return agent.Judges(f.metrics, f.judges)
}

// registerSamples adds --samples, for the commands that judge datasets.
func registerSamples(fl *pflag.FlagSet, f *llmFlags) {
	fl.IntVar(&f.samples, "samples", 1, fmt.Sprintf("ask the model this many times per judgement (1 to %d, at temperature %g, each cached apart) and report its self-consistency; "+
		"the value is the mean, or the majority grade; a judgement is unstable when its samples' majority share is below 1 or their spread (std) above %g", judges.MaxSamples, judges.SampleTemperature, judges.UnstableStd))
}

// registerChecker adds --checker and --checker-chunk, for the commands
// that judge datasets.
func registerChecker(fl *pflag.FlagSet, f *llmFlags) {
	fl.StringVar(&f.checker, "checker", "", "verify each claim of faithfulness and context_recall with a fact-checking model on an OpenAI-compatible server\n"+
		"(openai:MODEL, ollama:MODEL, vllm:MODEL; Bespoke-MiniCheck-7B), its URL from $"+setup.CheckerBaseURLVar+", else as --llm's")
	fl.IntVar(&f.checkerChunk, "checker-chunk", 0, fmt.Sprintf("most tokens of context sent with one claim to --checker (0: %d)", judges.DefaultChunkTokens))
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
	fl.IntVar(&f.concurrency, "concurrency", 8, "model calls in flight at most (1 to 4096)")
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
		Checker: f.checker, CheckerChunk: f.checkerChunk,
	}
}
