package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/web"
)

// Searcher finds candidate sources (web.Local, web.SearxNG).
type Searcher interface {
	Search(ctx context.Context, q web.Query) ([]web.Result, error)
	Name() string
}

// Fetcher fetches and extracts a page (web.Fetcher).
type Fetcher interface {
	Fetch(ctx context.Context, url string) (web.Document, error)
}

// Research is the configuration of a research run. Zero fields take the
// defaults in brackets.
type Research struct {
	// Options carry the model, the clock, the tiers and the scorers'
	// concurrency. Its Model judges, summarizes and synthesizes (nil works
	// offline: lexical gate, extractive summaries and report); its clock
	// times the stages and is the "today" of source recency (nil is
	// time.Now; tests inject a fixed one).
	Options
	Searcher Searcher
	// Fetcher fetches results without text and the URLs in URLs; nil drops
	// them, with the reason recorded.
	Fetcher Fetcher
	// URLs are sources added directly (--url).
	URLs []string
	// Mode sets the sources kept and the gate's thresholds [standard]; a
	// Mode whose Cutoff is 0 takes the profile's gate.relevance_cutoff,
	// else 3.
	Mode Mode
	// Profile scores the report [the built-in research profile].
	Profile *Profile
	// MaxIterations of the remediation loop [2].
	MaxIterations int
	// OnEvent receives each stage as it starts (Duration 0) and ends.
	OnEvent func(Event)
	// Folder, when set, receives the run as it goes: each stage as it
	// ends, and the report, card and sources at the start, after each
	// iteration and at the end. Its owner closes it.
	Folder *RunFolder
}

// Run is the outcome of a research run.
type Run struct {
	Query    string   `json:"query"`
	Mode     Mode     `json:"mode"`
	Judge    string   `json:"judge"`
	Decision Decision `json:"decision"`
	// Status is StatusPass, StatusRejected or StatusInsufficient for a run
	// that ended; StatusInterrupted, StatusModelFailed, StatusSearchFailed
	// or StatusFailed for one an error stopped (Run returns the error);
	// StatusRunning in the files of a run that is still going (or was
	// killed).
	Status Status `json:"status"`
	Reason string `json:"reason"`
	// Defaulted counts the judge results of the run that fell back to the
	// neutral default: gate grades kept at 3 (QoS.GateDefaults) and the
	// defaulted scores of every iteration's card.
	Defaulted int `json:"defaulted"`
	// Report is the Markdown report (or the explanation, for
	// insufficient data).
	Report     string         `json:"-"`
	Iterations []Iteration    `json:"iterations"`
	Sources    []SourceRecord `json:"-"`
	CRAG       []CRAGStep     `json:"crag"`
	Searches   []string       `json:"searches"`
	QoS        QoS            `json:"qos"`
	Trace      []Event        `json:"-"`
	// profile scored the report: its registry labels the card's rows.
	profile *Profile
}

// Iteration is one scoring of the report: 0 is the first, 1 and 2 the
// repairs, each with the fix that led to it.
type Iteration struct {
	Iteration int       `json:"iteration"`
	Fix       *eval.Fix `json:"fix,omitempty"`
	// Applied says what the fix did; Stages are the stages it re-ran.
	Applied string    `json:"applied,omitempty"`
	Stages  []int     `json:"stages,omitempty"`
	Card    eval.Card `json:"card"`
	// Reverted is true when the fix made the report score worse than the
	// one before it: Card is what the repaired report scored, and the run
	// went on with the report, sources and card it had before the fix.
	Reverted bool `json:"reverted,omitempty"`
}

// finalCard is the card of the report the run kept: that of its last
// iteration not reverted. It reports false when there is none.
func (r *Run) finalCard() (eval.Card, bool) {
	for i := len(r.Iterations) - 1; i >= 0; i-- {
		if !r.Iterations[i].Reverted {
			return r.Iterations[i].Card, true
		}
	}
	return eval.Card{}, false
}

// CRAGStep records a CRAG decision on the gated retrieval.
type CRAGStep struct {
	Iteration      int            `json:"iteration"`
	Overall        float64        `json:"overall"`
	Classification CRAGClass      `json:"classification"`
	Action         CRAGActionType `json:"action"`
	Queries        []string       `json:"queries,omitempty"`
	Added          int            `json:"added"`
}

// SourceRecord is one candidate source of a run and what the run did with
// it: kept or dropped, and why. It is the one form a source takes from the
// search to the report; the judges and scorers get its Source.
type SourceRecord struct {
	// Source is the source itself: its URL (also its ID), title, extracted
	// text (for synthesis and quote checks), author, publication date and
	// the number of references it cites (0 when unknown). Its author is
	// known to be absent when empty: the corpus and extracted pages say
	// whether they name one. A run never sets RerankScore, Credibility (a
	// user-given value; see Rating) or Metadata.
	eval.Source
	Domain    string
	FoundBy   string
	Iteration int
	Kept      bool
	// Grade, GateReason and Defaulted are the relevance gate's verdict.
	Grade      int
	GateReason string
	Defaulted  bool
	// Rating is the source's credibility (1..10) as the run rated it.
	Rating float64
	// Dropped says why the source was dropped, if it was.
	Dropped string
	// Summary is the summary the gate graded.
	Summary string
	rank    int
}

// newSourceRecord is a candidate source found by `by` in iteration it, at
// rank: its references are known to be refs (0 when unknown).
func newSourceRecord(src eval.Source, refs int, by string, it, rank int) *SourceRecord {
	src.ID = src.URL
	src.References = &refs
	src.AuthorKnown = true
	return &SourceRecord{Source: src, Domain: heuristics.Domain(src.URL), FoundBy: by, Iteration: it, rank: rank}
}

// summarized is the source with its summary for text, as the relevance
// gate and CRAG judge it.
func (s *SourceRecord) summarized() eval.Source {
	src := s.Source
	src.Text = s.Summary
	return src
}

// sourceRecordJSON is a SourceRecord in sources.json.
type sourceRecordJSON struct {
	URL         string    `json:"url"`
	Title       string    `json:"title,omitempty"`
	Domain      string    `json:"domain"`
	Author      string    `json:"author,omitempty"`
	Published   time.Time `json:"published,omitzero"`
	References  int       `json:"references"`
	FoundBy     string    `json:"found_by"`
	Iteration   int       `json:"iteration"`
	Kept        bool      `json:"kept"`
	Grade       int       `json:"gate_grade,omitempty"`
	GateReason  string    `json:"gate_reason,omitempty"`
	Defaulted   bool      `json:"gate_defaulted,omitempty"`
	Credibility float64   `json:"credibility,omitempty"`
	Dropped     string    `json:"dropped,omitempty"`
	Summary     string    `json:"summary,omitempty"`
}

// MarshalJSON implements json.Marshaler: the record as sources.json holds
// it, without the source's text.
func (s SourceRecord) MarshalJSON() ([]byte, error) {
	refs := 0
	if s.References != nil {
		refs = *s.References
	}
	return json.Marshal(sourceRecordJSON{URL: s.URL, Title: s.Title, Domain: s.Domain, Author: s.Author, Published: s.Published,
		References: refs, FoundBy: s.FoundBy, Iteration: s.Iteration, Kept: s.Kept, Grade: s.Grade, GateReason: s.GateReason,
		Defaulted: s.Defaulted, Credibility: s.Rating, Dropped: s.Dropped, Summary: s.Summary})
}

// UnmarshalJSON implements json.Unmarshaler, reading what MarshalJSON
// writes.
func (s *SourceRecord) UnmarshalJSON(b []byte) error {
	var v sourceRecordJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = *newSourceRecord(eval.Source{URL: v.URL, Title: v.Title, Author: v.Author, Published: v.Published}, v.References, v.FoundBy, v.Iteration, 0)
	s.Domain, s.Kept, s.Grade, s.GateReason, s.Defaulted = v.Domain, v.Kept, v.Grade, v.GateReason, v.Defaulted
	s.Rating, s.Dropped, s.Summary = v.Credibility, v.Dropped, v.Summary
	return nil
}

// QoS is seed 003's quality of service: time per stage, model calls, cost
// and errors. With a model that keeps its own account (*llm.Client), the
// calls, tokens and cost are what the client spent during the run, calls
// whose judges were cancelled included; otherwise they are the sum of the
// stages' usage.
type QoS struct {
	Total        time.Duration            `json:"total_ns"`
	Stages       map[string]time.Duration `json:"stages_ns"`
	LLMCalls     int                      `json:"llm_calls"`
	TokensIn     int                      `json:"tokens_in"`
	TokensOut    int                      `json:"tokens_out"`
	CostUSD      float64                  `json:"cost_usd"`
	FetchErrors  int                      `json:"fetch_errors"`
	GateDefaults int                      `json:"gate_defaults"`
	Errors       []string                 `json:"errors,omitempty"`
}

// run is the state of one research run.
type run struct {
	cfg     Research
	query   string
	tr      *tracer
	out     *Run
	seen    map[string]bool // pages already considered, by web.DocumentKey
	sources []*SourceRecord // every candidate, in the order found
	// grounded is set by the grounding fix: synthesis is extractive, every
	// sentence cited.
	grounded bool
	// noSearch is set while a fix whose stages leave out the search is
	// applied: gather then returns errNoSearch.
	noSearch bool
	tried    map[string]bool // fixes applied
	model    modelSteps
	start    time.Time
	// usage and base give what the model spent during the run, when it
	// keeps an account.
	usage usageSource
	base  eval.Usage
}

// Run researches query end to end: search, fetch, extract, summarize and
// gate, CRAG, synthesize, score, then at most MaxIterations repairs. It
// returns what was done even when ctx is cancelled (with ctx's error).
func (cfg Research) Run(ctx context.Context, query string) (*Run, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, errors.New("research: empty query")
	}
	if cfg.Searcher == nil {
		return nil, errors.New("research: no searcher")
	}
	if cfg.Mode.Name == "" {
		cfg.Mode = modes["standard"]
	}
	if cfg.MaxIterations == 0 {
		cfg.MaxIterations = 2
	}
	cfg.Now = cfg.clock()
	if cfg.Profile == nil {
		p, err := LoadProfile("research")
		if err != nil {
			return nil, err
		}
		cfg.Profile = p
	}
	if cfg.Profile.Kind != KindReport {
		return nil, fmt.Errorf("research: profile %q is a %s profile; research needs one of kind %s", cfg.Profile.Name, cfg.Profile.Kind, KindReport)
	}
	if cfg.Mode.Cutoff == 0 {
		cfg.Mode.Cutoff = cmp.Or(cfg.Profile.Gate.Cutoff(), 3)
	}
	r := &run{cfg: cfg, query: query, seen: map[string]bool{}, tried: map[string]bool{},
		tr:  &tracer{now: cfg.Now, notify: cfg.OnEvent},
		out: &Run{Query: query, Mode: cfg.Mode, Judge: cfg.Options.judge(), profile: cfg.Profile}}
	if cfg.Folder != nil {
		r.tr.record = cfg.Folder.Event
	}
	if us, ok := cfg.Model.(usageSource); ok {
		r.usage, r.base = us, us.Usage()
	}
	r.start = cfg.Now()
	r.save()
	err := r.research(ctx)
	if err == nil {
		err = r.model.failure(r.modelName())
	}
	res := r.snapshot(err)
	if cfg.Folder != nil {
		cfg.Folder.Write(res)
	}
	return res, err
}

func (r *run) modelName() string {
	if r.cfg.Model == nil {
		return "offline"
	}
	return r.cfg.Model.Name()
}

// save writes the run as it stands to the folder, if there is one.
func (r *run) save() {
	if r.cfg.Folder != nil {
		r.cfg.Folder.Write(r.snapshot(nil))
	}
}

func (r *run) research(ctx context.Context) error {
	// Stages 1-4 on the query and any --url sources.
	// Seed 004: a mode's max_sources bounds the first search.
	if err := r.gather(ctx, 0, web.Query{Text: r.query, Limit: r.cfg.Mode.MaxSources}, whyQuery); err != nil {
		return err
	}
	if err := r.fetchURLs(ctx, 0); err != nil {
		return err
	}
	if err := r.crag(ctx, 0); err != nil {
		return err
	}
	r.cap(0, r.cfg.Mode.MaxSources)
	kept := r.kept()
	r.out.Decision = r.cfg.Mode.decide(len(kept))
	if r.out.Decision == DecisionInsufficient {
		r.out.Status = StatusInsufficient
		r.out.Report = r.explainWith(ctx)
		r.out.Reason = fmt.Sprintf("only %d source(s) passed the relevance gate; %d needed for a short report", len(kept), r.cfg.Mode.MinShort)
		return nil
	}
	report, err := r.synthesize(ctx, 0, kept, false)
	if err != nil {
		return err
	}
	card, err := r.score(ctx, Iteration{Iteration: 0}, report, kept)
	if err != nil {
		return err
	}

	for it := 1; card.Status != eval.StatusPass && it <= r.cfg.MaxIterations; it++ {
		if len(card.Fixes) == 0 {
			break
		}
		// A repair with a model that has answered nothing so far would only
		// fail again, at the cost of more searches and calls.
		if err := r.model.failure(r.modelName()); err != nil {
			return err
		}
		fix := r.nextFix(card.Fixes)
		before := r.checkpoint(report)
		applied, clarity, err := r.applyFix(ctx, it, fix, card)
		if err != nil {
			return err
		}
		kept = r.kept()
		if d := r.cfg.Mode.decide(len(kept)); d != DecisionInsufficient {
			r.out.Decision = d
		}
		if report, err = r.synthesize(ctx, it, kept, clarity); err != nil {
			return err
		}
		f := fix
		repaired, err := r.score(ctx, Iteration{Iteration: it, Fix: &f, Applied: applied}, report, kept)
		if err != nil {
			return err
		}
		if !worse(repaired, card) {
			card = repaired
			continue
		}
		// A fix that lowers the score is not kept (seed 001 repairs a
		// report; it never trades it for a worse one): the run goes on
		// from the report it had.
		report = r.restore(before, it, fmt.Sprintf("%s; undone: the score fell from %s to %s", applied, cardScore(card), cardScore(repaired)))
	}
	r.out.Status, r.out.Reason = StatusPass, card.Reason
	if card.Status != eval.StatusPass {
		r.out.Status = StatusRejected
		r.out.Reason = fmt.Sprintf("still %s after %d repair iteration(s): %s", card.Status, len(r.out.Iterations)-1, card.Reason)
	}
	return nil
}

// worse reports whether card a is worse than b: a lower status (fail
// below iterate below pass), or the same status with a lower total.
func worse(a, b eval.Card) bool {
	rank := func(s string) int {
		switch s {
		case eval.StatusPass:
			return 2
		case eval.StatusIterate:
			return 1
		}
		return 0
	}
	if ra, rb := rank(a.Status), rank(b.Status); ra != rb {
		return ra < rb
	}
	return a.Total < b.Total
}

// cardScore is a card's total and status, as "6/10 (iterate)".
func cardScore(c eval.Card) string {
	return fmt.Sprintf("%s/%s (%s)", num(c.Total), num(c.Max), c.Status)
}

// runState is what a fix may change in a run: whether each source is
// kept and why not, the synthesis mode, the decision and the report.
type runState struct {
	n        int // sources known before the fix
	kept     []bool
	dropped  []string
	grounded bool
	decision Decision
	report   string
}

// checkpoint records the run's state before a fix, report being its
// current report.
func (r *run) checkpoint(report string) runState {
	st := runState{n: len(r.sources), grounded: r.grounded, decision: r.out.Decision, report: report}
	for _, s := range r.sources {
		st.kept = append(st.kept, s.Kept)
		st.dropped = append(st.dropped, s.Dropped)
	}
	return st
}

// restore undoes the fix of iteration it: the run's state goes back to
// st, the sources the fix found are dropped, and the iteration is marked
// reverted with applied as what it did. It returns the report kept.
func (r *run) restore(st runState, it int, applied string) string {
	for i, s := range r.sources {
		if i < st.n {
			s.Kept, s.Dropped = st.kept[i], st.dropped[i]
		} else if s.Kept {
			s.Kept, s.Dropped = false, fmt.Sprintf("found by the fix of iteration %d, which was undone", it)
		}
	}
	r.grounded, r.out.Decision, r.out.Report = st.grounded, st.decision, st.report
	last := &r.out.Iterations[len(r.out.Iterations)-1]
	last.Reverted, last.Applied = true, applied
	r.save()
	return st.report
}

// nextFix pops the highest-priority fix not applied yet; when every fix
// has been tried, the highest-priority one again.
func (r *run) nextFix(fixes []eval.Fix) eval.Fix {
	for _, f := range fixes {
		if !r.tried[f.Dimension] {
			r.tried[f.Dimension] = true
			return f
		}
	}
	return fixes[0]
}

// stagesRun lists the stage numbers (1-6) the trace shows for iteration it.
func (r *run) stagesRun(it int) []int {
	var out []int
	for _, e := range r.tr.all() {
		if e.Iteration == it && e.Number > 0 && !slices.Contains(out, e.Number) {
			out = append(out, e.Number)
		}
	}
	slices.Sort(out)
	return out
}

// kept returns the sources that passed the gate, best first, at most
// MaxSources (the diversity fix may add up to 5).
func (r *run) kept() []*SourceRecord {
	var out []*SourceRecord
	for _, s := range r.sources {
		if s.Kept {
			out = append(out, s)
		}
	}
	return out
}

// whyQuery is the why of gather's search for the question itself.
const whyQuery = "query"

// gather runs stages 1-4 for one search: search, fetch what has no text,
// extract, summarize and gate. New sources are appended to r.sources.
func (r *run) gather(ctx context.Context, it int, q web.Query, why string) error {
	if r.noSearch {
		return errNoSearch
	}
	ev, done := r.tr.begin(StageSearch, it)
	ev.Inputs["query"], ev.Inputs["why"] = q.Text, why
	if len(q.ExcludeDomains) > 0 {
		ev.Inputs["exclude_domains"] = q.ExcludeDomains
	}
	if len(q.PreferDomains) > 0 {
		ev.Inputs["prefer_domains"] = q.PreferDomains
	}
	results, err := r.cfg.Searcher.Search(ctx, q)
	r.out.Searches = append(r.out.Searches, q.Text)
	if err != nil {
		ev.Errors = append(ev.Errors, err.Error())
		r.out.QoS.Errors = append(r.out.QoS.Errors, "search: "+err.Error())
		// A backend that cannot be reached stops the run, and so does
		// the failure of the run's first search, the question itself (a
		// SearxNG refusing JSON, a broken index): going on would report
		// "insufficient data" about a search that never happened. A
		// later search (a repair, CRAG) that fails only finds nothing.
		var ue *web.UnreachableError
		if errors.As(err, &ue) || (it == 0 && why == whyQuery) {
			done()
			return err
		}
	}
	var fresh []*SourceRecord
	for i, res := range results {
		key := web.DocumentKey(res.URL)
		if r.seen[key] {
			continue
		}
		r.seen[key] = true
		src := eval.Source{URL: res.URL, Title: res.Title, Text: res.Text, Author: res.Author, Published: res.Published}
		fresh = append(fresh, newSourceRecord(src, res.References, q.Text, it, len(r.sources)+i))
	}
	ev.Outputs["results"], ev.Outputs["new"] = len(results), len(fresh)
	done()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := r.fetch(ctx, it, fresh); err != nil {
		return err
	}
	r.sources = append(r.sources, fresh...)
	return r.gate(ctx, it, fresh)
}

// fetchURLs adds the --url sources (first iteration only).
func (r *run) fetchURLs(ctx context.Context, it int) error {
	var fresh []*SourceRecord
	for _, u := range r.cfg.URLs {
		key := web.DocumentKey(u)
		if r.seen[key] {
			continue
		}
		r.seen[key] = true
		fresh = append(fresh, newSourceRecord(eval.Source{URL: u}, 0, foundByURL, it, len(r.sources)))
	}
	if len(fresh) == 0 {
		return nil
	}
	if err := r.fetch(ctx, it, fresh); err != nil {
		return err
	}
	r.sources = append(r.sources, fresh...)
	return r.gate(ctx, it, fresh)
}

// fetch runs stages 2-3 for the sources without text, in parallel. A
// failed fetch drops the source with its reason; it never stops the run.
func (r *run) fetch(ctx context.Context, it int, srcs []*SourceRecord) error {
	var todo []*SourceRecord
	for _, s := range srcs {
		if s.Text == "" {
			todo = append(todo, s)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	ev, done := r.tr.begin(StageFetch, it)
	defer done()
	ev.Inputs["urls"] = len(todo)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, s := range todo {
		g.Go(func() error {
			if r.cfg.Fetcher == nil {
				s.Dropped = "fetch: no fetcher configured"
				return nil
			}
			doc, err := r.cfg.Fetcher.Fetch(gctx, s.URL)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				// The URL is the source's own; the record keeps the why.
				var fe *web.FetchError
				if errors.As(err, &fe) {
					s.Dropped = "fetch: " + fe.Detail()
				} else {
					s.Dropped = "fetch: " + err.Error()
				}
				return nil
			}
			s.Text = doc.Text
			s.Title = cmp.Or(s.Title, doc.Title)
			s.Author = cmp.Or(s.Author, doc.Author)
			if s.Published.IsZero() {
				s.Published = doc.Published
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	failed := 0
	for _, s := range todo {
		if s.Dropped != "" {
			failed++
			ev.Errors = append(ev.Errors, s.URL+": "+s.Dropped)
		}
	}
	r.out.QoS.FetchErrors += failed
	ev.Outputs["fetched"], ev.Outputs["failed"] = len(todo)-failed, failed
	return nil
}

// gate runs stage 4: a summary per source, then the relevance grade of
// each, all in parallel. Sources at or above the cutoff are kept, best
// grade first, up to MaxSources in all.
func (r *run) gate(ctx context.Context, it int, srcs []*SourceRecord) error {
	ev, done := r.tr.begin(StageGate, it)
	defer done()
	judge := judges.SourceRelevance{Model: r.cfg.Model, Cutoff: r.cfg.Mode.Cutoff}
	var u eval.Usage
	var todo []*SourceRecord
	for _, s := range srcs {
		if s.Dropped == "" {
			todo = append(todo, s)
		}
	}
	usages := make([]eval.Usage, len(todo))
	g, gctx := errgroup.WithContext(ctx)
	for i, s := range todo {
		g.Go(func() error {
			sum, su, err := r.summarize(gctx, s)
			if err != nil {
				return err
			}
			s.Summary = sum
			sg, err := judge.Grade(gctx, r.query, s.summarized())
			if err != nil {
				return err
			}
			if !r.offline() {
				r.model.note(sg.Err)
			}
			s.Grade, s.GateReason, s.Defaulted = sg.Grade, sg.Reason, sg.Defaulted
			usages[i] = su.Add(sg.Usage.Recorded())
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, x := range usages {
		u = u.Add(x)
	}
	cred := heuristics.Credibility{Tiers: r.cfg.Tiers, Now: r.cfg.recency()}
	kept, dropped, defaults := 0, 0, 0
	for _, s := range todo {
		s.Rating = cred.Rate(s.Source).Rating
		if s.Defaulted {
			defaults++
		}
		if s.Grade >= r.cfg.Mode.Cutoff {
			s.Kept = true
			kept++
		} else {
			s.Dropped = fmt.Sprintf("relevance %d below %d: %s", s.Grade, r.cfg.Mode.Cutoff, s.GateReason)
			dropped++
		}
	}
	r.out.QoS.GateDefaults += defaults
	ev.Usage = u
	ev.Inputs["sources"] = len(todo)
	ev.Outputs["kept"], ev.Outputs["dropped"], ev.Outputs["defaulted_to_3"] = kept, dropped, defaults
	return nil
}

// cap keeps at most limit sources: the best graded, then the first found.
// Credibility does not decide here: replacing weak sources is the
// source-quality fix's job, and it is recorded when it happens.
func (r *run) cap(it, limit int) {
	kept := r.kept()
	if len(kept) <= limit {
		return
	}
	ev, done := r.tr.begin(StageGate, it)
	defer done()
	ev.Inputs["cap"] = limit
	slices.SortStableFunc(kept, func(a, b *SourceRecord) int {
		return cmp.Or(cmp.Compare(b.Grade, a.Grade), cmp.Compare(a.rank, b.rank))
	})
	for _, s := range kept[limit:] {
		s.Kept = false
		s.Dropped = fmt.Sprintf("over the limit of %d sources", limit)
		ev.Decisions = append(ev.Decisions, "dropped "+s.URL+": "+s.Dropped)
	}
}

// score runs stage 6 on the report of iteration it, and records the
// iteration with its card (and the run's files) before the stage ends.
func (r *run) score(ctx context.Context, it Iteration, report string, kept []*SourceRecord) (eval.Card, error) {
	ev, done := r.tr.begin(StageScore, it.Iteration)
	defer done()
	s := eval.Sample{Query: r.query, Answer: report}
	for _, k := range kept {
		s.Sources = append(s.Sources, k.Source)
	}
	card, err := Score(ctx, r.cfg.Profile, s, r.cfg.Options)
	if err != nil {
		return eval.Card{}, err
	}
	r.model.noteCard(card)
	ev.Usage = card.Usage
	ev.Outputs["status"], ev.Outputs["total"] = card.Status, card.Total
	if it.Iteration > 0 {
		it.Stages = r.stagesRun(it.Iteration)
		if !slices.Contains(it.Stages, stageNumbers[StageScore]) {
			it.Stages = append(it.Stages, stageNumbers[StageScore])
		}
	}
	it.Card = card
	r.out.Report = report
	r.out.Iterations = append(r.out.Iterations, it)
	r.save()
	return card, nil
}

// snapshot is the run as it stands: the record so far with its QoS, trace
// and sources. err is the error that stopped the run, if any; a run with
// no status yet is "running".
func (r *run) snapshot(err error) *Run {
	out := *r.out
	out.Iterations = slices.Clone(r.out.Iterations)
	out.CRAG = slices.Clone(r.out.CRAG)
	out.Searches = slices.Clone(r.out.Searches)
	out.QoS.Errors = slices.Clone(r.out.QoS.Errors)
	out.Trace = r.tr.all()
	out.QoS.Total = r.cfg.Now().Sub(r.start)
	out.QoS.Stages = map[string]time.Duration{}
	for _, e := range out.Trace {
		out.QoS.Stages[e.Stage] += e.Duration
		out.QoS.LLMCalls += e.Usage.Calls
		out.QoS.TokensIn += e.Usage.TokensIn
		out.QoS.TokensOut += e.Usage.TokensOut
		out.QoS.CostUSD += e.Usage.CostUSD
	}
	if r.usage != nil {
		u := r.usage.Usage()
		out.QoS.LLMCalls = u.Calls - r.base.Calls
		out.QoS.TokensIn = u.TokensIn - r.base.TokensIn
		out.QoS.TokensOut = u.TokensOut - r.base.TokensOut
		out.QoS.CostUSD = u.CostUSD - r.base.CostUSD
	}
	out.Defaulted = out.QoS.GateDefaults
	for _, it := range out.Iterations {
		out.Defaulted += it.Card.Defaulted
	}
	out.Sources = []SourceRecord{}
	for _, s := range r.sources {
		out.Sources = append(out.Sources, *s)
	}
	switch {
	case err != nil:
		out.QoS.Errors = append(out.QoS.Errors, err.Error())
		out.Status, out.Reason = statusOf(err), err.Error()
	case out.Status == "":
		out.Status = StatusRunning
		out.Reason = "the run had not finished when this was written"
	}
	return &out
}
