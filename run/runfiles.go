package run

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/stats"
)

// The files of an evaluation run's folder (`assay bench --out DIR`).
const (
	FileConfig  = "config.json"
	FileResults = "results.jsonl"
	FileSummary = "summary.json"
	FileReport  = "report.html"
)

// Result is one metric's judgement of one sample: a line of
// results.jsonl, and what `assay judge` prints. Lines are appended and
// flushed as judgements finish, in no particular order; (ID, Metric)
// identifies a result. A run holds each pair's final result once, however
// often it was resumed: a pair has a second line only when a resume judged
// again a result that was not final (a neutral default or an error), and
// then its last line supersedes the others wherever results.jsonl is read.
type Result struct {
	ID     string `json:"id" yaml:"id"`
	Metric string `json:"metric" yaml:"metric"`
	// Value is in [0, 1]; 0.5 when Defaulted, 0 and meaningless when
	// Skipped.
	Value  float64 `json:"value" yaml:"value"`
	Points float64 `json:"points" yaml:"points"`
	Max    float64 `json:"max" yaml:"max"`
	// Method says how it was judged ("offline (approximate)",
	// "llm:openai:gpt-4o-mini").
	Method    string `json:"method" yaml:"method"`
	Reason    string `json:"reason" yaml:"reason"`
	Defaulted bool   `json:"defaulted,omitempty" yaml:"defaulted,omitempty"`
	Skipped   bool   `json:"skipped,omitempty" yaml:"skipped,omitempty"`
	// Pass is the card's verdict where a card decides (eval.Score.Pass).
	Pass     *bool         `json:"pass,omitempty" yaml:"pass,omitempty"`
	Error    string        `json:"error,omitempty" yaml:"error,omitempty"`
	Evidence eval.Evidence `json:"evidence,omitzero" yaml:"evidence,omitempty"`
	Usage    eval.Usage    `json:"usage,omitzero" yaml:"usage,omitempty"`
	// Undelivered, on a queued run, is how many deliveries the pair's
	// task had before the queue gave up on it (workers died, or failed
	// it each time): the result is a neutral default with Error saying
	// why, and a resume judges it again.
	Undelivered int `json:"undelivered,omitempty" yaml:"undelivered,omitempty"`
	// FailedChecker names the fact checker (--checker) whose failed check
	// made the result a default (judges.CheckerError), so that the advice
	// after a run's defaults points at the checker's server.
	FailedChecker string `json:"failed_checker,omitempty" yaml:"failed_checker,omitempty"`
	// cause is the error Error was written from, when the result was
	// judged in this process (ResultOf): the run's count of defaults
	// keeps its chain, so that the advice after them names the cause (a
	// reply off the schema, a rate limit). It is not written: a result
	// read back has its text alone.
	cause error
}

// ResultOf is the line of results.jsonl for one score of sample id. Its
// reason, error and each string of its evidence keep at most
// eval.MaxText bytes (eval.Clip says where one was cut), so that a model
// that answers at length cannot make a result, or the reports read from
// results, grow without bound.
func ResultOf(id string, sc eval.Score) Result {
	r := Result{
		ID: id, Metric: sc.Metric, Value: sc.Value, Points: sc.Points, Max: sc.Max,
		Method: sc.Method, Reason: eval.Clip(sc.Reason, eval.MaxText), Defaulted: sc.Defaulted, Skipped: sc.Skipped, Pass: sc.Pass,
		Evidence: sc.Evidence.Bounded(eval.MaxText), Usage: sc.Usage,
	}
	if sc.Err != nil {
		r.Error, r.cause = eval.Clip(sc.Err.Error(), eval.MaxText), sc.Err
		if ce, ok := errors.AsType[*judges.CheckerError](sc.Err); ok {
			r.FailedChecker = ce.Checker
		}
	}
	return r
}

// Spent is u without its latency: what a result spent, to sum (a sum of
// latencies of calls made at once means nothing).
func Spent(u eval.Usage) eval.Usage {
	u.Latency = 0
	return u
}

// cachedBefore is u, a result's usage, with the tokens of a reply served
// from the cache as such: a result written before results counted cache
// hits (no cache_hits) that made no call yet has tokens was answered
// from the cache, whose tokens it counted as its own.
func cachedBefore(u eval.Usage) eval.Usage {
	if u.Calls == 0 && u.CacheHits == 0 && (u.TokensIn > 0 || u.TokensOut > 0) {
		u.CacheHits, u.CachedTokensIn, u.CachedTokensOut = 1, u.TokensIn, u.TokensOut
		u.TokensIn, u.TokensOut = 0, 0
	}
	return u
}

// usage is what the metric's results spent.
func (m MetricStats) usage() eval.Usage {
	return eval.Usage{Calls: m.Calls, TokensIn: m.TokensIn, TokensOut: m.TokensOut, CostUSD: m.CostUSD, CostUnknown: m.CostUnknown,
		CacheHits: m.CacheHits, CachedTokensIn: m.CachedTokensIn, CachedTokensOut: m.CachedTokensOut,
		Fingerprints: m.Fingerprints, Seeds: m.Seeds}
}

// Score is the result as the score it was written from (its error as
// text).
func (r Result) Score() eval.Score {
	sc := eval.Score{Metric: r.Metric, Value: r.Value, Points: r.Points, Max: r.Max, Method: r.Method, Reason: r.Reason,
		Defaulted: r.Defaulted, Skipped: r.Skipped, Pass: r.Pass, Evidence: r.Evidence, Usage: r.Usage}
	if r.Error != "" {
		sc.Err = errors.New(r.Error)
	}
	return sc
}

// Counted reports whether the result is a measurement that may enter
// means and pass gates: neither a neutral default nor skipped.
func (r Result) Counted() bool { return !r.Defaulted && !r.Skipped }

// Final reports whether a resumed run keeps the result rather than judge
// its pair again: it is neither a neutral default nor an error (a model
// that was down, a budget that stopped calls). A skipped result is final:
// there was nothing to judge.
func (r Result) Final() bool { return r.Skipped || (!r.Defaulted && r.Error == "") }

// NotEvaluable reports whether the result is a conversation that could
// not be judged (spans without message content: eval.ErrNotEvaluable):
// skipped, counted and shown as not_evaluable, never a value.
func (r Result) NotEvaluable() bool { return r.Skipped && r.Error == eval.NotEvaluable }

// Key identifies a result within a run.
type Key struct{ ID, Metric string }

// Key is the result's (sample, metric) pair.
func (r Result) Key() Key { return Key{r.ID, r.Metric} }

// Config is config.json: what a run was asked to do, enough to resume it
// and to refuse resuming it with anything else.
type Config struct {
	// RunID names the run in the run store and in `assay runs`.
	RunID string `json:"run_id"`
	// Started is when the run was first started (a resume keeps it).
	Started time.Time `json:"started"`
	// Command is the command line, for the record.
	Command []string `json:"command"`
	// Version is Assay's version (module version and commit).
	Version string `json:"version"`
	// Dataset is the dataset's path as given ("-" for standard input) and
	// DatasetSHA256 the hash of its bytes.
	Dataset       string `json:"dataset"`
	DatasetSHA256 string `json:"dataset_sha256"`
	// Profile is "" for judge metrics, or "context" or "research".
	Profile string   `json:"profile,omitempty"`
	Metrics []string `json:"metrics"`
	// Model is the judge ("offline" or "backend:model"), or NoModel when
	// none of the run's metrics calls one; ModelMetrics are those that do.
	Model        string   `json:"model"`
	ModelMetrics []string `json:"model_metrics,omitempty"`
	// Prompts maps each prompt template the run may use to its version.
	Prompts map[string]string `json:"prompts,omitempty"`
	// Settings are the other options that change results (thresholds,
	// --min floors, --strict, --max-default-rate); two runs with other
	// settings are not one run resumed.
	Settings map[string]string `json:"settings,omitempty"`
	// Prices maps each model the run pays for to its price as the run
	// priced it ("in $0.15, out $0.6 per million tokens, batch share
	// 0.5", or "no price"), from the built-in table and --prices; a
	// resume at other prices is refused. Runs written before it have
	// none, and resume at any price.
	Prices map[string]string `json:"prices,omitempty"`
	// Judges are the judges of the run defined in a judges file or a
	// profile, each with its version and the evaluation steps its
	// judgements follow: its own, or those the model wrote once for the
	// run, which a resumed run follows too (KeepSteps).
	Judges []judges.StepsRecord `json:"judges,omitempty"`
	// StepsUsage is what the model spent writing those judges' steps
	// (KeepSteps), over every start of the run; the summary's usage
	// counts it.
	StepsUsage eval.Usage `json:"steps_usage,omitzero"`
}

// Summary is summary.json: the run's figures per metric, its gates and
// alerts, and its comparison with a baseline when one was given.
type Summary struct {
	RunID    string        `json:"run_id"`
	Started  time.Time     `json:"started"`
	Finished time.Time     `json:"finished"`
	Samples  int           `json:"samples"`
	Metrics  []MetricStats `json:"metrics"`
	Gates    []GateResult  `json:"gates,omitempty"`
	// Alerts are seed 002's quality alerts against the baseline.
	Alerts []QualityAlert `json:"alerts,omitempty"`
	// Notices are the metrics whose mean is under seed 002's critical
	// floor with no fall through it (FloorNotices): shown, not failing.
	Notices  []QualityAlert `json:"notices,omitempty"`
	Baseline *Comparison    `json:"baseline,omitempty"`
	// Usage is what the run spent over all its attempts: its results'
	// model calls (a reply from the cache is no call), tokens and cost,
	// those of the results a resume judged again included.
	Usage eval.Usage `json:"usage,omitzero"`
	// Complete is false for a run that stopped before every (sample,
	// metric) pair was judged.
	Complete bool `json:"complete"`
	// Undelivered counts the pairs of a queued run whose tasks' deliveries
	// ran out (MetricStats.Undelivered summed): they fail the run.
	Undelivered int `json:"undelivered,omitempty"`
	// Label names the binary human label the metrics' calibration is
	// measured against (`assay bench --label`); empty without one.
	Label string `json:"label,omitempty"`
	// Limit is what the limit on calls in flight did in the run's last
	// attempt (the one that wrote this file): its levels, halvings and
	// the server's holds; absent when no model was called.
	Limit *llm.LimitReport `json:"limit,omitempty"`
	// Failed are the reasons the run did not pass that Gates and Alerts
	// do not hold (more defaults than allowed, a --min floor, a metric
	// that scored nothing, undelivered pairs), in the order bench found
	// them: a run with any exited non-zero. None for a run that passed,
	// and for a run written before they were kept.
	Failed []Failure `json:"failed,omitempty"`
}

// Failure is one reason in Summary.Failed: its kind, a word or two
// ("too many defaults", judging.FailureKind's), and its message.
type Failure struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// MetricStats are one metric's figures over a run. The statistics are over
// the Scored values only: defaults and skipped samples are counted apart,
// never averaged in. With nothing scored the statistics are null in JSON
// (NaN in Go).
type MetricStats struct {
	Metric string `json:"metric"`
	// N is the number of results; Scored of them were neither defaulted
	// nor skipped.
	N             int     `json:"n"`
	Scored        int     `json:"scored"`
	Defaulted     int     `json:"defaulted"`
	DefaultedRate float64 `json:"defaulted_rate"`
	Skipped       int     `json:"skipped"`
	// NotEvaluable counts, of Skipped, the conversations that could not
	// be judged (Result.NotEvaluable).
	NotEvaluable int `json:"not_evaluable,omitempty"`
	// Errors counts results whose Error is set without being defaulted
	// or skipped.
	Errors int `json:"errors"`
	// Undelivered counts the defaults of pairs a queue gave up delivering
	// (Result.Undelivered).
	Undelivered int `json:"undelivered,omitempty"`
	Mean        Num `json:"mean"`
	Std         Num `json:"std"`
	Median      Num `json:"median"`
	Min         Num `json:"min"`
	Max         Num `json:"max"`
	P10         Num `json:"p10"`
	// CILow and CIHigh are a bootstrap 95% interval of the mean.
	CILow  Num `json:"ci95_low"`
	CIHigh Num `json:"ci95_high"`
	// Threshold is the metric's pass threshold; Passed counts the Scored
	// values that pass (at or above it, or by their card's verdict) and
	// PassRate is their share.
	Threshold float64 `json:"threshold"`
	// ThresholdGrade is the grade of a judges file's scale the threshold
	// stands for ("grade 4 of 1-5", judges.ThresholdGrade), shown beside
	// it; "" for other metrics. summary.json does not keep it.
	ThresholdGrade string `json:"-"`
	Passed         int    `json:"passed"`
	PassRate       Num    `json:"pass_rate"`
	// Calls are the model calls the results made, and TokensIn,
	// TokensOut and CostUSD what they paid: a reply from the cache is no
	// call and costs nothing (CacheHits counts those, CachedTokensIn and
	// CachedTokensOut their tokens).
	Calls     int     `json:"calls"`
	TokensIn  int     `json:"tokens_in"`
	TokensOut int     `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	// CostUnknown says some call went to a model with no price: CostUSD
	// counts the priced ones only, and is shown as unknown.
	CostUnknown     bool `json:"cost_unknown,omitempty"`
	CacheHits       int  `json:"cache_hits,omitempty"`
	CachedTokensIn  int  `json:"cached_tokens_in,omitempty"`
	CachedTokensOut int  `json:"cached_tokens_out,omitempty"`
	// Fingerprints and Seeds are the sets (eval.MergeSet) of the model
	// builds that answered the metric's calls and of the seeds they
	// asked for; absent when the server named none.
	Fingerprints string `json:"fingerprints,omitempty"`
	Seeds        string `json:"seeds,omitempty"`
	// LatencyP50 and LatencyP95 are over the results' model latency.
	LatencyP50 time.Duration `json:"latency_p50_ns"`
	LatencyP95 time.Duration `json:"latency_p95_ns"`
	// Calibration, in a run with a binary human label (Summary.Label), is
	// how well the metric's scored values of the labelled samples, read
	// as the chance that the label is true, match how often it is; absent
	// without a label, or when a value lies outside [0, 1].
	Calibration *stats.Calibration `json:"calibration,omitempty"`
	// Sampled counts the judgements asked more than once (--samples k,
	// judges.Sampled), and Unstable those of them whose samples disagree
	// (judges.Unstable); both are absent from an unsampled run.
	Sampled  int `json:"sampled,omitempty"`
	Unstable int `json:"unstable,omitempty"`
	// WeakPasses counts the sampled judgements that passed in some draws
	// and failed in others (judges.WeakPass); the gate stat weak_passes.
	WeakPasses int `json:"weak_passes,omitempty"`
}

// GateResult is one `--gate 'METRIC.STAT OP NUMBER'` checked against a
// run.
type GateResult struct {
	// Gate is the expression as given.
	Gate   string  `json:"gate"`
	Metric string  `json:"metric"`
	Stat   string  `json:"stat"`
	Op     string  `json:"op"`
	Want   float64 `json:"want"`
	// Got is the run's value of Stat (null when undefined: a mean with
	// nothing scored fails its gate).
	Got    Num  `json:"got"`
	Passed bool `json:"passed"`
	// Reason says why a gate failed: its value, an undefined statistic,
	// or a metric the run does not have.
	Reason string `json:"reason,omitempty"`
}

// Comparison is a run against its baseline, metric by metric.
type Comparison struct {
	// BaselineRunID and BaselineDir name the baseline run.
	BaselineRunID string `json:"baseline_run_id"`
	BaselineDir   string `json:"baseline_dir,omitempty"`
	// Judged says how the baseline was judged otherwise than this run
	// (another model, other prompt versions): its figures then differ
	// for that reason too. Empty when judged alike.
	Judged []string `json:"judged_otherwise,omitempty"`
	// Shared counts the samples both runs have a result of;
	// OnlyBaseline and OnlyCurrent those one has and the other lacks
	// (runs of different datasets, or a run stopped early). When either
	// is not 0, every figure, means included, is over the shared samples.
	Shared       int                `json:"shared_samples"`
	OnlyBaseline int                `json:"only_baseline,omitempty"`
	OnlyCurrent  int                `json:"only_current,omitempty"`
	Metrics      []MetricComparison `json:"metrics"`
	// BaselineOnlyMetrics are the metrics the baseline judged and this
	// run did not, in the baseline's order: not compared, and said so
	// (BaselineOnlyNote), lest a metric dropped from a run vanish from
	// its comparison unseen.
	BaselineOnlyMetrics []string `json:"baseline_only_metrics,omitempty"`
}

// MetricComparison is one metric's change from the baseline.
type MetricComparison struct {
	Metric       string `json:"metric"`
	BaselineMean Num    `json:"baseline_mean"`
	CurrentMean  Num    `json:"current_mean"`
	Delta        Num    `json:"delta"`
	// NotInBaseline is true when the baseline has no result of the
	// metric at all (it never judged it): its mean, the delta and the
	// paired figures are then undefined for that reason (NotInBaselineNote).
	NotInBaseline bool `json:"not_in_baseline,omitempty"`
	// Paired is how many samples both runs scored; Test names the paired
	// test (e.g. "wilcoxon signed-rank" or "paired bootstrap") and P its
	// two-sided p-value over them.
	Paired int    `json:"paired"`
	Test   string `json:"test,omitempty"`
	P      Num    `json:"p_value"`
	// MeanDiff is the mean of the paired differences (current minus
	// baseline) over the Paired samples, DiffLow and DiffHigh its paired
	// bootstrap 95% interval (stats.PairedMeanDiff).
	MeanDiff Num `json:"mean_diff"`
	DiffLow  Num `json:"mean_diff_ci95_low"`
	DiffHigh Num `json:"mean_diff_ci95_high"`
	// Fell are the samples whose value fell most, worst first; Moved
	// lists MaxMoved of those that moved most either way, the largest
	// change first.
	Fell  []SampleChange `json:"fell,omitempty"`
	Moved []SampleChange `json:"moved,omitempty"`
	// NowFailing and NowPassing count the samples both runs scored that
	// flipped: passed in the baseline and fail now, or the other way,
	// under this run's threshold (or the card's verdict, where a card
	// decides). Flipped lists at most MaxFlipped of each way, those now
	// failing first, the largest change first.
	NowFailing int            `json:"now_failing,omitempty"`
	NowPassing int            `json:"now_passing,omitempty"`
	Flipped    []SampleChange `json:"flipped,omitempty"`
	// FlipTest names the test on the flips, McNemar's exact test, and
	// FlipP its two-sided p-value (the exact conditional one), FlipMidP
	// its mid-p-value (stats.McNemar); null when nothing flipped.
	FlipTest string `json:"flip_test,omitempty"`
	FlipP    Num    `json:"flip_p_value"`
	FlipMidP Num    `json:"flip_mid_p"`
}

// SampleChange is one sample's value in both runs.
type SampleChange struct {
	ID       string  `json:"id"`
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	// Flip, in a MetricComparison's Flipped, is FlipFails or FlipPasses.
	Flip string `json:"flip,omitempty"`
}

// How a sample flipped against the baseline (SampleChange.Flip).
const (
	FlipFails  = "fails"  // passed in the baseline, fails now
	FlipPasses = "passes" // failed in the baseline, passes now
)

// Num is a statistic that may be undefined (NaN): JSON null rather than
// the invalid NaN that encoding/json refuses to write.
type Num float64

// MarshalJSON implements json.Marshaler.
func (n Num) MarshalJSON() ([]byte, error) {
	if f := float64(n); math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

// UnmarshalJSON implements json.Unmarshaler: null is NaN.
func (n *Num) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*n = Num(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Num(f)
	return nil
}

// ReadResults reads results.jsonl. A last line without its newline is a
// line torn by a killed run: it is dropped (Torn reports it) so that a
// resume judges that pair again, unless it is a whole result (a file
// saved by hand without a final newline: Unterminated reports it). Any other line that does not parse is an
// error naming the file and line. A pair written twice keeps its last
// line, at the place of its first.
func ReadResults(path string) (*ResultFile, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &ResultFile{Path: path, index: map[Key]int{}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return ReadResultsFrom(path, f)
}

// ResultFile is what ReadResults read.
type ResultFile struct {
	Path string
	// Results in the order of their first line.
	Results []Result
	// Torn is true when the file ended in a partial line, which was
	// dropped; Size is the length of the whole lines, where appending
	// resumes.
	Torn bool
	Size int64
	// Unterminated is true when the file's last line is a whole result
	// without its newline (saved so by hand): it is read, not dropped,
	// and Size counts it; a resume ends it with its newline.
	Unterminated bool
	// Bounded is set when the file was read by ReadResultsBounded.
	Bounded *Bounds
	// Superseded is what the lines that a later line of their pair
	// replaced had spent (a default judged again): what the run spent is
	// that and what Results spent.
	Superseded eval.Usage

	index map[Key]int
	// replaced counts the lines of each pair a later line replaced.
	replaced map[Key]int
	// lines are the numbers of the lines Results were read from.
	lines []int
}

// Bounds is f's bounds, or nil (for a nil f too).
func (f *ResultFile) Bounds() *Bounds {
	if f == nil {
		return nil
	}
	return f.Bounded
}

// Has reports whether the pair has a result.
func (f *ResultFile) Has(k Key) bool {
	_, ok := f.index[k]
	return ok
}

// All yields the results in file order.
func (f *ResultFile) All() iter.Seq[Result] {
	return func(yield func(Result) bool) {
		for _, r := range f.Results {
			if !yield(r) {
				return
			}
		}
	}
}

func ReadResultsFrom(path string, r io.Reader) (*ResultFile, error) {
	out := &ResultFile{Path: path, index: map[Key]int{}}
	err := scanResults(path, r, out, out.add)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// add keeps res, read from line number line, replacing an earlier line
// of the same pair.
func (f *ResultFile) add(line int, res Result) {
	if i, ok := f.index[res.Key()]; ok {
		if f.replaced == nil {
			f.replaced = map[Key]int{}
		}
		f.replaced[res.Key()]++
		f.Superseded = f.Superseded.Add(Spent(f.Results[i].Usage))
		f.Results[i], f.lines[i] = res, line
		return
	}
	f.index[res.Key()] = len(f.Results)
	f.Results = append(f.Results, res)
	f.lines = append(f.lines, line)
}

// scanResults reads the whole lines of results.jsonl from r, handing each
// result and its line number to fn and noting in out whether the last
// line was torn and the length of the whole lines.
func scanResults(path string, r io.Reader, out *ResultFile, fn func(line int, res Result)) error {
	return scanLines(path, r, out, func(line int, b []byte) error {
		res, err := decodeResult(path, line, b)
		if err == nil {
			fn(line, res)
		}
		return err
	})
}

// scanLines hands each whole, non-blank line of results.jsonl read from
// r to fn with its number, noting in out whether the last line was torn
// and the length of the whole lines. The line fn is handed is valid only
// until fn returns.
func scanLines(path string, r io.Reader, out *ResultFile, fn func(line int, b []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: its start is copied out of
			// the buffer before the rest is read into it.
			var rest []byte
			b = bytes.Clone(b)
			rest, err = br.ReadBytes('\n')
			b = append(b, rest...)
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			if !wholeResult(b) {
				out.Torn = true // a last line cut off mid-write
				return nil
			}
			// A whole result without its newline (a file edited by
			// hand, saved without a final newline) is a line.
			out.Unterminated = true
		}
		if len(b) > 0 {
			out.Size += int64(len(b))
			if trimmed := bytes.TrimSpace(b); len(trimmed) > 0 {
				if ferr := fn(line, trimmed); ferr != nil {
					return ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// wholeResult reports whether b, a last line without its newline, is a
// whole result line nonetheless: a write cut short never leaves one (its
// newline is the last byte of its one write), a file saved by hand may.
func wholeResult(b []byte) bool {
	var res Result
	t := bytes.TrimSpace(b)
	return len(t) > 0 && t[len(t)-1] == '}' && json.Unmarshal(t, &res) == nil && res.ID != "" && res.Metric != ""
}

// decodeResult is b, line number line of results.jsonl at path.
func decodeResult(path string, line int, b []byte) (Result, error) {
	var res Result
	if err := json.Unmarshal(b, &res); err != nil {
		return Result{}, resultLineError(path, line, err)
	}
	if err := checkKey(path, line, res.ID, res.Metric); err != nil {
		return Result{}, err
	}
	res.Usage = cachedBefore(res.Usage)
	return res, nil
}

// head is what the passes over results.jsonl that only count and rank
// need of a line; decoding no more than that skips building evidence.
type head struct {
	ID        string  `json:"id"`
	Metric    string  `json:"metric"`
	Value     float64 `json:"value"`
	Defaulted bool    `json:"defaulted"`
	Skipped   bool    `json:"skipped"`
	Error     string  `json:"error"`
}

// resultLineError is the error of line number line of results.jsonl at
// path, which did not decode (err): a value of the wrong kind is named by
// its field, as the line spells it.
func resultLineError(path string, line int, err error) error {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		return &eval.InputError{File: path, Line: line, Field: te.Field, Msg: fmt.Sprintf("not a result line: want %s, got %s", eval.JSONType(te.Type), te.Value), Err: err}
	}
	return &eval.InputError{File: path, Line: line, Msg: "not a result line: " + err.Error(), Err: err}
}

// checkKey is the error of line number line of results.jsonl at path,
// whose pair is id and metric, when either is missing, naming the one.
func checkKey(path string, line int, id, metric string) error {
	field := ""
	switch {
	case id == "":
		field = "id"
	case metric == "":
		field = "metric"
	default:
		return nil
	}
	return &eval.InputError{File: path, Line: line, Field: field, Msg: "missing: a result line needs id and metric"}
}

// decodeHead is b, line number line of results.jsonl at path, as a
// Result holding only its head's fields.
func decodeHead(path string, line int, b []byte) (Result, error) {
	var h head
	if err := json.Unmarshal(b, &h); err != nil {
		return Result{}, resultLineError(path, line, err)
	}
	if err := checkKey(path, line, h.ID, h.Metric); err != nil {
		return Result{}, err
	}
	return Result{ID: h.ID, Metric: h.Metric, Value: h.Value, Defaulted: h.Defaulted, Skipped: h.Skipped, Error: h.Error}, nil
}

// scanHeads is scanLines over the file at path, handing fn each line's
// head (decodeHead) and the line, which fn may decode whole while it
// runs.
func scanHeads(path string, out *ResultFile, fn func(line int, h Result, b []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only
	if out == nil {
		out = &ResultFile{}
	}
	return scanLines(path, f, out, func(line int, b []byte) error {
		h, err := decodeHead(path, line, b)
		if err != nil {
			return err
		}
		return fn(line, h, b)
	})
}

// EachResult hands each result of results.jsonl at path to fn in file
// order, one at a time, holding none: a torn last line is left out, a
// line that a later line of its pair supersedes too (see Result), and a
// line that does not parse is an error naming the file and line. It reads
// the file twice, holding in between only the pairs written more than
// once.
func EachResult(path string, fn func(Result)) error {
	last, err := lastLines(path)
	if err != nil {
		return fmt.Errorf("reading results: %w", err)
	}
	if err := scanFile(path, nil, last.keep(fn)); err != nil {
		return fmt.Errorf("reading results: %w", err)
	}
	return nil
}

// scanFile is scanResults over the file at path.
func scanFile(path string, out *ResultFile, fn func(line int, res Result)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only
	if out == nil {
		out = &ResultFile{}
	}
	return scanResults(path, f, out, fn)
}

// supersession maps each pair that results.jsonl may hold more than once
// to the number of its last line: the line that counts.
type supersession map[Key]int

// lastLines reads results.jsonl at path for the pairs written more than
// once. A run writes a pair again only after a result that is not final
// (Result.Final), so only the pairs with such a line are held: memory is
// in the number of defaults and errors, not in the run's size.
func lastLines(path string) (supersession, error) {
	last := supersession{}
	err := scanHeads(path, nil, func(line int, r Result, _ []byte) error {
		if _, ok := last[r.Key()]; ok || !r.Final() {
			last[r.Key()] = line
		}
		return nil
	})
	return last, err
}

// keep wraps fn to hand it only the lines that count: the last of each
// pair.
func (s supersession) keep(fn func(Result)) func(int, Result) {
	return func(line int, r Result) {
		if l, ok := s[r.Key()]; !ok || l == line {
			fn(r)
		}
	}
}

// Bounds describes a ResultFile read by ReadResultsBounded: Results hold
// the Shown samples' results, and the rest of the fields cover the whole
// file.
type Bounds struct {
	// Shown is how many samples Results hold; Lowest how many of each
	// metric's lowest were asked for, and Also how many of the samples
	// asked for besides (flipped against a baseline) the file holds.
	Shown, Lowest, Also int
	// Bins are every counted value's bin, by metric, for distributions.
	Bins map[string]Bins
	// Defaulted, Skipped and Errors count the whole file's results;
	// NotEvaluable, of Skipped, those not evaluable.
	Defaulted, Skipped, Errors, NotEvaluable int
}

// ReadResultsBounded reads results.jsonl in passes that hold about show
// samples' results a metric: for each metric the show samples of lowest
// value (a defaulted, skipped or failed result counting as lowest; ties to
// the first in SampleOrder), and the samples named in also (those that
// flipped pass/fail against a baseline), all their results, in file
// order, with Bounded describing the whole file. It is how a run of any
// size gets a report of the samples worth reading in flat memory: the
// distributions are kept as bin counts. A line that a later line of its
// pair supersedes is left out (see Result).
func ReadResultsBounded(path string, show int, also ...string) (*ResultFile, error) {
	last, err := lastLines(path)
	if err != nil {
		return nil, err
	}
	return bounded(path, show, also, func(out *ResultFile, fn func(line int, h Result, full func() (Result, error)) error) error {
		return scanHeads(path, out, func(line int, h Result, b []byte) error {
			if l, ok := last[h.Key()]; ok && l != line {
				return nil
			}
			return fn(line, h, func() (Result, error) { return decodeResult(path, line, b) })
		})
	})
}

// bounded is ReadResultsBounded over the lines pass hands out, twice: the
// head of each line that counts (the last of its pair), with the line's
// whole result on demand.
func bounded(path string, show int, also []string, pass func(out *ResultFile, fn func(line int, h Result, full func() (Result, error)) error) error) (*ResultFile, error) {
	show = max(show, 1)
	b := &Bounds{Bins: map[string]Bins{}, Lowest: show}
	// The samples that may be shown, by metric: value by id, and the ids
	// in file order.
	worst := map[string]map[string]float64{}
	order := map[string][]string{}
	seen := &ResultFile{index: map[Key]int{}}
	err := pass(seen, func(_ int, r Result, _ func() (Result, error)) error {
		v := r.Value
		switch {
		case r.Defaulted:
			b.Defaulted++
			v = -1
		case r.Skipped:
			b.Skipped++
			if r.NotEvaluable() {
				b.NotEvaluable++
			}
			v = -1
		case r.Error != "":
			b.Errors++
			v = -1
		default:
			bins := b.Bins[r.Metric]
			bins.Add(r.Value)
			b.Bins[r.Metric] = bins
		}
		w := worst[r.Metric]
		if w == nil {
			w = map[string]float64{}
			worst[r.Metric] = w
		}
		if _, ok := w[r.ID]; !ok {
			order[r.Metric] = append(order[r.Metric], r.ID)
		}
		w[r.ID] = v // a pair has one line that counts
		if len(w) > 4*show+1024 {
			worst[r.Metric], order[r.Metric] = lowest(w, order[r.Metric], show)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	shown := map[string]bool{}
	for m, w := range worst {
		w, _ = lowest(w, order[m], show)
		for id := range w {
			shown[id] = true
		}
	}
	extra := map[string]bool{}
	for _, id := range also {
		if !shown[id] {
			extra[id] = false // true once the file has it
		}
	}
	// Most runs show every pair of the samples they show: room for them,
	// up to what a run holds (a caller's long list of extra ids makes no
	// more).
	pairs := min((len(shown)+len(extra))*max(1, len(worst)), MaxHeld)
	out := &ResultFile{Path: path, index: make(map[Key]int, pairs), Results: make([]Result, 0, pairs), lines: make([]int, 0, pairs)}
	if err := pass(out, func(line int, h Result, full func() (Result, error)) error {
		_, also := extra[h.ID]
		if !shown[h.ID] && !also {
			return nil
		}
		r, err := full()
		if err != nil {
			return err
		}
		if also {
			extra[h.ID] = true
		}
		out.add(line, r)
		return nil
	}); err != nil {
		return nil, err
	}
	for _, found := range extra {
		if found {
			b.Also++
		}
	}
	b.Shown = len(shown) + b.Also
	out.Bounded = b
	return out, nil
}

// lowest keeps the show ids of lowest value, ties to the first in
// SampleOrder (never the order the results were written in, which is the
// order a parallel run finished in), and their order.
func lowest(worst map[string]float64, order []string, show int) (map[string]float64, []string) {
	if len(worst) <= show {
		return worst, order
	}
	ids := slices.Clone(order)
	slices.SortFunc(ids, func(a, b string) int { return cmp.Or(cmp.Compare(worst[a], worst[b]), SampleOrder(a, b)) })
	kept := make(map[string]float64, show)
	for _, id := range ids[:show] {
		kept[id] = worst[id]
	}
	keptOrder := make([]string, 0, show)
	for _, id := range order {
		if _, ok := kept[id]; ok {
			keptOrder = append(keptOrder, id)
		}
	}
	return kept, keptOrder
}

// SampleOrder compares two sample ids the way a report lists samples: as
// text, except that runs of digits compare as numbers, so that "s2" comes
// before "s10" and "line-9" before "line-10". For ids numbered in the
// order of their dataset, and for records without an id (named line-N),
// it is the dataset's order; in any case it is fixed, never the order a
// run's judgements finished in. Ids equal but for leading zeros ("s2",
// "s02") compare as text.
func SampleOrder(a, b string) int {
	return cmp.Or(naturalCompare(a, b), strings.Compare(a, b))
}

func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitRun is the length of the run of ASCII digits s begins with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// Bins counts values in [0, 1] in ten bins of equal width, the last
// holding 1: a distribution kept in constant memory.
type Bins [10]int

// Add counts v.
func (b *Bins) Add(v float64) {
	i := int(math.Floor(v * float64(len(b))))
	b[min(max(i, 0), len(b)-1)]++
}
