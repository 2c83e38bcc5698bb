package serve

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target (GOGC) that assay serve
// runs with unless GOGC is set: the heap may grow to five times what is
// live before a collection, not twice. The service's live heap is small
// (about 2 MB answering /v1/context-score), so at Go's default the
// collector ran some 60 times a second under load, each time for a few
// milliseconds of a one-CPU server; at 400 the heap stays near 16 MB and
// a context score costs about a quarter less CPU (BENCHMARKS.md, "context
// score, second pass").
const GCPercent = 400

// SetGC sets the collector's target to GCPercent, unless the GOGC
// variable sets one (empty, it sets none, as the runtime reads it). A
// process that serves calls it once, at its start (assay serve does); New
// and Serve never change it.
func SetGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
