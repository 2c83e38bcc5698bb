package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
	prog "github.com/assaylabs/assay/internal/progress"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
)

// Session is an open model client of a Judging, for a run made outside
// this package (assay agree's, or one juror's of a jury): its judges, its
// progress meter, and what it did. The caller closes it. It is safe for
// concurrent use.
type Session struct{ s *session }

// Open opens the model client of j, which names one model, with its
// notices on log. The error is an *eval.InputError for bad settings.
func (j Judging) Open(log io.Writer, env func(string) string) (*Session, error) {
	s, err := j.open(log, env)
	if err != nil {
		return nil, err
	}
	return &Session{s}, nil
}

// Jurors are the models of a comma-separated LLM.Spec, a jury, each once
// and in the order given; nil for one model or none.
func (j Judging) Jurors() ([]string, error) {
	spec := j.LLM.Spec
	if !strings.Contains(spec, ",") {
		return nil, nil
	}
	var specs []string
	for part := range strings.SplitSeq(spec, ",") {
		one := strings.TrimSpace(part)
		switch {
		case one == "":
			return nil, &eval.InputError{Msg: fmt.Sprintf("--llm %q: an empty model between commas: write openai:gpt-4o-mini,ollama:qwen2.5:7b", spec)}
		case slices.Contains(specs, one):
			return nil, flagErr("--llm", "%s is given twice: a jury's models are distinct", one)
		}
		specs = append(specs, one)
	}
	return specs, nil
}

// OpenJury opens a Session per juror (Jurors), each with its own client
// and so its own cache and usage, the other settings the same; or one
// Session when j names one model. On an error the sessions opened are
// closed.
func (j Judging) OpenJury(log io.Writer, env func(string) string) ([]*Session, error) {
	specs, err := j.Jurors()
	if err != nil {
		return nil, err
	}
	if specs == nil {
		specs = []string{j.LLM.Spec}
	}
	out := make([]*Session, 0, len(specs))
	for _, spec := range specs {
		juror := j
		juror.LLM.Spec = spec
		s, err := juror.Open(log, env)
		if err != nil {
			for _, o := range out {
				_ = o.Close() // the error is the one to report
			}
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Check checks the settings that need no model, before anything is read.
func (j Judging) Check() error { return j.check() }

// DefaultsFailure is the failure of judgements d when more of them fell
// back to the neutral default than j allows (MaxDefaultRate; none under
// Strict); ok is false when they are within.
func (j Judging) DefaultsFailure(d Defaults) (f Failure, ok bool) { return j.defaultRate(d) }

// Client is the session's model client.
func (s *Session) Client() *llm.Client { return s.s.client }

// Judges returns the builder of the judges of metrics (names judges.New
// knows), each asked Judging.Samples times per judgement with the
// metric's threshold (threshold) for a majority verdict.
func (s *Session) Judges(metrics []string, threshold func(metric string) float64) func(judges.Model) []eval.Scorer {
	return func(m judges.Model) []eval.Scorer {
		return s.s.sampled(metrics, threshold, judgeScorers(metrics, m))
	}
}

// Count counts a score of the session's judges toward its Report's
// sampled and unstable judgements.
func (s *Session) Count(sc eval.Score) { s.s.stable.add(sc) }

// Meter starts the progress of n records on log, with the money the
// client spends when it is a model's; quiet prints none.
func (s *Session) Meter(log io.Writer, env func(string) string, label string, n int, quiet bool) (*prog.Meter, error) {
	return s.s.meter(log, env, label, n, quiet)
}

// Limit is how many scorers to run at once: enough to keep the client's
// calls in flight busy.
func (s *Session) Limit() int { return s.s.limit() }

// Report is what the client did, with defaulted neutral defaults.
func (s *Session) Report(defaulted int) Report { return s.s.report(defaulted) }

// Failures are the session's failures once its judging ended: the calls
// its budget refused.
func (s *Session) Failures() []Failure { return s.s.failures(Defaults{}) }

// Close closes the client's idle connections and its cache.
func (s *Session) Close() error { return s.s.Close() }
