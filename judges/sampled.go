package judges

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"

	"github.com/montanaflynn/stats"

	"github.com/assaylabs/assay/eval"
	astats "github.com/assaylabs/assay/stats"
)

// SampleTemperature is the temperature of every request of a sampled
// judgement (see Sampled): above 0, so that k asks can differ.
const SampleTemperature = 0.7

// UnstableStd is the spread of a sampled judgement's values (their
// population standard deviation, on the 0..1 scale) above which it is
// unstable; see Unstable.
const UnstableStd = 0.1

// Evidence counts a sampled judgement adds (see Sampled).
const (
	CountSamples       = "samples"
	CountSpreadStd     = "spread_std"
	CountMajorityShare = "majority_share"
	// CountSamplesDefaulted is how many of the k asks fell back on the
	// neutral default; they are left out of the value and the spread.
	CountSamplesDefaulted = "samples_defaulted"
	// CountDrawPasses is how many of the answered asks passed at the
	// threshold (value >= Threshold), and CountDrawPassRate that share
	// of them, with CountDrawPassLo and CountDrawPassHi its 95% Wilson
	// interval: how firmly the sample passes across the draws.
	CountDrawPasses   = "draw_passes"
	CountDrawPassRate = "draw_pass_rate"
	CountDrawPassLo   = "draw_pass_lo"
	CountDrawPassHi   = "draw_pass_hi"
)

// sampleKey carries the index of the ask in a sampled judgement.
type sampleKey struct{}

// withSample returns ctx telling Ask that its requests are ask i of a
// sampled judgement.
func withSample(ctx context.Context, i int) context.Context {
	return context.WithValue(ctx, sampleKey{}, i)
}

// sampleOf returns the index of the ask ctx belongs to, and whether it
// belongs to a sampled judgement at all.
func sampleOf(ctx context.Context) (int, bool) {
	i, ok := ctx.Value(sampleKey{}).(int)
	return i, ok
}

// ErrOfflineSamples is returned by CheckSamples for k > 1 with an offline
// model: its judges are deterministic, so every ask would be the same.
var ErrOfflineSamples = errors.New("--samples above 1 needs a model: the offline judges are deterministic, every sample would be the same; give --llm (or $ASSAY_LLM, $OPENAI_API_KEY) or drop --samples")

// MaxSamples is the most asks per judgement: self-consistency is
// measured on a few (5 to 40 in the literature); far more is a slip of
// the keyboard, which would ask one judgement's model for ever and keep a
// dry run counting.
const MaxSamples = 100

// CheckSamples vets a number of samples per judgement for model m: 1 to
// MaxSamples, and 1 when m is offline (ErrOfflineSamples).
func CheckSamples(k int, m Model) error {
	if k < 1 {
		return fmt.Errorf("--samples %d: ask the model at least once per judgement (1, the default, or more to measure self-consistency)", k)
	}
	if k > MaxSamples {
		return fmt.Errorf("--samples %d: want at most %d asks per judgement (5 to 20 measure self-consistency)", k, MaxSamples)
	}
	if k > 1 && Offline(m) {
		return fmt.Errorf("--samples %d: %w", k, ErrOfflineSamples)
	}
	return nil
}

// Sampled is a judge asked K times per judgement, to measure its
// self-consistency. Each ask runs Scorer with every model request at
// SampleTemperature and its seed set to the ask's index, so that the asks
// differ and each is cached apart (the seed is part of the cache key).
//
// The result is the majority grade when the judge grades on a short scale
// of whole points (Max from 2 to 10, e.g. 1-5), else the mean of the
// values. Its
// evidence is that of an ask agreeing with the result, with the counts
// CountSamples, CountSpreadStd (population standard deviation of the
// values), CountMajorityShare (the share of asks giving the majority
// grade, or for a ratio the majority verdict at Threshold) and
// CountSamplesDefaulted. Usage is the sum of the asks'. Asks that fell
// back on the neutral default are left out; when all did, the first
// default is returned. A skipped judgement (nothing to judge) is returned
// as it is: the asks would skip alike.
//
// K below 2 runs Scorer once, unchanged.
type Sampled struct {
	Scorer eval.Scorer
	K      int
	// Threshold is the pass mark of a ratio judgement's verdict (value >=
	// Threshold passes); zero means 0.5.
	Threshold float64
}

// Score asks the judge K times, one after another, and combines the asks.
func (s Sampled) Score(ctx context.Context, sample eval.Sample) (eval.Score, error) {
	if s.K < 2 {
		return s.Scorer.Score(ctx, sample)
	}
	var asks []eval.Score
	var usage eval.Usage
	var first eval.Score
	for i := range s.K {
		sc, err := s.Scorer.Score(withSample(ctx, i), sample)
		if err != nil {
			return eval.Score{}, err
		}
		if sc.Skipped {
			return sc, nil
		}
		if i == 0 {
			first = sc
		}
		usage = usage.Add(sc.Usage)
		if !sc.Defaulted {
			asks = append(asks, sc)
		}
	}
	defaulted := s.K - len(asks)
	if len(asks) == 0 {
		first.Usage = usage
		first.Evidence.Counts = withCounts(first.Evidence.Counts, map[string]float64{
			CountSamples: float64(s.K), CountSamplesDefaulted: float64(defaulted),
		})
		first.Reason = fmt.Sprintf("all %d samples failed; %s", s.K, first.Reason)
		return first, nil
	}
	// The population deviation: the k asks are all there is, not a
	// sample of a larger set.
	spread, _ := stats.StandardDeviationPopulation(values(asks))
	out := s.combine(asks)
	out.Usage = usage
	passes := s.passes(asks)
	lo, hi := astats.Wilson(passes, len(asks), astats.Z95)
	out.Evidence.Counts = withCounts(out.Evidence.Counts, map[string]float64{
		CountSamples:          float64(s.K),
		CountSpreadStd:        spread,
		CountMajorityShare:    s.majorityShare(asks),
		CountSamplesDefaulted: float64(defaulted),
		CountDrawPasses:       float64(passes),
		CountDrawPassRate:     float64(passes) / float64(len(asks)),
		CountDrawPassLo:       lo,
		CountDrawPassHi:       hi,
	})
	return out, nil
}

// threshold is the pass mark of an ask's value.
func (s Sampled) threshold() float64 {
	if s.Threshold == 0 {
		return 0.5
	}
	return s.Threshold
}

// passes is how many asks passed at the threshold.
func (s Sampled) passes(asks []eval.Score) int {
	n := 0
	for _, a := range asks {
		if a.Value >= s.threshold() {
			n++
		}
	}
	return n
}

// WeakPass reports whether a sampled judgement passed in some of its
// answered draws and failed in others (CountDrawPasses above 0 and below
// the asks answered): a verdict that does not hold still. A score that
// was not sampled, or written before draws were counted, never is.
func WeakPass(sc eval.Score) bool {
	c := sc.Evidence.Counts
	passes, ok := c[CountDrawPasses]
	if c[CountSamples] < 2 || !ok {
		return false
	}
	answered := c[CountSamples] - c[CountSamplesDefaulted]
	return passes > 0 && passes < answered
}

// combine returns the ask the result rests on, with the combined value.
func (s Sampled) combine(asks []eval.Score) eval.Score {
	if graded(asks) {
		g, n := majority(points(asks))
		for _, a := range asks {
			if a.Points == g {
				a.Reason = fmt.Sprintf("majority grade %g, given by %d of %d samples; %s", g, n, len(asks), a.Reason)
				return a
			}
		}
	}
	// Mean fails only on an empty list, and asks has one ask at least.
	v, _ := stats.Mean(values(asks))
	p, _ := stats.Mean(points(asks))
	// The evidence shown is that of the ask nearest the mean.
	best := asks[0]
	for _, a := range asks[1:] {
		if math.Abs(a.Value-v) < math.Abs(best.Value-v) {
			best = a
		}
	}
	best.Value, best.Points = v, p
	best.Reason = fmt.Sprintf("mean of %d samples (the evidence is the nearest sample's); %s", len(asks), best.Reason)
	return best
}

// majorityShare is the share of asks agreeing with the majority: the same
// grade on a graded scale, else the same verdict at the threshold.
func (s Sampled) majorityShare(asks []eval.Score) float64 {
	if graded(asks) {
		_, n := majority(points(asks))
		return float64(n) / float64(len(asks))
	}
	pass := s.passes(asks)
	return float64(max(pass, len(asks)-pass)) / float64(len(asks))
}

// Unstable reports whether a sampled judgement's asks disagree: the
// majority share below 1 (some ask gave another grade or verdict) or the
// values' standard deviation above UnstableStd. A score that was not
// sampled is never unstable.
func Unstable(sc eval.Score) bool {
	c := sc.Evidence.Counts
	if c[CountSamples] < 2 {
		return false
	}
	share, hasShare := c[CountMajorityShare]
	return (hasShare && share < 1) || c[CountSpreadStd] > UnstableStd
}

// graded reports whether the asks grade on a short scale of whole points
// (Max above 1 and at most 10: 1-5, 0-3), where the majority grade is the
// result; a 0-100 rubric total is averaged like a ratio.
func graded(asks []eval.Score) bool {
	for _, a := range asks {
		if a.Max <= 1 || a.Max > 10 || a.Points != math.Trunc(a.Points) {
			return false
		}
	}
	return true
}

// majority returns the most frequent of xs and how many times it occurs;
// of tied ones, the lowest ("when in doubt", the stricter grade).
func majority(xs []float64) (float64, int) {
	counts := map[float64]int{}
	for _, x := range xs {
		counts[x]++
	}
	best, n := 0.0, 0
	for x, c := range counts {
		if c > n || (c == n && x < best) {
			best, n = x, c
		}
	}
	return best, n
}

func values(asks []eval.Score) []float64 {
	out := make([]float64, len(asks))
	for i, a := range asks {
		out[i] = a.Value
	}
	return out
}

func points(asks []eval.Score) []float64 {
	out := make([]float64, len(asks))
	for i, a := range asks {
		out[i] = a.Points
	}
	return out
}

// withCounts returns a copy of base with add set: the asks' maps are
// their own, never shared.
func withCounts(base, add map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(base)+len(add))
	maps.Copy(out, base)
	maps.Copy(out, add)
	return out
}
