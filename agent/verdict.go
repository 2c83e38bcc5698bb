package agent

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
)

// Verdict builds the card of a profile from its scores (in profile order):
// total, status, reason and the fixes of the priority queue.
//
// For a report profile (seed 000): any metric of pass.require_full below
// its maximum is "fail"; otherwise a total at or above pass.threshold is
// "pass", and anything else "iterate". For a context profile (seed 002's
// CRAG bands): a total at or above the threshold is "pass" (correct), at or
// below pass.fail_at_or_below "fail" (incorrect), else "iterate"
// (ambiguous).
func (p *Profile) Verdict(scores []eval.Score) eval.Card {
	c := eval.Card{Profile: p.Name, Scores: scores, PassThreshold: p.Pass.Threshold, Fixes: []eval.Fix{}}
	for _, s := range scores {
		c.Total += s.Points
		c.Max += s.Max
		c.Usage = c.Usage.Add(s.Usage)
		if s.Defaulted {
			c.Defaulted++
		}
	}
	c.Total = math.Round(c.Total*1000) / 1000

	var short []eval.Score // require_full metrics below their maximum
	for _, m := range p.Pass.RequireFull {
		if s, ok := c.Get(m); ok && s.Points < s.Max {
			short = append(short, s)
		}
	}
	switch {
	case len(short) > 0:
		c.Status = eval.StatusFail
	case p.Pass.FailAtOrBelow != nil && c.Total <= *p.Pass.FailAtOrBelow:
		c.Status = eval.StatusFail
	case c.Total >= p.Pass.Threshold:
		c.Status = eval.StatusPass
	default:
		c.Status = eval.StatusIterate
	}
	if p.Kind == KindContext {
		c.Reason = contextReason(p, c)
	} else {
		c.Reason = reportReason(p, c, short)
	}
	if c.Defaulted > 0 {
		c.Reason += fmt.Sprintf(" %d score(s) fell back to the neutral default after judge errors.", c.Defaulted)
	}
	if c.Status != eval.StatusPass {
		c.Fixes = p.fixes(c)
	}
	return c
}

// reportReason says why a card that is not a context card has its
// status (Verdict's rules, in its order).
func reportReason(p *Profile, c eval.Card, short []eval.Score) string {
	switch {
	case len(short) > 0:
		return failReason(short)
	case c.Status == eval.StatusFail:
		return fmt.Sprintf("Score %s/%s is at or below the profile's fail line %s.", num(c.Total), num(c.Max), num(*p.Pass.FailAtOrBelow))
	case c.Status == eval.StatusPass:
		r := fmt.Sprintf("Quality threshold met (%s/%s).", num(c.Total), num(c.Max))
		if len(p.Pass.RequireFull) > 0 {
			r += fmt.Sprintf(" %s requirement satisfied.", requirement(c, p.Pass.RequireFull))
		}
		return r
	}
	return iterateReason(p, c)
}

func failReason(short []eval.Score) string {
	var parts []string
	for _, s := range short {
		part := fmt.Sprintf("%s insufficient (%s/%s < %s/%s requirement).", title(s.Metric), num(s.Points), num(s.Max), num(s.Max), num(s.Max))
		if s.Metric == MetricGrounding {
			total, cited := s.Evidence.Counts[heuristics.KeyTotalClaims], s.Evidence.Counts[heuristics.KeyCitedClaims]
			if total == 0 {
				part += " No verifiable claims found."
			} else {
				part += fmt.Sprintf(" %s unsourced claim(s) detected.", num(total-cited))
				if nq := total - cited - float64(countVerdict(s.Evidence.Claims, eval.VerdictUncited)); nq > 0 {
					part = strings.TrimSuffix(part, ".") + fmt.Sprintf(" (%s cited without quote).", num(nq))
				}
			}
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ") + " Report rejected: no data is better than unsourced data."
}

// countVerdict counts the claims with verdict v.
func countVerdict(claims []eval.Claim, v string) int {
	n := 0
	for _, c := range claims {
		if c.Verdict == v {
			n++
		}
	}
	return n
}

func iterateReason(p *Profile, c eval.Card) string {
	var weak []string
	for _, s := range c.Scores {
		if s.Points < s.Max {
			weak = append(weak, strings.ReplaceAll(s.Metric, "_", " "))
		}
	}
	r := ""
	if len(p.Pass.RequireFull) > 0 {
		r = requirement(c, p.Pass.RequireFull) + " OK, but "
	}
	r += fmt.Sprintf("total score below threshold (%s/%s < %s/%s).", num(c.Total), num(c.Max), num(p.Pass.Threshold), num(c.Max))
	if len(weak) > 0 {
		r += " Need to improve: " + strings.Join(weak, ", ") + "."
	}
	return strings.ToUpper(r[:1]) + r[1:]
}

// requirement renders "Grounding (5/5)" for the require_full metrics.
func requirement(c eval.Card, metrics []string) string {
	var parts []string
	for _, m := range metrics {
		if s, ok := c.Get(m); ok {
			parts = append(parts, fmt.Sprintf("%s (%s/%s)", title(m), num(s.Points), num(s.Max)))
		}
	}
	return strings.Join(parts, ", ")
}

func (p *Profile) fixes(c eval.Card) []eval.Fix {
	specs := slices.Clone(p.Fixes)
	slices.SortStableFunc(specs, func(a, b FixSpec) int { return a.Priority - b.Priority })
	out := []eval.Fix{}
	for _, f := range specs {
		s, ok := c.Get(f.Metric)
		if !ok || s.Points >= s.Max {
			continue
		}
		action := f.Action
		if len(s.Evidence.Gaps) > 0 {
			action += " Gaps: " + strings.Join(s.Evidence.Gaps, "; ") + "."
		}
		out = append(out, eval.Fix{Priority: f.Priority, Dimension: f.Metric, Action: action, RerunStages: slices.Clone(f.RerunStages)})
	}
	return out
}

func title(metric string) string {
	m := strings.ReplaceAll(metric, "_", " ")
	return strings.ToUpper(m[:1]) + m[1:]
}

// num formats a number without trailing zeros: 5, 4.9, 0.725.
func num(x float64) string {
	var buf [32]byte
	return string(appendNum(buf[:0], x))
}

// appendNum appends num(x) to b: fmt's %.3f, without its trailing zeros
// and point.
func appendNum(b []byte, x float64) []byte {
	n := len(b)
	b = strconv.AppendFloat(b, x, 'f', 3, 64)
	return b[:n+len(bytes.TrimRight(bytes.TrimRight(b[n:], "0"), "."))]
}

// withNums is text's pieces with nums between them, written as num
// writes them (len(text) is len(nums)+1): one string made, where a
// context score's reason is written on every request of the service.
func withNums(text []string, nums ...float64) string {
	var buf [192]byte
	b := append(buf[:0], text[0]...)
	for i, x := range nums {
		b = append(appendNum(b, x), text[i+1]...)
	}
	return string(b)
}

// contextReason says why a context card has its status: in seed 002's
// CRAG words when its status is the one CRAG's thresholds give its total,
// else by the profile's own pass rule, so that the reason does not name
// a class (and an action) the card's crag contradicts.
func contextReason(p *Profile, c eval.Card) string {
	low := 0.0
	if p.Pass.FailAtOrBelow != nil {
		low = *p.Pass.FailAtOrBelow
	}
	threshold := p.Pass.Threshold
	if c.Status != cragStatus(c.Total) {
		switch c.Status {
		case eval.StatusPass:
			return withNums([]string{"Overall ", " reaches the profile's threshold ", ": pass."}, c.Total, threshold)
		case eval.StatusFail:
			return withNums([]string{"Overall ", " is at or below the profile's fail line ", ": fail."}, c.Total, low)
		}
		return withNums([]string{"Overall ", " is below the profile's threshold ", " and above its fail line ", ": iterate."}, c.Total, threshold, low)
	}
	switch c.Status {
	case eval.StatusPass:
		return withNums([]string{"Retrieval is correct (overall ", " >= ", "): use it."}, c.Total, threshold)
	case eval.StatusFail:
		return withNums([]string{"Retrieval is incorrect (overall ", " <= ", "): run a supplemental search."}, c.Total, low)
	}
	return withNums([]string{"Retrieval is ambiguous (overall ", ", between ", " and ", "): decompose the query and retrieve for each part."}, c.Total, low, threshold)
}

// cragStatus is the card status of seed 002's CRAG class of an overall
// (ClassifyCRAG's thresholds): correct passes, incorrect fails, ambiguous
// (NaN too) iterates.
func cragStatus(overall float64) string {
	switch {
	case overall >= CRAGCorrectAt:
		return eval.StatusPass
	case overall <= CRAGIncorrectAt:
		return eval.StatusFail
	}
	return eval.StatusIterate
}
