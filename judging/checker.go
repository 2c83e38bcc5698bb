package judging

import (
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/setup"
	"github.com/assaylabs/assay/metric"
)

// checker is a session's fact checker (Config.Checker): its client, and
// the registries given its judges (Session.Registry), by the registry
// they came from.
type checker struct {
	fc     *judges.FactChecker
	client *llm.Client // nil in a dry run: the checks go to the recording model
	closer io.Closer

	mu   sync.Mutex
	regs map[*metric.Registry]*metric.Registry
}

// openChecker opens the session's fact checker, when Config names one,
// with the model client's settings cfg, spending from the judging
// client's budget: --max-cost counts both. A dry run opens no client: its
// checks are the recording model's, counted in their metrics' rows.
func (s *Session) openChecker(cfg setup.Config, env func(string) string) error {
	j := s.cfg
	if j.Checker == "" {
		return nil
	}
	fc := &judges.FactChecker{Name: j.Checker, ChunkTokens: j.CheckerChunk}
	if j.DryRun {
		// Named as the client would name it, with no key or server needed.
		s.check.fc = fc
		return nil
	}
	cfg.Budget = s.client.Budget()
	c, closer, err := setup.OpenChecker(cfg, j.Checker, env)
	if err != nil {
		return eval.AsInputError("", err) // it names --checker
	}
	fc.Model, fc.Name, fc.Count = c, c.Name(), c.Counter().Count
	s.check.fc, s.check.client, s.check.closer = fc, c, closer
	return nil
}

func (c *checker) close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer.Close()
}

// Registry is reg as the session judges with it: with a fact checker
// (Config.Checker), a copy whose faithfulness and context recall verify
// their claims with it (judges.WithChecker); else reg itself. Build the
// session's judges, and read their thresholds, from it.
func (s *Session) Registry(reg *metric.Registry) *metric.Registry {
	if s.check.fc == nil || reg == nil {
		return reg
	}
	s.check.mu.Lock()
	defer s.check.mu.Unlock()
	if r, ok := s.check.regs[reg]; ok {
		return r
	}
	r, err := judges.WithChecker(reg, s.check.fc)
	if err != nil {
		// Replacing entries reg has, in a copy of it, cannot fail short
		// of a programming error.
		panic(err)
	}
	if s.check.regs == nil {
		s.check.regs = map[*metric.Registry]*metric.Registry{}
	}
	s.check.regs[reg] = r
	return r
}

// Prices are the prices of the models the session pays for, as
// llm.Prices.Describe says them, keyed by model: the judging model's and
// the fact checker's. Nil when the session pays for none (offline, a
// dry run's fact checker).
func (s *Session) Prices() map[string]string {
	out := map[string]string{}
	for _, c := range []*llm.Client{s.client, s.check.client} {
		if c != nil && !c.Offline() {
			out[c.Name()] = c.Prices().Describe(c.Name())
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Judge is the label of what judges in the session: the model's method
// (judges.Method), with the fact checker's name when there is one.
func (s *Session) Judge() string {
	if s.check.fc == nil {
		return judges.Method(s.model)
	}
	return judges.CheckerMethod(judges.Method(s.model), s.check.fc.Name)
}

// CheckChecker refuses a fact checker (Config.Checker) that none of the
// metrics a run judges now would use: only faithfulness and context
// recall verify claims.
func (j Config) CheckChecker(metrics []string) error {
	if j.Checker == "" {
		return nil
	}
	if slices.Contains(metrics, judges.MetricFaithfulness) || slices.Contains(metrics, judges.MetricContextRecall) {
		return nil
	}
	return eval.FlagError("--checker", "verifies the claims of %s and %s, and this run judges neither (it judges %s)",
		judges.MetricFaithfulness, judges.MetricContextRecall, strings.Join(metrics, ", "))
}
