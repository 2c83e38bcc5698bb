package align

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/atomicfile"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/stats"
)

// Bootstrap resamples of every interval.
const reps = 2000

// Agreement is a judge's agreement with the held-out labels: the mean
// per record (the share it got right for a binary label; 1 less the
// distance in grades over the scale's span for a graded one) and its
// bootstrap 95% interval.
type Agreement struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Lo, Hi float64 `json:"-"`
}

// Search says what the search tried and what it spent.
type Search struct {
	// Candidates are the judges scored on the training part (the one as
	// it was among them); Criteria the rewrites of the criterion, Rubrics
	// the rubrics written, Examples the few-shot sets drawn, Thresholds
	// the thresholds tried (no call each).
	Candidates, Criteria, Rubrics, Examples, Thresholds int
	// Usage is the client's: calls, tokens and cache hits.
	Usage eval.Usage
	// CostUSD is what the calls cost, when Known.
	CostUSD float64
	Known   bool
}

// Outcome is what Align found.
type Outcome struct {
	Judge, File, Label string
	Graded             bool
	Train, Heldout     int
	Seed               uint64
	Holdout            float64
	// Before is the judge as it was on the held-out records, After the
	// aligned one, on the records both judged; Diff is After less Before,
	// paired, with its bootstrap 95% interval.
	Before, After Agreement
	Diff          stats.PairedDiff
	// Aligned is the best candidate on the training part, What how it
	// differs from the judge as it was.
	Aligned *judges.Definition
	What    string
	// Gain is true when Diff's interval lies above 0; the aligned judge
	// was then written to Written.
	Gain    bool
	Written string
	Search  Search
	// Judged and Failed count the judgements and those that failed;
	// FirstFailure is why the first did. Failed is the run failing when
	// they are more than the job's rules allow: then no gain is claimed.
	Judged, Failures int
	FirstFailure     string
	Failed           string
	// DryRun is a plan: Planned calls, none made.
	DryRun  bool
	Planned int
}

// Align aligns the judge of job with its labels (see the package
// comment). The error is an *eval.InputError for bad input or settings,
// or another error when the run could not go on (the model refused the
// key, the context ended). A run that ended is an Outcome: Gain says
// whether the held-out difference supports the aligned judge (then
// written to job.Out), Failed whether too many judgements failed.
func Align(ctx context.Context, job Job) (*Outcome, error) {
	if err := eval.CheckContext(ctx); err != nil {
		return nil, err
	}
	job.Env, job.Log = judging.Env(job.Env), judging.Writer(job.Log)
	if err := job.check(); err != nil {
		return nil, err
	}
	def, err := job.definition()
	if err != nil {
		return nil, err
	}
	lab, err := job.read(def)
	if err != nil {
		return nil, err
	}
	train, held := split(lab.rows, job.holdout, job.Seed)
	out := &Outcome{Judge: def.Name, File: lab.file, Label: job.Label, Graded: lab.graded, Train: len(train), Heldout: len(held), Seed: job.Seed, Holdout: job.holdout}
	if job.Judging.DryRun {
		out.DryRun, out.Planned = true, job.planned(def, len(train), len(held))
		return out, nil
	}
	s, err := job.Judging.Open(job.Log, job.Env)
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.Close() }()
	if judges.Offline(s.Model()) {
		return nil, fmt.Errorf("%s: %w", def.Name, judges.ErrNeedsModel)
	}
	a := &aligner{job: job, model: s.Model(), limit: s.Limit(), graded: lab.graded}
	best, err := a.searchTrain(ctx, def, train)
	if err != nil {
		return nil, err
	}
	out.Aligned, out.What = best.def, best.what
	if err := a.heldout(ctx, out, def, best.def, held); err != nil {
		return nil, err
	}
	out.Search = a.search
	out.Search.Usage = s.Client().Usage()
	out.Search.CostUSD, out.Search.Known = s.Client().Spent()
	out.Judged, out.Failures, out.FirstFailure = a.judged, a.failed, a.first
	if limit := job.Judging.MaxDefaultRate; out.Failures > 0 && (job.Judging.Strict || float64(out.Failures) > limit*float64(out.Judged)) {
		out.Failed = fmt.Sprintf("%d of %d judgements failed, more than --max-default-rate %g allows (first: %s)", out.Failures, out.Judged, limit, out.FirstFailure)
		return out, nil
	}
	out.Gain = best.def != def && out.Diff.Lo > 0
	if out.Gain {
		if err := atomicfile.Write(job.Out, 0o644, func(w io.Writer) error {
			return judges.WriteDefinitions(w, []*judges.Definition{best.def})
		}); err != nil {
			return nil, fmt.Errorf("align: write %s: %w", job.Out, err)
		}
		out.Written = job.Out
	}
	return out, nil
}

// planned is the most calls Align makes for def with train and held
// rows, with no cache to help: each candidate judges the training rows
// and writes its steps when the judge has none (a judge built anew
// writes them anew); there are at most the judge as it was, three
// rewrites, a rubric for a graded scale and a few-shot set per two
// examples. With a second candidate the proposals read the judge's
// grades once more and ask once for rewrites and, graded, once for a
// rubric; both judges grade the held-out rows, each writing its steps.
func (job Job) planned(def *judges.Definition, train, held int) int {
	steps := 0
	if def.Steps == nil {
		steps = 1
	}
	per := train + steps
	most := 1 + 3 + job.examples/2
	if !def.Scale.PassFail {
		most++
	}
	calls := min(job.candidates, most)*per + 2*(held+steps)
	if job.candidates > 1 {
		calls += per + 1
		if !def.Scale.PassFail {
			calls++
		}
	}
	return calls
}

// heldout measures the judge as it was and the aligned one on the
// held-out rows both judged, and their paired difference.
func (a *aligner) heldout(ctx context.Context, out *Outcome, orig, aligned *judges.Definition, held []row) error {
	before, err := a.scores(ctx, orig, held)
	if err != nil {
		return err
	}
	after := before
	if aligned != orig {
		if after, err = a.scores(ctx, aligned, held); err != nil {
			return err
		}
	}
	b := a.agreement(orig.Scale, orig.Threshold, held, before)
	f := a.agreement(aligned.Scale, aligned.Threshold, held, after)
	var pb, pf []float64
	for i := range b {
		if !math.IsNaN(b[i]) && !math.IsNaN(f[i]) {
			pb, pf = append(pb, b[i]), append(pf, f[i])
		}
	}
	out.Before, out.After = agreementOf(pb, a.job.Seed), agreementOf(pf, a.job.Seed)
	out.Diff = stats.PairedMeanDiff(pb, pf, reps, a.job.Seed)
	return nil
}

// agreementOf is the mean of x with its bootstrap interval.
func agreementOf(x []float64, seed uint64) Agreement {
	g := Agreement{N: len(x), Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if len(x) == 0 {
		return g
	}
	g.Mean = mean(x, nil, nil)
	g.Lo, g.Hi = stats.BootstrapMean(x, reps, seed)
	return g
}
