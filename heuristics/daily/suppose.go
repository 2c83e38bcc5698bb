package daily

// supposed reports whether the words at off are supposed rather than
// stated: a hypothetical or condition cue (hyps, in text order) stands
// before them in their clause ("hold until RSI cools below 70"), or one
// opens their sentence ("If selling returns, ..."). What a report supposes
// is a plan or a scenario, not a claim about today's value.
func supposed(text string, hyps []hit, off int) bool {
	for _, h := range hyps {
		if h.end > off {
			break
		}
		if sameClause(text, h.end, off) || startsSentence(text, h.start) {
			return true
		}
	}
	return false
}
