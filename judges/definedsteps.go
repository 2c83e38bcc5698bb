package judges

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/metric"
)

// StepsRecord is what a run keeps of a judge defined in a judges file or a
// profile (a bench run's config.json): its name, its Version, and the
// evaluation steps its judgements follow, Generated when the model wrote
// them from the criterion (G-Eval's "auto chain of thought"), so that a
// resumed run follows the same steps without asking again, and a reader
// of the run sees them.
type StepsRecord struct {
	Name      string   `json:"name"`
	Version   string   `json:"version"`
	Steps     []string `json:"steps"`
	Generated bool     `json:"generated,omitempty"`
}

// KeepSteps gives d the evaluation steps the model wrote for it earlier
// (a resumed run's), so that every scorer built from d follows them and
// none asks for new ones. It does nothing to a definition with its own
// Steps. Call it before the scorers run: it is not safe to call while
// they do.
func (d *Definition) KeepSteps(steps []string) {
	if d.Steps == nil && len(steps) > 0 {
		d.kept = slices.Clone(steps)
	}
}

// DefinitionOf returns the definition of a metric's entry when it is a
// judge defined in a judges file or a profile (Definition.Entry).
func DefinitionOf(e metric.Entry) (*Definition, bool) {
	if !e.ModelOnly || e.Build == nil {
		return nil, false
	}
	d, ok := e.Build(nil).(Defined)
	if !ok || d.Def == nil {
		return nil, false
	}
	return d.Def, true
}

// PrepareSteps readies the evaluation steps of the judges defined in a
// file or a profile among metrics (entries of reg) before a run judges
// with m, and returns what the run keeps of each (StepsRecord), in the
// order of metrics. A judge with its own steps keeps them; one without
// takes those of earlier (a resumed run's record of the same name and
// Version) with no call, or has m write them now, once for the whole run
// (KeepSteps). u is what the calls spent. A judge whose steps m could not
// write is left out of the records, and its error joined in err: its
// judgements then ask for the steps themselves, and take the neutral
// default when that fails too, counted as any other.
func PrepareSteps(ctx context.Context, reg *metric.Registry, metrics []string, m Model, earlier []StepsRecord) (out []StepsRecord, u eval.Usage, err error) {
	var errs []error
	for _, name := range metrics {
		e, ok := reg.Lookup(name)
		if !ok {
			continue
		}
		d, ok := DefinitionOf(e)
		if !ok {
			continue
		}
		rec := StepsRecord{Name: d.Name, Version: d.Version(), Steps: d.Steps}
		if d.Steps == nil {
			rec.Generated = true
			if i := slices.IndexFunc(earlier, func(r StepsRecord) bool { return r.Name == rec.Name && r.Version == rec.Version && len(r.Steps) > 0 }); i >= 0 {
				rec.Steps = earlier[i].Steps
			} else {
				steps, su, serr := d.generateSteps(ctx, m)
				u = u.Add(su)
				if serr != nil {
					errs = append(errs, fmt.Errorf("judge %s: write its evaluation steps: %w", d.Name, serr))
					continue
				}
				rec.Steps = steps
			}
			d.KeepSteps(rec.Steps)
		}
		out = append(out, rec)
	}
	return out, u, errors.Join(errs...)
}
