// Command assay judges research reports and RAG retrievals.
//
// Results go to stdout; errors and progress to stderr. Exit codes: 0 pass,
// 1 scored but did not pass (iterate, fail, rejected), 2 usage or input
// error, 3 infrastructure failure.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/flagerror"
	"github.com/assaylabs/assay/internal/gcfloor"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/telemetry"
)

// Exit codes.
const (
	exitPass   = 0
	exitFailed = 1
	exitInput  = 2
	exitInfra  = 3
)

// exitError carries an exit code with its error; a nil err only sets the
// code (a card that did not pass is not an error to print).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func inputErr(err error) error { return &exitError{code: exitInput, err: err} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	gcfloor.Set(os.Getenv, gcfloor.Floor)
	// ASSAY_CPUPROFILE=FILE writes a CPU profile of the run, for the
	// benchmarks in BENCHMARKS.md.
	if path := os.Getenv("ASSAY_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { _ = f.Close() }() // a profile for the benchmarks, written by StopCPUProfile first
			defer pprof.StopCPUProfile()
		}
	}
	// OTEL_* turns tracing on (see package telemetry); spans still held
	// are flushed before the process ends, for at most a few seconds.
	shutdown, err := telemetry.Setup(ctx, os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "assay: %s\n", termtext.Message(err.Error()))
		os.Exit(exitInput)
	}
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if err := shutdown(flush); err != nil {
		fmt.Fprintf(os.Stderr, "assay: tracing: %s\n", termtext.Message(err.Error()))
	}
	cancel()
	if code != exitPass {
		pprof.StopCPUProfile()
		os.Exit(code)
	}
}

// run is main without the process: it returns the exit code. env reads
// environment variables (os.Getenv, or a map in tests). The metrics are
// the built-in ones.
func run(ctx context.Context, args []string, env func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(ctx, agent.Builtins(), args, env, stdin, stdout, stderr)
}

// runWith is run with the metrics of reg: those --metric, profiles and dry
// runs know.
func runWith(ctx context.Context, reg *metric.Registry, args []string, env func(string) string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "assay: internal error: %v\nplease report this with the input that caused it\n", r)
			code = exitInfra
		}
	}()
	root := newRoot(env, reg, stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitPass
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "assay:", termtext.Message(ee.err.Error()))
		}
		return ee.code
	}
	var ie *eval.InputError
	if errors.As(err, &ie) {
		fmt.Fprintln(stderr, "assay:", termtext.Message(err.Error()))
		return exitInput
	}
	// Anything cobra reports itself (unknown flag, bad arguments) is usage.
	fmt.Fprintln(stderr, "assay:", termtext.Message(err.Error()))
	if ctx.Err() != nil {
		return exitInfra
	}
	return exitInput
}

func newRoot(env func(string) string, reg *metric.Registry, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "assay",
		Short: "Judge research reports and RAG answers, and research questions end to end",
		Long: `Assay judges research reports and RAG answers. It scores them with
deterministic heuristics (citation coverage, source credibility, diversity,
completeness, clarity, context quality) and RAGAS-style LLM judges
(faithfulness, answer relevancy, context precision and recall, completeness,
source relevance, reasoning), and it runs a research workflow end to end.

Without --llm, $ASSAY_LLM or $OPENAI_API_KEY everything runs offline: no
account, no network, and the judges say "offline (approximate)".

Exit codes: 0 pass, 1 scored but not passed (a card that iterates or
fails, a value under its --min floor, a failed gate or alert), 2 usage or
input error, 3 infrastructure failure: the model unreachable, an
interrupted run, more judge defaults than --max-default-rate allows (any
under --strict), a metric with nothing scored, or more skipped than
--max-skip-rate allows.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(debug.ReadBuildInfo()),
		// A flag given an empty value is refused, not taken for its default.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return flagerror.Empty(cmd.Flags()) },
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagerror.Explain(err) })
	root.SetVersionTemplate("assay {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newScoreCmd(env, reg), newJudgeCmd(env, reg), newAgreeCmd(env, reg), newResearchCmd(env, reg), newAlignCmd(env, reg), newBenchCmd(env, reg), newRunsCmd(env), newServeCmd(env, reg), newWorkerCmd(env, reg))
	return root
}

// version is what --version prints: the module version the binary was
// built at, and the commit it was built from when the build recorded one
// ("+dirty" marks uncommitted changes).
func version(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "(unknown version: built without module information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v
	}
	if modified == "true" {
		rev += "+dirty"
	}
	return v + " (commit " + rev + ")"
}
