package judges

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/prompts"
)

// Reply schema names of a defined judge's two requests.
const (
	definedGradeSchema = "defined_grade"
	definedStepsSchema = "defined_steps"
)

// ErrNeedsModel is returned by a Defined judge asked to score offline: it
// has no offline counterpart, and makes up no score. Runs refuse such a
// judge before any work (metric.Registry.CheckModel). Test with errors.Is.
var ErrNeedsModel = errors.New("a judge defined in a judges file needs a model: give --llm")

// Defined is the scorer of a judge a user defined (Definition). It asks
// the model for a reason and a grade on the definition's scale, every
// field it reads inside the prompt's nonce-tagged data blocks, and reads
// the reply strictly against the scale (a grade off it gets the repair
// request, then the neutral default).
//
// Where the server returns token log-probabilities, the grade is G-Eval's:
// the mean of the scale's grades weighted by the probabilities the model
// gave them at the place it wrote its grade, and the score's Method and
// Reason say so (the probabilities are in the evidence's counts, p_GRADE).
// Otherwise it is the grade the model wrote, labelled "sampled". A grade
// of two tokens (10 in a tokenizer that splits it) has no weighting and
// is sampled too.
//
// A definition without steps has the model write them from the criterion
// before its first grade; a Defined built by its Entry keeps them for
// every score it gives (the model client's cache keeps them across runs),
// and a run that keeps them (KeepSteps, PrepareSteps) gives them to every
// scorer without a call.
//
// It needs a model: offline its Score returns ErrNeedsModel. A missing or
// blank answer it reads is Skipped (eval.ErrNoAnswer), like every judge's;
// a sample without another field it reads fails its Check.
type Defined struct {
	Def   *Definition
	Model Model
	// memo keeps the generated steps; nil generates them at each score.
	memo *stepMemo
}

var _ Checker = Defined{}

// Check implements Checker: the sample must have every field the judge
// reads but the answer (whose absence is a skip).
func (d Defined) Check(s eval.Sample) error {
	for i, f := range d.Def.Fields {
		if f == FieldAnswer {
			continue
		}
		if _, ok := fieldText(s, f); !ok {
			var cause error
			switch f {
			case FieldContexts:
				cause = ErrNoContexts
			case FieldReference:
				cause = eval.ErrNoReference
			}
			return d.Def.fieldError(i, cause)
		}
	}
	return nil
}

// gradeReply is a defined judge's reply: the grade is a number or pass
// or fail, read against the scale.
type gradeReply struct {
	Reason string          `json:"reason"`
	Grade  json.RawMessage `json:"grade"`
}

// grade is the reply's grade as written ("4", "pass"), checked against sc.
func (r gradeReply) grade(sc Scale) (string, error) {
	var text string
	if sc.PassFail {
		if err := json.Unmarshal(r.Grade, &text); err != nil {
			return "", fmt.Errorf("grade %s: want \"pass\" or \"fail\"", r.Grade)
		}
	} else {
		text = string(r.Grade)
	}
	if _, ok := sc.Grade(text); !ok {
		return "", fmt.Errorf("grade %s is not one of the scale %s (%s)", r.Grade, sc, strings.Join(sc.Grades(), ", "))
	}
	return text, nil
}

// Score implements eval.Scorer.
func (d Defined) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	def, sc := d.Def, d.Def.Scale
	if Offline(d.Model) {
		return eval.Score{}, fmt.Errorf("%s: %w", def.Name, ErrNeedsModel)
	}
	if slices.Contains(def.Fields, FieldAnswer) && blank(s.Answer) {
		return skip(def.Name, Method(d.Model), sc.Max(), eval.ErrNoAnswer, eval.Usage{}), nil
	}
	if err := d.Check(s); err != nil {
		return eval.Score{}, err
	}
	steps, u, err := d.steps(ctx)
	if err != nil {
		return fail(ctx, def.Name, d.Model, sc.Max(), fmt.Errorf("write the evaluation steps: %w", err), u)
	}
	data := prompts.DefinedGrade{Version: def.Version(), Criterion: def.Criterion, Steps: steps, Scale: sc.String(), Rubric: def.Rubric, Grades: sc.replyGrades(), Examples: def.promptExamples()}
	for _, f := range def.Fields {
		text, _ := fieldText(s, f)
		data.Fields = append(data.Fields, prompts.Field{Name: f, Label: blockLabel(f), Text: text})
	}
	p, err := prompts.MustGet("defined.grade").Prepare(data)
	if err != nil {
		return eval.Score{}, err
	}
	top := min(len(sc.Grades()), 20)
	req := llm.Request{
		Prompt:      messagesOf(p),
		Schema:      sc.schema(),
		TopLogprobs: top,
		// A request for log-probabilities is its own cache entry.
		Key: p.Key + "#top_logprobs=" + strconv.Itoa(top),
		Tag: "defined." + def.Name,
	}
	if i, ok := sampleOf(ctx); ok {
		req.Temperature, req.Seed = SampleTemperature, &i
	}
	var reply gradeReply
	resp, err := llm.ChatJSONReply(ctx, d.Model, req, &reply, func(out any) error {
		_, err := out.(*gradeReply).grade(sc)
		return err
	})
	u = u.Add(resp.Usage)
	if err != nil {
		return fail(ctx, def.Name, d.Model, sc.Max(), err, u)
	}
	sampled, _ := reply.grade(sc)
	return d.score(sampled, reply.Reason, resp, u), nil
}

// score is the score of a reply whose grade is sampled: weighted by the
// reply's log-probabilities where they give it, else sampled.
func (d Defined) score(sampled, reason string, resp llm.Response, u eval.Usage) eval.Score {
	def, sc := d.Def, d.Def.Scale
	g, _ := sc.Grade(sampled)
	out := eval.Score{Metric: def.Name, Max: sc.Max(), Usage: u.Recorded(), Evidence: eval.Evidence{Counts: map[string]float64{"grade": g}}}
	mean, probs, ok := sc.Weighted(resp.Logprobs, resp.Content, sampled)
	if !ok {
		out.Points, out.Value = g, sc.Value(g)
		out.Method = Method(d.Model) + " (sampled grade, no log-probabilities)"
		why := "the server gave no log-probabilities for it"
		if len(resp.Logprobs) > 0 {
			out.Method = Method(d.Model) + " (sampled grade, log-probabilities unread)"
			why = "the log-probabilities at its place do not tell the scale's grades apart"
		}
		out.Reason = fmt.Sprintf("grade %s on %s, as sampled (%s): %s", sampled, sc, why, reason)
		return out
	}
	// Of pass/fail, the points and the value are the chance of a pass.
	out.Points, out.Value = mean, sc.Value(mean)
	var parts []string
	for _, grade := range sc.Grades() {
		if p, seen := probs[grade]; seen {
			out.Evidence.Counts["p_"+grade] = p
			parts = append(parts, fmt.Sprintf("p(%s)=%.2f", grade, p))
		}
	}
	out.Method = Method(d.Model) + " (G-Eval: grade weighted by log-probabilities)"
	what := fmt.Sprintf("grade %s on %s", strconv.FormatFloat(mean, 'f', 2, 64), sc)
	if sc.PassFail {
		what = fmt.Sprintf("pass with probability %.2f", mean)
	}
	out.Reason = fmt.Sprintf("%s, weighted by the model's log-probabilities (G-Eval; sampled %s; %s): %s", what, sampled, strings.Join(parts, ", "), reason)
	return out
}

// gradeKey finds where a reply writes its grade: the value of its
// top-level "grade" key (the last, as the reason comes first; a "grade"
// inside the reason's text is escaped and never matches).
var gradeKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"grade"\s*:\s*"?`) })

// Weighted is G-Eval's grade of a reply (content, whose sampled grade is
// sampled) from its token log-probabilities lps: the mean of the scale's
// grades weighted by the probabilities of those among the most likely
// tokens at the place the reply writes its grade, normalised over them
// (pass counts 1, fail 0), with each grade's probability. ok is false
// when there are no log-probabilities, the tokens do not make up content,
// or the grade is not one token whose alternatives name a grade.
func (sc Scale) Weighted(lps []llm.TokenLogprob, content, sampled string) (mean float64, probs map[string]float64, ok bool) {
	if len(lps) == 0 {
		return 0, nil, false
	}
	ms := gradeKey().FindAllStringIndex(content, -1)
	if len(ms) == 0 {
		return 0, nil, false
	}
	at := ms[len(ms)-1][1]
	start := 0
	for _, t := range lps {
		end := start + len(t.Token)
		if end > len(content) || content[start:end] != t.Token {
			return 0, nil, false
		}
		if at >= start && at < end {
			if gradeToken(t.Token) != sampled {
				return 0, nil, false
			}
			return sc.weigh(t.Top)
		}
		start = end
	}
	return 0, nil, false
}

// weigh is the probability-weighted mean grade over the alternatives
// that are grades of the scale.
//
// A tokenizer that splits numbers into digits (Llama 2's, Mistral's,
// Qwen's) writes 10 as "1" then "0": on a scale that goes to 10, a "1"
// among the alternatives may be grade 1 or the start of 10, and a model
// torn between 9 and 10 would read as torn between 9 and 1. Unless an
// alternative is "10" itself (the tokenizer keeps it whole), such a "1"
// cannot be read, and the grade is left as sampled.
func (sc Scale) weigh(top []llm.TopLogprob) (float64, map[string]float64, bool) {
	probs := map[string]float64{}
	mass := 0.0
	if sc.splitTen(top) {
		return 0, nil, false
	}
	for _, a := range top {
		g := gradeToken(a.Token)
		if _, ok := sc.Grade(g); !ok || math.IsNaN(a.Logprob) {
			continue
		}
		// A log-probability is at most 0; one over it (a server's error,
		// up to one whose exponential overflows to +Inf and would make
		// the mean NaN) counts as a probability of 1.
		p := math.Exp(min(a.Logprob, 0))
		probs[g] += p
		mass += p
	}
	if !(mass > 0) {
		return 0, nil, false
	}
	mean := 0.0
	for g, p := range probs {
		probs[g] = p / mass
		x, _ := sc.Grade(g)
		mean += x * probs[g]
	}
	return mean, probs, true
}

// splitTen reports whether the alternatives hold a "1" that may be the
// first digit of grade 10 (see weigh).
func (sc Scale) splitTen(top []llm.TopLogprob) bool {
	if sc.PassFail || sc.Hi < 10 || sc.Lo > 1 {
		return false
	}
	one, ten := false, false
	for _, a := range top {
		switch gradeToken(a.Token) {
		case "1":
			one = true
		case "10":
			ten = true
		}
	}
	return one && !ten
}

// gradeToken is a token as a grade: without the spaces, quotes and colon
// a tokenizer may join to it.
func gradeToken(tok string) string { return strings.Trim(tok, " \t\n\":") }

// steps are the judge's evaluation steps: its own, or those the model
// writes from its criterion, once per memo.
func (d Defined) steps(ctx context.Context) ([]string, eval.Usage, error) {
	if d.Def.Steps != nil {
		return d.Def.Steps, eval.Usage{}, nil
	}
	if d.Def.kept != nil {
		return d.Def.kept, eval.Usage{}, nil
	}
	if d.memo == nil {
		return d.Def.generateSteps(ctx, d.Model)
	}
	d.memo.mu.Lock()
	defer d.memo.mu.Unlock()
	if d.memo.steps != nil {
		return d.memo.steps, eval.Usage{}, nil
	}
	steps, u, err := d.Def.generateSteps(ctx, d.Model)
	if err == nil {
		d.memo.steps = steps
	}
	return steps, u, err
}

// stepMemo keeps the steps a model wrote for a judge, for the scores of
// one scorer (a run's).
type stepMemo struct {
	mu    sync.Mutex
	steps []string
}

// stepsReply is the reply that writes a judge's evaluation steps.
type stepsReply struct {
	Steps []string `json:"steps"`
}

// Validate implements llm.Validator: from one to ten steps, none blank.
func (r stepsReply) Validate() error {
	if len(r.Steps) == 0 || len(r.Steps) > 10 {
		return fmt.Errorf("want 1 to 10 steps, got %d", len(r.Steps))
	}
	for i, s := range r.Steps {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("step %d is empty", i+1)
		}
	}
	return nil
}

var stepsSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[stepsReply](definedStepsSchema) })

// generateSteps has m write the evaluation steps from the criterion, at
// temperature 0 even within a sampled judgement: every ask of a run
// follows the same steps.
func (d *Definition) generateSteps(ctx context.Context, m Model) ([]string, eval.Usage, error) {
	r, err := prompts.MustGet("defined.steps").Render(prompts.DefinedSteps{Criterion: d.Criterion, Scale: d.Scale.String(), Fields: strings.Join(d.Fields, ", ")})
	if err != nil {
		return nil, eval.Usage{}, err
	}
	var out stepsReply
	u, err := llm.ChatJSON(ctx, m, llm.Request{
		Messages: []llm.Message{{Role: llm.System, Content: r.System}, {Role: llm.User, Content: r.User}},
		Schema:   stepsSchema(), Key: r.Key, Tag: "defined.steps",
	}, &out)
	if err != nil {
		return nil, u, err
	}
	for i := range out.Steps {
		out.Steps[i] = strings.TrimSpace(out.Steps[i])
	}
	return out.Steps, u, nil
}

// DefinedStandIn is the dry-run stand-in of every defined judge (its
// Entry's DryRun): three evaluation steps, and a grade three quarters up
// its scale (4 of 1-5, 8 of 0-10, pass), read from the request's schema.
func DefinedStandIn(req llm.Request, _ func(string) int) (string, int, bool) {
	if req.Schema == nil {
		return "", 0, false
	}
	switch req.Schema.Name {
	case definedStepsSchema:
		return `{"steps":["Read the fields the criterion is about.","Check each thing the criterion asks for.","Choose the grade whose description fits best."]}`, 40, true
	case definedGradeSchema:
	default:
		return "", 0, false
	}
	var s struct {
		Properties struct {
			Grade struct {
				Enum    []string `json:"enum"`
				Minimum *int     `json:"minimum"`
				Maximum *int     `json:"maximum"`
			} `json:"grade"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(req.Schema.JSON, &s); err != nil {
		return "", 0, false
	}
	g := s.Properties.Grade
	grade := `"` + GradePass + `"`
	if g.Minimum != nil && g.Maximum != nil {
		lo, hi := *g.Minimum, *g.Maximum
		grade = strconv.Itoa(lo + int(math.Round(0.75*float64(hi-lo))))
	} else if !slices.Contains(g.Enum, GradePass) {
		return "", 0, false
	}
	return `{"reason":"meets most of the criterion","grade":` + grade + `}`, 30, true
}
