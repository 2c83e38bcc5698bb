package heuristics

import "sync"

// lastReport remembers the most recent parse, so that the scorers of one
// card, run in parallel on the same answer, parse it once. A Report is never
// modified after ParseReport returns, so sharing it is safe.
var lastReport struct {
	sync.Mutex
	src string
	r   *Report
}

// parseShared returns ParseReport(src), reusing the last result when the
// text is the same.
func parseShared(src string) *Report {
	lastReport.Lock()
	defer lastReport.Unlock()
	if lastReport.r != nil && lastReport.src == src {
		return lastReport.r
	}
	r := ParseReport([]byte(src))
	lastReport.src, lastReport.r = src, r
	return r
}
