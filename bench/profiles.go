package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
)

// The profiles a run can judge instead of judge metrics (RunConfig.Profile).
const (
	// ProfileContext is JSON Lines of seed 002's retrieval samples
	// ({query, chunks, context} a line), judged by the context card.
	ProfileContext = "context"
	// ProfileResearch is JSON Lines of {id, query, report}, judged by the
	// research card.
	ProfileResearch = "research"
	// ProfileDaily is JSON Lines of {id, report, truth, telemetry}, judged
	// by seed 003's five scorers and the overall quality (heuristics/daily;
	// values are the 0-100 scores over 100).
	ProfileDaily = "daily"
)

// MetricTotal is the research card's total, as a share of its maximum
// (Points and Max keep the 10-point figure).
const MetricTotal = "total"

// ContextMetrics are the results of the context profile: the overall and
// its four sub-scores, each a result of its own.
var ContextMetrics = []string{agent.MetricContextQuality, heuristics.KeyRetrievalConfidence, heuristics.KeyContextSufficiency,
	heuristics.KeyDiversityScore, heuristics.KeyEstimatedFaithfulness}

// ContextUnit judges a retrieval sample with the context card's scorer
// (heuristics.ContextQuality, the weights of the built-in context
// profile): context_quality, with the evidence, and its four sub-scores
// read from that evidence.
func ContextUnit() Unit {
	scorer := heuristics.ContextQuality{}
	return Unit{Metrics: ContextMetrics, Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		sc, err := scorer.Score(ctx, s)
		if err != nil {
			return nil, err
		}
		out := []eval.Score{sc}
		for _, k := range ContextMetrics[1:] {
			v := sc.Evidence.Counts[k]
			out = append(out, eval.Score{Metric: k, Value: v, Points: v, Max: 1, Method: sc.Method,
				Reason: "sub-score of context_quality"})
		}
		return out, nil
	}}
}

// ResearchMetrics are the results of the research profile p: its
// dimensions in profile order, then MetricTotal.
func ResearchMetrics(p *agent.Profile) []string {
	out := make([]string, 0, len(p.Specs)+1)
	for _, s := range p.Specs {
		out = append(out, s.Metric)
	}
	return append(out, MetricTotal)
}

// ResearchUnit judges a report with the card of profile p (agent.Score,
// with opt): each dimension's score, then the total as a share of the
// card's maximum, whose reason is the card's status and reason. A card
// with a defaulted dimension has its total marked defaulted too, so that
// it is counted apart rather than averaged in.
func ResearchUnit(p *agent.Profile, opt agent.Options) Unit {
	return Unit{Metrics: ResearchMetrics(p), Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		card, err := agent.Score(ctx, p, s, opt)
		if err != nil {
			return nil, err
		}
		total := eval.Score{Metric: MetricTotal, Points: card.Total, Max: card.Max, Method: card.Judge,
			Reason: card.Status + ": " + card.Reason, Usage: card.Usage}
		if card.Max > 0 {
			total.Value = card.Total / card.Max
		}
		// A research card passes by its rule (grounding at its maximum and
		// the total at the pass threshold), not by the total alone.
		pass := card.Status == eval.StatusPass
		total.Pass = &pass
		if card.Defaulted > 0 {
			total.Defaulted = true
			total.Err = fmt.Errorf("%d dimension(s) of the card defaulted", card.Defaulted)
		}
		return append(card.Scores, total), nil
	}}
}

// DailyMetrics are the daily profile's results, in order.
var DailyMetrics = daily.Metrics()

// DailyUnit judges a daily report with seed 003's scorers (the built-in
// daily profile), the report scored once: the five scores and the overall
// quality, each with its dimensions in the evidence. A record without telemetry has its QoS
// skipped.
func DailyUnit() Unit {
	return Unit{Metrics: DailyMetrics, Judge: func(_ context.Context, s eval.Sample) ([]eval.Score, error) {
		return daily.Scores(nil, s)
	}}
}

// profilePlan is what a profile's run judges, given its model.
type profilePlan struct {
	name    string
	metrics []string
	units   func(m judges.Model) []Unit
	// dry are the profile's model-calling metrics and the builder of
	// their scorers; none for a profile that never calls a model.
	dryMetrics []string
	dryScorers func(judges.Model) []eval.Scorer
}

// ProfilePlan returns the plan of the profile a run judges (ProfileContext,
// ProfileResearch or ProfileDaily), or an input error naming --profile.
// reg holds the profile's metrics (nil: the built-in ones).
func ProfilePlan(reg *metric.Registry, profile string) (profilePlan, error) {
	switch profile {
	case ProfileContext:
		return profilePlan{name: profile, metrics: ContextMetrics, units: func(judges.Model) []Unit { return []Unit{ContextUnit()} }}, nil
	case ProfileDaily:
		return profilePlan{name: profile, metrics: DailyMetrics, units: func(judges.Model) []Unit { return []Unit{DailyUnit()} }}, nil
	case ProfileResearch:
		p, err := agent.Profiles{Metrics: reg}.Load("research")
		if err != nil {
			return profilePlan{}, err
		}
		dm, ds := p.ModelScorers(agent.Options{})
		return profilePlan{name: profile, metrics: ResearchMetrics(p), dryMetrics: dm, dryScorers: ds, units: func(m judges.Model) []Unit {
			return []Unit{ResearchUnit(p, agent.Options{Model: m})}
		}}, nil
	}
	return profilePlan{}, &eval.InputError{Field: "--profile", Msg: fmt.Sprintf("want %s, %s or %s, got %q", ProfileContext, ProfileResearch, ProfileDaily, profile)}
}

// build is the run's plan with model m.
func (pp profilePlan) build(m judges.Model) plan {
	p := plan{metrics: pp.metrics, units: pp.units(m), dryMetrics: pp.dryMetrics, dryScorers: pp.dryScorers}
	if !judges.Offline(m) {
		p.modelMetrics = pp.dryMetrics
	}
	return p
}

// profileThreshold is a metric's pass threshold in a run's summary: the
// context card's pass threshold (seed 002's CRAG "correct", 0.7) for
// context_quality under the context profile, the research card's pass
// total over its maximum for its total (the card's verdict decides each
// record, Result.Pass), else the metric's default.
func profileThreshold(reg *metric.Registry, profile, name string, m judges.Model) float64 {
	profiles := agent.Profiles{Metrics: reg}
	switch {
	case profile == ProfileContext && name == agent.MetricContextQuality:
		if p, err := profiles.Load("context"); err == nil {
			return p.Pass.Threshold
		}
	case profile == ProfileResearch && name == MetricTotal:
		if p, err := profiles.Load("research"); err == nil && p.Max() > 0 {
			return p.Pass.Threshold / p.Max()
		}
	}
	return reg.DefaultThreshold(name, m)
}

// ProfileData is a JSON Lines dataset of a profile, checked whole by a
// first pass and read again record by record, like [Dataset].
type ProfileData struct {
	path    string
	name    string // how errors name the file
	profile string
	n       int
}

// OpenProfileData checks the JSON Lines file at path as records of
// profile (ProfileContext or ProfileResearch): every line a valid record,
// ids unique. Errors are *eval.InputError naming the file, line and field.
// A hash of each id is held during the check (to find duplicates, see
// idSet), not the records. name is how errors name the file ("" is path;
// a copy of standard input is StdinName).
func OpenProfileData(path, name, profile string) (*ProfileData, error) {
	if profile != ProfileContext && profile != ProfileResearch && profile != ProfileDaily {
		return nil, &eval.InputError{Field: "--profile", Msg: fmt.Sprintf("want %s, %s or %s, got %q", ProfileContext, ProfileResearch, ProfileDaily, profile)}
	}
	if name == "" {
		name = path
	}
	d := &ProfileData{path: path, name: name, profile: profile}
	seen := newIDSet()
	for rec, err := range d.Records() {
		if err != nil {
			return nil, err
		}
		if first, dup := seen.add(rec.ID, rec.Line); dup {
			return nil, &eval.InputError{File: d.name, Line: rec.Line, Field: "id", Msg: fmt.Sprintf("id %q is also on line %d: ids must be unique", rec.ID, first)}
		}
		d.n++
	}
	if d.n == 0 {
		return nil, &eval.InputError{File: d.name, Msg: "empty input: nothing to score"}
	}
	return d, nil
}

// Len is the number of records.
func (d *ProfileData) Len() int { return d.n }

// Records reads the file record by record; each record's Sample.ID is its
// ID: the line's "id" (beside the context sample's fields), or "line-N".
func (d *ProfileData) Records() iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		f, err := os.Open(d.path)
		if err != nil {
			yield(Record{}, &eval.InputError{File: d.name, Msg: "cannot read: " + err.Error()})
			return
		}
		defer func() { _ = f.Close() }() // read only
		br := bufio.NewReaderSize(io.LimitReader(f, MaxDataset+1), 64<<10)
		for line := 1; ; line++ {
			b, rerr := br.ReadBytes('\n')
			if rerr != nil && !errors.Is(rerr, io.EOF) {
				yield(Record{}, &eval.InputError{File: d.name, Line: line, Msg: "cannot read: " + rerr.Error()})
				return
			}
			if len(b) > MaxLine {
				yield(Record{}, &eval.InputError{File: d.name, Line: line, Msg: fmt.Sprintf("line longer than the %d MB limit", MaxLine>>20)})
				return
			}
			if t := bytes.TrimSpace(b); len(t) > 0 {
				rec, err := d.decode(line, t)
				if !yield(rec, err) || err != nil {
					return
				}
			}
			if rerr != nil {
				return
			}
		}
	}
}

func (d *ProfileData) decode(line int, b []byte) (Record, error) {
	var head struct {
		ID        json.RawMessage `json:"id"`
		Query     string          `json:"query"`
		Report    *string         `json:"report"`
		Truth     json.RawMessage `json:"truth"`
		Telemetry json.RawMessage `json:"telemetry"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Record{}, &eval.InputError{File: d.name, Line: line, Msg: "not a JSON object of a " + d.profile + " sample: " + err.Error(), Err: err}
	}
	id := "line-" + strconv.Itoa(line)
	if len(head.ID) > 0 && string(head.ID) != "null" {
		var s string
		if json.Unmarshal(head.ID, &s) != nil {
			s = string(head.ID) // a number
		}
		if s = strings.TrimSpace(s); s != "" {
			id = s
		}
	}
	rec := Record{ID: id, Line: line}
	switch d.profile {
	case ProfileContext:
		if len(head.ID) > 0 {
			// Seed 002's sample has no id: a dataset's own is taken off
			// before the sample is decoded, which refuses unknown fields.
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(b, &fields); err == nil {
				delete(fields, "id")
				b, _ = json.Marshal(fields)
			}
		}
		s, err := eval.DecodeContextSample(d.name, b)
		if err != nil {
			var ie *eval.InputError
			if errors.As(err, &ie) {
				ie.Line, ie.Col = line, 0 // the line's own, not the file's
			}
			return Record{}, err
		}
		rec.Sample = s
	case ProfileDaily:
		if head.Report == nil || strings.TrimSpace(*head.Report) == "" {
			return Record{}, &eval.InputError{File: d.name, Line: line, Field: "report", Msg: "missing: a daily sample is {id, report, truth, telemetry}, the report in Markdown"}
		}
		if len(head.Truth) == 0 || string(head.Truth) == "null" {
			return Record{}, &eval.InputError{File: d.name, Line: line, Field: "truth", Msg: "missing: the ground truth the report was written from ({subject, date, values, percentiles, news})"}
		}
		if _, err := daily.ReadTruth("truth", head.Truth, daily.Default()); err != nil {
			return Record{}, &eval.InputError{File: d.name, Line: line, Field: "truth", Msg: err.Error(), Err: err}
		}
		md := map[string]any{daily.MetaTruth: head.Truth}
		if len(head.Telemetry) > 0 && string(head.Telemetry) != "null" {
			md[daily.MetaTelemetry] = head.Telemetry
		}
		rec.Sample = eval.Sample{Answer: *head.Report, Metadata: md}
	default:
		if head.Report == nil || strings.TrimSpace(*head.Report) == "" {
			return Record{}, &eval.InputError{File: d.name, Line: line, Field: "report", Msg: "missing: a research sample is {id, query, report}, the report in Markdown"}
		}
		rec.Sample = eval.Sample{Query: head.Query, Answer: *head.Report}
	}
	rec.Sample.ID = id
	return rec, nil
}
