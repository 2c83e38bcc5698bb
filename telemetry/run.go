package telemetry

import (
	"context"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/assaylabs/assay/eval"
)

// Attributes of Assay's own spans and events.
const (
	KeyRunID       = attribute.Key("assay.run.id")
	KeyDataset     = attribute.Key("assay.dataset")
	KeyMetrics     = attribute.Key("assay.metrics")
	KeyRecords     = attribute.Key("assay.run.records")
	KeyJudged      = attribute.Key("assay.run.judged")
	KeyFailures    = attribute.Key("assay.run.failures")
	KeySampleID    = attribute.Key("assay.sample.id")
	KeySampleLine  = attribute.Key("assay.sample.line")
	KeyScoreMethod = attribute.Key("assay.score.method")
)

// EventEvaluation is the GenAI conventions' event for one evaluation.
const EventEvaluation = "gen_ai.evaluation.result"

// The score labels of an evaluation event: a counted score passes or
// fails its metric's threshold (or its card's verdict); a defaulted one
// is the neutral default of a judge that failed; a skipped one had
// nothing to judge.
const (
	LabelPass      = "pass"
	LabelFail      = "fail"
	LabelDefaulted = "defaulted"
	LabelSkipped   = "skipped"
)

// MaxExplanation is the most bytes of a score's reason an evaluation event
// carries (eval.Clip marks the cut).
const MaxExplanation = 1024

// Run is the span of one run (a bench run, a judge run).
type Run struct{ span trace.Span }

// RunEnd is what a run did, for its span's last attributes.
type RunEnd struct {
	// ID is the run's id, when it keeps one.
	ID string
	// Records is the dataset's size; Judged the records judged.
	Records, Judged int
	// Failures are why the run did not pass (judging.FailureKind names).
	Failures []string
	// Err is the error that stopped it.
	Err error
}

// StartRun opens the span of a run named name ("assay.bench") over the
// dataset with metrics (dataset "": samples that came in a request, no
// file); the context it returns carries it, so each sample and model call
// of the run is its child.
func StartRun(ctx context.Context, name, dataset string, metrics []string) (context.Context, *Run) {
	attrs := []attribute.KeyValue{KeyMetrics.StringSlice(metrics)}
	if dataset != "" {
		attrs = append(attrs, KeyDataset.String(dataset))
	}
	ctx, span := tracer().Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, &Run{span: span}
}

// End closes the run's span: an error status when the run stopped on an
// error or did not pass.
func (r *Run) End(e RunEnd) {
	defer r.span.End()
	if !r.span.IsRecording() {
		return
	}
	if e.ID != "" {
		r.span.SetAttributes(KeyRunID.String(e.ID))
	}
	r.span.SetAttributes(KeyRecords.Int(e.Records), KeyJudged.Int(e.Judged))
	switch {
	case e.Err != nil:
		r.span.SetAttributes(semconv.ErrorTypeKey.String(ErrorType(e.Err)))
		r.span.SetStatus(codes.Error, e.Err.Error())
	case len(e.Failures) > 0:
		r.span.SetAttributes(KeyFailures.StringSlice(e.Failures))
		r.span.SetStatus(codes.Error, "run did not pass: "+e.Failures[0])
	}
}

// Sample is the span of one sample while its scorers run. Its methods are
// safe for concurrent use; a nil Sample (tracing off or not sampled) does
// nothing.
type Sample struct {
	span trace.Span
	left atomic.Int32
	once sync.Once
}

// StartSample opens the span of the sample id (line of its dataset, 0 when
// unknown) that scorers scorers will judge, each calling Done once; the
// last Done ends it. With no scorers it ends at once. The context it
// returns is the one to judge with.
func StartSample(ctx context.Context, id string, line, scorers int) (context.Context, *Sample) {
	ctx, span := tracer().Start(ctx, "assay.sample")
	if !span.IsRecording() {
		return ctx, nil // nothing to say, nor to end
	}
	span.SetAttributes(KeySampleID.String(id), KeySampleLine.Int(line))
	s := &Sample{span: span}
	s.left.Store(int32(scorers))
	if scorers <= 0 {
		span.End()
	}
	return ctx, s
}

// Done says one scorer of the sample finished, with the error that
// stopped it (not a judge failure, which is a defaulted score). The first
// error sets the span's error status.
func (s *Sample) Done(err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.once.Do(func() {
			s.span.SetAttributes(semconv.ErrorTypeKey.String(ErrorType(err)))
			s.span.SetStatus(codes.Error, err.Error())
		})
	}
	if s.left.Add(-1) == 0 {
		s.span.End()
	}
}

type thresholdKey struct{}

// WithThreshold returns ctx carrying the pass threshold of each metric,
// which Evaluated labels scores by; without one a score passes at 0.5.
func WithThreshold(ctx context.Context, threshold func(metric string) float64) context.Context {
	return context.WithValue(ctx, thresholdKey{}, threshold)
}

// Evaluated adds one gen_ai.evaluation.result event per score to the span
// of ctx (a sample's): gen_ai.evaluation.name (the metric),
// gen_ai.evaluation.score.value (a counted score's value in [0, 1]),
// gen_ai.evaluation.score.label (pass, fail, defaulted or skipped),
// gen_ai.evaluation.explanation (the reason, at most MaxExplanation
// bytes), and error.type for a judge that failed.
func Evaluated(ctx context.Context, scores ...eval.Score) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	threshold, _ := ctx.Value(thresholdKey{}).(func(string) float64)
	for _, sc := range scores {
		attrs := []attribute.KeyValue{semconv.GenAIEvaluationName(sc.Metric)}
		label := LabelSkipped
		switch {
		case sc.Defaulted:
			label = LabelDefaulted
			if sc.Err != nil {
				attrs = append(attrs, semconv.ErrorTypeKey.String(ErrorType(sc.Err)))
			}
		case !sc.Skipped:
			label = LabelFail
			if passes(sc, threshold) {
				label = LabelPass
			}
			attrs = append(attrs, semconv.GenAIEvaluationScoreValue(sc.Value))
		}
		attrs = append(attrs, semconv.GenAIEvaluationScoreLabel(label))
		if sc.Reason != "" {
			attrs = append(attrs, semconv.GenAIEvaluationExplanation(eval.Clip(sc.Reason, MaxExplanation)))
		}
		if sc.Method != "" {
			attrs = append(attrs, KeyScoreMethod.String(sc.Method))
		}
		span.AddEvent(EventEvaluation, trace.WithAttributes(attrs...))
	}
}

// passes reports whether a counted score passes: its card's verdict when
// it has one, else its value against its metric's threshold (0.5 without
// one), as a run's summary counts it.
func passes(sc eval.Score, threshold func(string) float64) bool {
	if sc.Pass != nil {
		return *sc.Pass
	}
	t := 0.5
	if threshold != nil {
		t = threshold(sc.Metric)
	}
	return sc.Value >= t
}

// Scorers returns scorers each adding its score to the span of the
// context it is called with (Evaluated).
func Scorers(scorers []eval.Scorer) []eval.Scorer {
	out := make([]eval.Scorer, len(scorers))
	for i, sc := range scorers {
		out[i] = evaluated{sc}
	}
	return out
}

// evaluated is a Scorer whose scores are evaluation events.
type evaluated struct{ eval.Scorer }

func (e evaluated) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	sc, err := e.Scorer.Score(ctx, s)
	if err == nil {
		Evaluated(ctx, sc)
	}
	return sc, err
}
