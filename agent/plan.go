package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/textseg"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/prompts"
	"github.com/assaylabs/assay/web"
)

// Plan estimates the model calls of a research run before making any: it
// runs the first search (no model involved), then previews the prompts
// the run would send for the sources found: a summary and a grade per
// source, the synthesis and the completeness judge. Previews have a fixed
// nonce, so the same sources give the same estimate. Sources without text
// (web results, not fetched in a plan) are estimated from their snippets.
// Repairs can repeat part of this up to MaxIterations times; the plan
// counts the first pass only and says so in the template names.
func (cfg Research) Plan(ctx context.Context, query string, count func(string) int) ([]judges.Call, error) {
	if cfg.Searcher == nil {
		return nil, errors.New("research: no searcher")
	}
	mode := cfg.Mode
	if mode.Name == "" {
		mode = Modes["standard"]
	}
	results, err := cfg.Searcher.Search(ctx, web.Query{Text: query, Limit: mode.MaxSources})
	if err != nil {
		return nil, err
	}
	const summaryTokens = 120
	var calls []judges.Call
	add := func(name string, data any, out int) error {
		c, err := judges.PlanCall(name, data, out, count)
		if err != nil {
			return err
		}
		calls = append(calls, c)
		return nil
	}
	var ps []prompts.Passage
	for _, res := range results {
		text := res.Text
		if text == "" {
			text = res.Snippet
		}
		p := prompts.Passage{ID: res.URL, Title: res.Title, Text: textseg.ClipWords(text, 2000)}
		if err := add("research.summarize", prompts.SourceQuery{Question: query, Source: p}, summaryTokens); err != nil {
			return nil, err
		}
		summary := prompts.Passage{ID: res.URL, Title: res.Title, Text: strings.Repeat("word ", summaryTokens)}
		if err := add("source.relevance", prompts.SourceQuery{Question: query, Source: summary}, 40); err != nil {
			return nil, err
		}
		p.Text = textseg.ClipWords(text, 800)
		ps = append(ps, p)
	}
	if err := add("research.synthesize", prompts.Synthesis{Question: query, Sources: ps}, 1500); err != nil {
		return nil, err
	}
	more, err := judges.Plan(judges.MetricCompleteness, eval.Sample{Query: query, Answer: strings.Repeat("word ", 1000)}, count)
	if err != nil {
		return nil, err
	}
	return append(calls, more...), nil
}
