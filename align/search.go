package align

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/prompts"
)

// Reply schema names of the two proposal requests.
const (
	criteriaSchema = "align_criteria"
	rubricSchema   = "align_rubric"
)

// maxMisses is the most wrongly graded training records a proposal
// request shows.
const maxMisses = 6

// candidate is one judge the search scored on the training part.
type candidate struct {
	def *judges.Definition
	// What says how it differs from the judge as it was.
	what string
	// train is its agreement on the training part, at its threshold;
	// rows each row's.
	train float64
	rows  []float64
	// shown are the records shown as its examples, left out of train.
	shown map[string]bool
}

// aligner is an Align under way.
type aligner struct {
	job    Job
	model  judges.Model
	limit  int
	graded bool
	// judged and failed count the judgements and those that failed (a
	// neutral default, an error, a panic); first is the first failure.
	mu             sync.Mutex
	judged, failed int
	first          string
	search         Search
}

// scores judges every row with def, in parallel; a failed judgement is
// a Defaulted score, counted.
func (a *aligner) scores(ctx context.Context, def *judges.Definition, rows []row) ([]eval.Score, error) {
	scorer := def.Entry().Build(a.model)
	out := make([]eval.Score, len(rows))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(a.limit)
	for i, r := range rows {
		g.Go(func() error {
			out[i] = a.score(gctx, scorer, r.rec.Sample)
			return gctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// score is one judgement, a failure (error, panic) kept as a Defaulted
// score and counted.
func (a *aligner) score(ctx context.Context, scorer eval.Scorer, s eval.Sample) (sc eval.Score) {
	defer func() {
		if r := recover(); r != nil {
			sc = eval.Score{Defaulted: true, Err: fmt.Errorf("judge panicked: %v\n%s", r, debug.Stack())}
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		a.judged++
		if !sc.Counted() {
			a.failed++
			if a.first == "" && sc.Err != nil {
				a.first = sc.Err.Error()
			}
		}
	}()
	sc, err := scorer.Score(ctx, s)
	if err != nil {
		sc = eval.Score{Defaulted: true, Err: err}
	}
	return sc
}

// agreement is how each row's judgement agrees with its label: 1 or 0
// for a binary label (the verdict at threshold against it), 1 less the
// distance in grades over the scale's span for a graded one; NaN where
// the judgement failed.
func (a *aligner) agreement(sc judges.Scale, threshold float64, rows []row, scores []eval.Score) []float64 {
	out := make([]float64, len(rows))
	for i, s := range scores {
		switch {
		case !s.Counted():
			out[i] = math.NaN()
		case a.graded:
			out[i] = 1 - math.Abs(s.Points-rows[i].label)/float64(sc.Hi-sc.Lo)
		case (s.Points >= threshold) == (rows[i].label == 1):
			out[i] = 1
		}
	}
	return out
}

// mean is the mean of the defined values of x, NaN when there is none;
// skip leaves out the rows of those ids.
func mean(x []float64, rows []row, skip map[string]bool) float64 {
	sum, n := 0.0, 0
	for i, v := range x {
		if math.IsNaN(v) || (skip != nil && skip[rows[i].rec.ID]) {
			continue
		}
		sum += v
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// evaluate scores c on the training rows and sets its agreement, at the
// best threshold of a graded scale for a binary label (ties keep the one
// nearest the judge's own).
func (a *aligner) evaluate(ctx context.Context, c *candidate, train []row) error {
	scores, err := a.scores(ctx, c.def, train)
	if err != nil {
		return err
	}
	a.search.Candidates++
	sc := c.def.Scale
	c.rows = a.agreement(sc, c.def.Threshold, train, scores)
	c.train = mean(c.rows, train, c.shown)
	if a.graded || sc.PassFail {
		return nil
	}
	own := c.def.Threshold
	for g := sc.Lo + 1; g <= sc.Hi; g++ {
		t := float64(g)
		a.search.Thresholds++
		rows := a.agreement(sc, t, train, scores)
		m := mean(rows, train, c.shown)
		if better(m, c.train) || (m == c.train && math.Abs(t-own) < math.Abs(c.def.Threshold-own)) {
			d := *c.def
			d.Threshold = t
			c.def, c.train, c.rows = &d, m, rows
		}
	}
	if c.def.Threshold != own {
		c.what += fmt.Sprintf(", threshold %s", strconv.FormatFloat(c.def.Threshold, 'g', -1, 64))
	}
	return nil
}

// better reports whether agreement x beats y (NaN beats nothing).
func better(x, y float64) bool { return !math.IsNaN(x) && (math.IsNaN(y) || x > y) }

// searchTrain scores the judge as it was and its variants on the
// training rows, within the candidate budget, and returns the best.
func (a *aligner) searchTrain(ctx context.Context, orig *judges.Definition, train []row) (*candidate, error) {
	best := &candidate{def: orig, what: "as it was"}
	if err := a.evaluate(ctx, best, train); err != nil {
		return nil, err
	}
	left := a.job.candidates - 1
	try := func(c *candidate) error {
		left--
		if err := a.evaluate(ctx, c, train); err != nil {
			return err
		}
		// On the rows neither shows as an example.
		skip := map[string]bool{}
		maps.Copy(skip, c.shown)
		maps.Copy(skip, best.shown)
		if better(mean(c.rows, train, skip), mean(best.rows, train, skip)) {
			best = c
		}
		return nil
	}
	// (a) The criterion's wording.
	if n := min(3, left); n > 0 {
		rewrites, err := a.criteria(ctx, orig, train, n)
		if err != nil {
			return nil, err
		}
		for i, text := range rewrites {
			d := *orig
			d.Criterion = text
			if err := try(&candidate{def: &d, what: fmt.Sprintf("criterion rewrite %d", i+1)}); err != nil {
				return nil, err
			}
		}
	}
	// (b) A rubric's anchors, for a graded scale.
	if !orig.Scale.PassFail && left > 0 {
		rubric, err := a.rubric(ctx, best.def, train)
		if err != nil {
			return nil, err
		}
		d := *best.def
		d.Rubric = rubric
		if err := try(&candidate{def: &d, what: best.what + ", rubric anchors"}); err != nil {
			return nil, err
		}
	}
	// (c) Few-shot examples drawn from the training labels.
	base := best
	for k := 2; k <= a.job.examples && left > 0; k += 2 {
		d := *base.def
		shown := a.draw(&d, train, k)
		if len(shown) < k {
			break
		}
		if err := try(&candidate{def: &d, what: fmt.Sprintf("%s, %d examples", base.what, k), shown: shown}); err != nil {
			return nil, err
		}
	}
	return best, nil
}

// draw sets k examples on d, drawn from the training rows with the
// seed, taking the labels in turn; it returns the ids of those shown.
func (a *aligner) draw(d *judges.Definition, train []row, k int) map[string]bool {
	r := rand.New(rand.NewPCG(a.job.Seed, uint64(k)))
	cls := classes(train)
	for _, c := range cls {
		r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	}
	shown := map[string]bool{}
	d.Examples = nil
	for i := 0; len(shown) < k; i++ {
		took := false
		for _, c := range cls {
			if i < len(c) && len(shown) < k {
				ex, ok := d.ExampleOf(c[i].rec.Sample, gradeOf(d.Scale, c[i].label, a.graded))
				if ok {
					d.Examples = append(d.Examples, ex)
					shown[c[i].rec.ID] = true
				}
				took = true
			}
		}
		if !took {
			break
		}
	}
	a.search.Examples++
	return shown
}

// misses are up to maxMisses training rows the judge as it was graded
// otherwise than people (or, with none, the first rows), as examples
// with the people's grade.
func (a *aligner) misses(ctx context.Context, d *judges.Definition, train []row) ([]prompts.GradedExample, error) {
	scores, err := a.scores(ctx, d, train)
	if err != nil {
		return nil, err
	}
	agr := a.agreement(d.Scale, d.Threshold, train, scores)
	var out, rest []prompts.GradedExample
	for i, r := range train {
		ex, ok := d.ExampleOf(r.rec.Sample, gradeOf(d.Scale, r.label, a.graded))
		if !ok {
			continue
		}
		if agr[i] < 1 {
			out = append(out, d.Shown(ex))
		} else {
			rest = append(rest, d.Shown(ex))
		}
	}
	if len(out) == 0 {
		out = rest
	}
	return out[:min(len(out), maxMisses)], nil
}

// criteriaReply is the reply proposing rewrites of a criterion.
type criteriaReply struct {
	Criteria []string `json:"criteria"`
}

// Validate implements llm.Validator: one to ten rewrites, none blank.
func (r criteriaReply) Validate() error {
	if len(r.Criteria) == 0 || len(r.Criteria) > 10 {
		return fmt.Errorf("want 1 to 10 criteria, got %d", len(r.Criteria))
	}
	for i, c := range r.Criteria {
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("criterion %d is empty", i+1)
		}
	}
	return nil
}

// criteria has the model propose up to n rewrites of d's criterion from
// the training rows it got wrong; those equal to it or each other are
// dropped.
func (a *aligner) criteria(ctx context.Context, d *judges.Definition, train []row, n int) ([]string, error) {
	misses, err := a.misses(ctx, d, train)
	if err != nil {
		return nil, err
	}
	r, err := prompts.MustGet("align.criterion").Render(prompts.AlignCriterion{Criterion: d.Criterion, Scale: d.Scale.String(), Misses: misses, N: n})
	if err != nil {
		return nil, err
	}
	var out criteriaReply
	if err := a.propose(ctx, r, llm.SchemaFor[criteriaReply](criteriaSchema), "align.criterion", &out); err != nil {
		return nil, fmt.Errorf("align: propose criteria: %w", err)
	}
	var texts []string
	for _, c := range out.Criteria {
		c = strings.TrimSpace(c)
		if c != d.Criterion && !slices.Contains(texts, c) && len(texts) < n {
			texts = append(texts, c)
		}
	}
	a.search.Criteria += len(texts)
	return texts, nil
}

// rubricReply is the reply writing a rubric.
type rubricReply struct {
	Rubric []prompts.RubricLine `json:"rubric"`
}

// rubric has the model write an anchor for each grade of d's scale from
// training rows with their grades, in the scale's order.
func (a *aligner) rubric(ctx context.Context, d *judges.Definition, train []row) ([]prompts.RubricLine, error) {
	var exs []prompts.GradedExample
	for _, c := range classes(train) {
		for _, r := range c[:min(len(c), 2)] {
			if ex, ok := d.ExampleOf(r.rec.Sample, gradeOf(d.Scale, r.label, a.graded)); ok {
				exs = append(exs, d.Shown(ex))
			}
		}
	}
	grades := d.Scale.Grades()
	r, err := prompts.MustGet("align.rubric").Render(prompts.AlignRubric{Criterion: d.Criterion, Scale: d.Scale.String(), Grades: grades, Examples: exs})
	if err != nil {
		return nil, err
	}
	var out rubricReply
	check := func(v any) error {
		got := map[string]bool{}
		for _, l := range v.(*rubricReply).Rubric {
			if !slices.Contains(grades, l.Grade) || strings.TrimSpace(l.Text) == "" {
				return fmt.Errorf("rubric line %q: want a grade of %s with its text", l.Grade, d.Scale)
			}
			got[l.Grade] = true
		}
		if len(got) != len(grades) {
			return fmt.Errorf("want one line for each grade of %s, got %d", d.Scale, len(got))
		}
		return nil
	}
	if err := a.propose(ctx, r, llm.SchemaFor[rubricReply](rubricSchema), "align.rubric", &out, check); err != nil {
		return nil, fmt.Errorf("align: propose a rubric: %w", err)
	}
	lines := map[string]string{}
	for _, l := range out.Rubric {
		lines[l.Grade] = strings.TrimSpace(l.Text)
	}
	var rubric []prompts.RubricLine
	for _, g := range grades {
		rubric = append(rubric, prompts.RubricLine{Grade: g, Text: lines[g]})
	}
	a.search.Rubrics++
	return rubric, nil
}

// propose asks the model one proposal request, through the job's client.
func (a *aligner) propose(ctx context.Context, r prompts.Rendered, schema *llm.Schema, tag string, out any, checks ...llm.Check) error {
	_, err := llm.ChatJSON(ctx, a.model, llm.Request{
		Messages: []llm.Message{{Role: llm.System, Content: r.System}, {Role: llm.User, Content: r.User}},
		Schema:   schema, Key: r.Key, Tag: tag,
	}, out, checks...)
	return err
}
