package daily

import "github.com/assaylabs/assay/eval"

// percentileContextPoints is the share of content compliance that seed
// 003's "percentile context used when available" is worth.
const percentileContextPoints = 15

// percentileContext scores seed 003's "percentile context used when
// available" per metric: every metric the report quotes a number for and
// whose percentile the data holds must be given that percentile ("ATR
// 3.03%, in its 88th percentile"). A percentile given for another metric
// does not stand in for it. A report that quotes none of those metrics
// passes with any percentile, as before. bad records a violation with the
// points it costs; the points kept are returned.
func (p *Profile) percentileContext(x Extraction, t *eval.Truth, bad func(dim string, pts float64, format string, a ...any)) float64 {
	if len(t.Percentiles) == 0 {
		return percentileContextPoints
	}
	quoted := map[string]bool{}
	for _, c := range x.Numbers {
		if _, ok := t.Percentiles[c.Metric]; ok {
			quoted[c.Metric] = true
		}
	}
	if len(quoted) == 0 {
		if len(x.Percentiles) > 0 {
			return percentileContextPoints
		}
		bad("content_compliance", percentileContextPoints, "Percentile context not used although the data has percentiles")
		return 0
	}
	given := map[string]bool{}
	for _, c := range x.Percentiles {
		given[c.Metric] = true
	}
	ok := 0
	for _, mt := range p.Metrics { // profile order, for stable messages
		if !quoted[mt.Name] {
			continue
		}
		if given[mt.Name] {
			ok++
			continue
		}
		bad("content_compliance", percentileContextPoints/float64(len(quoted)),
			"%s quoted without its percentile (the data has one: %s)", mt.Label, fnum(t.Percentiles[mt.Name]))
	}
	return percentileContextPoints * share(ok, len(quoted)) / 100
}
