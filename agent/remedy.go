package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/mdtext"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/prompts"
	"github.com/assaylabs/assay/web"
)

// minCredibility is the credibility below which the source-quality fix
// replaces a source (seed 001).
const minCredibility = 7

// crag classifies the gated retrieval (seed 002) and acts on it: correct
// keeps it, ambiguous searches each sub-query, incorrect runs one
// supplemental search with the reformulated query.
func (r *run) crag(ctx context.Context, it int) error {
	kept := r.kept()
	s := eval.Sample{Query: r.query}
	var text []string
	for _, k := range kept {
		src := k.summarized()
		src.Score = float64(k.Grade) / 5
		s.Sources = append(s.Sources, src)
		text = append(text, k.Summary)
	}
	ctxText := strings.Join(text, "\n\n")
	s.Context = &eval.Context{Text: ctxText, TokenCount: len(strings.Fields(ctxText)) * 4 / 3}
	// Assessed once; the classification reads the same overall.
	a := heuristics.AssessContext(s)
	c := ClassifyCRAG(r.query, a.Overall)
	step := CRAGStep{Iteration: it, Overall: a.Overall, Classification: c.Classification, Action: c.Action.Type}
	ev, done := r.tr.begin(StageCRAG, it)
	ev.Outputs["overall"], ev.Outputs["classification"] = a.Overall, c.Classification
	var queries []string
	switch c.Classification {
	case CRAGAmbiguous:
		queries = c.Action.SubQueries
		if len(queries) > 3 {
			queries = queries[:3]
		}
	case CRAGIncorrect:
		if q := strings.TrimSpace(c.Action.SearchQuery); q != "" && q != r.query {
			queries = []string{q}
		}
	}
	step.Queries = queries
	ev.Decisions = append(ev.Decisions, fmt.Sprintf("%s (overall %.2f): %s %v", c.Classification, a.Overall, c.Action.Type, queries))
	done()
	before := len(r.kept())
	for _, q := range queries {
		if err := r.gather(ctx, it, web.Query{Text: q, Limit: r.cfg.Mode.MaxSources}, "crag: "+string(c.Classification)); err != nil {
			return err
		}
	}
	step.Added = len(r.kept()) - before
	r.out.CRAG = append(r.out.CRAG, step)
	return nil
}

// repair is a metric's repair action in the research loop (the Repair of
// its metric.Entry): it acts on the run for the fix of iteration it and
// reports what it did; rewrite is true when only stages 5-6 must re-run.
type repair func(ctx context.Context, r *run, it int, fix eval.Fix, card eval.Card) (applied string, rewrite bool, err error)

// applyFix runs the repair action of the fix's metric (seed 001's queue)
// and reports what it did; clarity is true when only stages 5-6 must
// re-run.
func (r *run) applyFix(ctx context.Context, it int, fix eval.Fix, card eval.Card) (applied string, clarity bool, err error) {
	ev, done := r.tr.begin(StageFix, it)
	ev.Inputs["dimension"], ev.Inputs["priority"], ev.Inputs["rerun_stages"] = fix.Dimension, fix.Priority, fix.RerunStages
	defer func() {
		ev.Decisions = append(ev.Decisions, applied)
		done()
	}()
	e, _ := r.cfg.Profile.Metrics().Lookup(fix.Dimension)
	act, ok := e.Repair.(repair)
	if !ok {
		return "no action for " + fix.Dimension, false, nil
	}
	// A fix whose profile entry leaves out stage 1 re-runs no search,
	// whatever its action would do.
	r.noSearch = len(fix.RerunStages) > 0 && !slices.Contains(fix.RerunStages, stageNumbers[StageSearch])
	defer func() { r.noSearch = false }()
	applied, clarity, err = act(ctx, r, it, fix, card)
	if errors.Is(err, errNoSearch) {
		return fmt.Sprintf("no search: the profile re-runs stages %v for this fix; the report is written again", fix.RerunStages), false, nil
	}
	return applied, clarity, err
}

// errNoSearch is gather's answer while a fix that does not re-run stage 1
// is applied. A repair action returns it before it changes the run.
var errNoSearch = errors.New("research: the fix does not re-run the search")

// repairGrounding drops the unsourced claims: the report is written again
// from cited source sentences.
func repairGrounding(_ context.Context, r *run, _ int, _ eval.Fix, _ eval.Card) (string, bool, error) {
	r.grounded = true
	return "unsourced claims dropped: the report is rebuilt from cited source sentences", false, nil
}

// repairSourceQuality searches preferring primary sources and replaces
// the sources below credibility 7 with the new ones at or above it.
func repairSourceQuality(ctx context.Context, r *run, it int, _ eval.Fix, _ eval.Card) (string, bool, error) {
	weak := r.weakSources()
	if len(weak) == 0 {
		return "no source below credibility 7 to replace", false, nil
	}
	if err := r.gather(ctx, it, web.Query{Text: r.query, Limit: 2 * r.cfg.Mode.MaxSources, PreferDomains: primaryDomains}, "fix: source quality"); err != nil {
		return "", false, err
	}
	var strong []*SourceRecord
	for _, s := range r.kept() {
		if s.Iteration == it && s.Rating >= minCredibility {
			strong = append(strong, s)
		}
	}
	n := min(len(weak), len(strong))
	for _, w := range weak[:n] {
		w.Kept = false
		w.Dropped = fmt.Sprintf("replaced by a primary source: credibility %.1f below %d", w.Rating, minCredibility)
	}
	// New sources still below 7 do not displace anything.
	for _, s := range r.kept() {
		if s.Iteration == it && s.Rating < minCredibility {
			s.Kept = false
			s.Dropped = fmt.Sprintf("credibility %.1f below %d (source-quality fix)", s.Rating, minCredibility)
		}
	}
	r.cap(it, r.cfg.Mode.MaxSources)
	return fmt.Sprintf("searched preferring primary sources; replaced %d of %d source(s) below credibility %d", n, len(weak), minCredibility), false, nil
}

// repairDiversity searches excluding the domains already used, and keeps
// at least 5 sources.
func repairDiversity(ctx context.Context, r *run, it int, _ eval.Fix, _ eval.Card) (string, bool, error) {
	var used []string
	for _, s := range r.kept() {
		used = append(used, s.Domain)
	}
	slices.Sort(used)
	used = slices.Compact(used)
	before := len(r.kept())
	if err := r.gather(ctx, it, web.Query{Text: r.query, Limit: 2 * r.cfg.Mode.MaxSources, ExcludeDomains: used}, "fix: diversity"); err != nil {
		return "", false, err
	}
	applied := fmt.Sprintf("searched excluding %d used domain(s); %d new source(s) kept", len(used), len(r.kept())-before)
	r.cap(it, max(r.cfg.Mode.MaxSources, 5))
	return applied, false, nil
}

// repairCompleteness searches once for each of the first three gaps the
// completeness score names.
func repairCompleteness(ctx context.Context, r *run, it int, fix eval.Fix, card eval.Card) (string, bool, error) {
	sc, _ := card.Get(fix.Dimension)
	gaps := sc.Evidence.Gaps
	if len(gaps) > 3 {
		gaps = gaps[:3]
	}
	before := len(r.kept())
	for _, g := range gaps {
		if err := r.gather(ctx, it, web.Query{Text: r.query + " " + g, Limit: r.cfg.Mode.MaxSources}, "fix: completeness gap "+g); err != nil {
			return "", false, err
		}
	}
	applied := fmt.Sprintf("one search per gap (%s); %d new source(s) kept", strings.Join(gaps, ", "), len(r.kept())-before)
	r.cap(it, r.cfg.Mode.MaxSources)
	return applied, false, nil
}

// repairClarity restructures the report: shorter sentences, no repeats;
// only stages 5-6 re-run.
func repairClarity(context.Context, *run, int, eval.Fix, eval.Card) (string, bool, error) {
	return "restructured: shorter sentences, no repeats (stages 5-6)", true, nil
}

// weakSources are the kept sources below credibility 7, weakest first.
func (r *run) weakSources() []*SourceRecord {
	var out []*SourceRecord
	for _, s := range r.kept() {
		if s.Rating < minCredibility {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b *SourceRecord) int {
		return cmp.Or(cmp.Compare(a.Rating, b.Rating), cmp.Compare(b.rank, a.rank))
	})
	return out
}

// explainWith asks the model for the insufficient-data note (seed 004);
// offline, or when the model fails, the note is written from the record.
func (r *run) explainWith(ctx context.Context) string {
	ev, done := r.tr.begin(StageSynthesize, 0)
	defer done()
	if r.offline() {
		ev.Decisions = append(ev.Decisions, "insufficient data: explanation written from the run's record")
		return r.explain()
	}
	var dropped []string
	for _, s := range r.sources {
		dropped = append(dropped, cmp.Or(s.Title, s.URL)+": "+cmp.Or(s.Dropped, "kept"))
	}
	var out struct {
		Explanation string `json:"explanation"`
	}
	u, err := judges.Ask(ctx, r.cfg.Model, "research.explain", prompts.Explanation{Question: r.query, Mode: r.cfg.Mode.Name,
		Needed: r.cfg.Mode.MinShort, Searches: r.out.Searches, Dropped: dropped}, &out, explanationSchema(), 0)
	ev.Usage = u.Recorded()
	if ctx.Err() == nil {
		r.model.note(cmp.Or(err, emptyErr(out.Explanation, "explanation")))
	}
	if err != nil || strings.TrimSpace(out.Explanation) == "" {
		if err != nil {
			ev.Errors = append(ev.Errors, "model explanation failed, written from the record: "+err.Error())
		}
		return r.explain()
	}
	ev.Decisions = append(ev.Decisions, "insufficient data: explanation written by the model")
	// The query is the user's text and the note the model's: the one is
	// escaped as explain escapes it, the other's raw HTML and non-web links
	// become text (mdtext).
	return "# " + mdtext.Text(r.query) + "\n\n" + mdtext.Safe(strings.TrimSpace(out.Explanation)) + "\n"
}

var explanationSchema = sync.OnceValue(func() *llm.Schema {
	return llm.SchemaFor[struct {
		Explanation string `json:"explanation"`
	}]("explanation")
})

// explain writes the insufficient-data response: what was searched, what
// was dropped and why, and other queries to try (seed 004).
func (r *run) explain() string {
	var b strings.Builder
	kept := r.kept()
	fmt.Fprintf(&b, "# %s\n\n## Insufficient data\n\n", mdtext.Text(r.query))
	fmt.Fprintf(&b, "Not enough relevant sources were found to write a report without padding it: %d source(s) passed the relevance gate, and %s mode needs %d for a short report and %d for a full one.\n\n",
		len(kept), r.cfg.Mode.Name, r.cfg.Mode.MinShort, r.cfg.Mode.MinFull)
	b.WriteString("## What was searched\n\n")
	for _, q := range r.out.Searches {
		fmt.Fprintf(&b, "- %s (%s)\n", mdtext.Text(strconv.Quote(q)), r.cfg.Searcher.Name())
	}
	b.WriteString("\n## What was dropped and why\n\n")
	if len(r.sources) == 0 {
		b.WriteString("- No search returned any document.\n")
	}
	for _, s := range r.sources {
		why := s.Dropped
		if s.Kept {
			why = fmt.Sprintf("kept (relevance %d)", s.Grade)
		}
		// Titles, URLs and reasons come from the sources and the judge.
		fmt.Fprintf(&b, "- %s: %s\n", mdtext.Text(cmp.Or(s.Title, s.URL)), mdtext.Text(why))
	}
	b.WriteString("\n## Suggestions\n\n")
	seen := map[string]bool{strings.ToLower(r.query): true}
	for _, q := range suggestions(r.query) {
		if !seen[strings.ToLower(q)] {
			seen[strings.ToLower(q)] = true
			fmt.Fprintf(&b, "- Search for %s.\n", mdtext.Text(strconv.Quote(q)))
		}
	}
	if r.cfg.Mode.Name != "deep" {
		b.WriteString("- Run again with `--mode deep`, which considers more sources.\n")
	}
	// Advice names the other backends, never the one that was just used.
	if r.cfg.Searcher.Name() == web.SearxNGName {
		b.WriteString("- Point `--corpus` at documents on this subject.\n")
	} else {
		b.WriteString("- Point `--corpus` at documents on this subject, or search the web with `--search searxng:URL`.\n")
	}
	return b.String()
}

// suggestions are other queries for the same need: the CRAG sub-queries
// and the query's key terms on their own.
func suggestions(query string) []string {
	c := ClassifyRetrieval(eval.Sample{Query: query})
	out := append([]string(nil), c.Action.SubQueries...)
	if q := c.Action.SearchQuery; q != "" {
		out = append(out, q)
	}
	if a := heuristics.Aspects(query); len(a) > 1 {
		out = append(out, strings.Join(a, " "))
	}
	return out
}

// emptyErr is an error for a model reply whose text is empty, or nil.
func emptyErr(text, what string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("the model's %s is empty", what)
	}
	return nil
}
