package judging

import (
	"context"
	"fmt"
	"io"
	"iter"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/backend"
	"github.com/assaylabs/assay/llm/dryrun"
)

// PlanRow is one line of a dry run's plan: the calls and tokens a step (a
// metric, or a research stage) would need.
type PlanRow struct {
	Name      string `json:"name"`
	Calls     int    `json:"calls"`
	TokensIn  int    `json:"tokens_in"`
	TokensOut int    `json:"tokens_out"`
}

func (r *PlanRow) add(c dryrun.Call) {
	r.Calls++
	r.TokensIn += c.TokensIn
	r.TokensOut += c.TokensOut
}

// Plan is what a dry run found a run would need, with no call made.
type Plan struct {
	// Judge is the model the plan is for; Records the records it covers.
	Judge   string `json:"judge"`
	Records int    `json:"records"`
	// Header, when set, replaces the first line ("dry run for ... on N
	// record(s); no call made").
	Header string    `json:"-"`
	Rows   []PlanRow `json:"rows"`
	// Note, for a run that calls no model, says why; Rows is then empty.
	Note string `json:"note,omitempty"`
	// Priced says the model's price is known (or it is offline); Cost is
	// a row's cost in US dollars at that price; MaxCost the budget.
	Priced  bool    `json:"priced"`
	Offline bool    `json:"offline"`
	Model   string  `json:"model"`
	MaxCost float64 `json:"max_cost,omitempty"`
	// Batch says the run would send its calls through a batch endpoint
	// (--batch): its costs are at the batch price (llm.Prices.BatchCost).
	Batch  bool `json:"batch,omitempty"`
	prices llm.Prices
	name   string
}

// NewPlan is an empty plan for the client c's model.
func NewPlan(c *llm.Client, records int) *Plan {
	return &Plan{Judge: judges.Method(c), Records: records, Priced: c.Offline() || c.Prices().Known(c.Name()),
		Offline: c.Offline(), Model: backend.ModelName(c.Name()), MaxCost: c.MaxCost(), prices: c.Prices(), name: c.Name()}
}

// AddCalls adds recorded calls to the plan, a row per tag in the order
// tags first appear.
func (p *Plan) AddCalls(calls []dryrun.Call) {
	idx := map[string]int{}
	for i, r := range p.Rows {
		idx[r.Name] = i
	}
	for _, call := range calls {
		i, ok := idx[call.Tag]
		if !ok {
			i = len(p.Rows)
			idx[call.Tag] = i
			p.Rows = append(p.Rows, PlanRow{Name: call.Tag})
		}
		p.Rows[i].add(call)
	}
}

// Cost is the US dollars of in and out tokens at the plan's price: the
// batch price when the plan is a batch run's (Batch).
func (p *Plan) Cost(in, out int) float64 {
	if p.Batch {
		return p.prices.BatchCost(p.name, in, out)
	}
	return p.prices.Cost(p.name, in, out)
}

// Write prints the plan: a table of steps with their costs and a total. A
// model missing from the price table has its costs marked unknown, never $0.
func (p *Plan) Write(w io.Writer) {
	switch {
	case p.Note != "":
		fmt.Fprintf(w, "dry run: %s; %d record(s)\n", termtext.Message(p.Note), p.Records)
		return
	case p.Header != "":
		fmt.Fprintln(w, termtext.Message(p.Header))
	default:
		// The model's name comes from a flag, a row's from a judges file:
		// shown, not obeyed.
		fmt.Fprintf(w, "dry run for %s on %d record(s); no call made\n", termtext.Visible(p.Judge), p.Records)
	}
	cost := func(in, out int) string {
		if !p.Priced {
			return "unknown"
		}
		return fmt.Sprintf("%.4f", p.Cost(in, out))
	}
	fmt.Fprintf(w, "%-20s %8s %12s %12s %10s\n", "step", "calls", "tokens in", "tokens out", "cost USD")
	var total PlanRow
	for _, r := range p.Rows {
		fmt.Fprintf(w, "%-20s %8d %12d %12d %10s\n", termtext.Visible(r.Name), r.Calls, r.TokensIn, r.TokensOut, cost(r.TokensIn, r.TokensOut))
		total.Calls += r.Calls
		total.TokensIn += r.TokensIn
		total.TokensOut += r.TokensOut
	}
	fmt.Fprintf(w, "%-20s %8d %12d %12d %10s\n", "total", total.Calls, total.TokensIn, total.TokensOut, cost(total.TokensIn, total.TokensOut))
	if !p.Priced {
		fmt.Fprintf(w, "cost unknown: model %s is not in the price table; give --prices FILE with its price per million tokens ({%s: {in: 0.15, out: 0.6}})\n",
			termtext.Visible(p.Model), termtext.Visible(p.Model))
	}
	if p.Batch && p.Priced && !p.Offline {
		fmt.Fprintf(w, "cost at the batch price (--batch): %s\n", p.prices.Describe(p.name))
	}
	totalCost := p.Cost(total.TokensIn, total.TokensOut)
	switch limit := p.MaxCost; {
	case limit <= 0 || !p.Priced:
	case totalCost > limit:
		fmt.Fprintf(w, "over --max-cost $%.4f: new calls would stop after about %.0f%% of the estimate; the judges left would score neutral defaults\n",
			limit, 100*limit/totalCost)
	default:
		fmt.Fprintf(w, "within --max-cost $%.4f\n", limit)
	}
	if p.Offline {
		fmt.Fprintln(w, "offline makes no model calls; the figures are what a model would need")
	}
}

// DryRun runs the scorers of metrics (built by scorers, with the model
// given, in the order of metrics) on the n samples (each with its ID),
// read one at a time,
// against a recording backend standing in for c's model, and returns the
// calls, tokens and cost the run would need. No call is made. replies
// are the stand-in replies of the metrics' entries (metric.Registry's
// DryRun), asked in order. A record a
// metric cannot be judged on is an input error naming it.
func DryRun(ctx context.Context, c *llm.Client, metrics []string, scorers func(judges.Model) []eval.Scorer,
	n int, samples iter.Seq2[eval.Sample, error], replies ...dryrun.Replier) (*Plan, error) {
	rec := dryrun.New(c, replies...)
	js := scorers(dryrun.Client(rec, c))
	per := make([]PlanRow, len(metrics))
	errs := make([]error, len(metrics)) // the first record each metric cannot be judged on
	for r, err := range samples {
		if err != nil {
			return nil, err
		}
		for i, m := range metrics {
			if errs[i] != nil {
				continue
			}
			// One scorer at a time, so each call is its metric's.
			before := len(rec.Calls())
			sc, err := js[i].Score(ctx, r)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				errs[i] = &eval.InputError{Msg: fmt.Sprintf("record %s: %s: %v", r.ID, m, err), Err: err}
				continue
			}
			if sc.Defaulted {
				// The stand-in replies are valid by construction: a judge
				// that refused one has changed its reply schema.
				return nil, fmt.Errorf("dry run: record %s: %s refused the stand-in reply (%w); its metric entry's DryRun must answer its schema", r.ID, m, sc.Err)
			}
			for _, call := range rec.Calls()[before:] {
				per[i].add(call)
			}
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err // the first metric's, as metric by metric
		}
	}
	p := NewPlan(c, n)
	for i, m := range metrics {
		per[i].Name = m
		p.Rows = append(p.Rows, per[i])
	}
	return p, nil
}
