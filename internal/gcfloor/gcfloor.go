// Package gcfloor lets a process's heap grow to a floor before the garbage
// collector runs, and collects as Go's default (GOGC=100) above it.
//
// Most of assay's commands are short and keep a few megabytes live, so at
// Go's default the collector ran from the runtime's 4 MB minimum on, tens of
// times in a cached rerun that lasts 70 ms (a fifth of its wall time on the
// benchmark box; BENCHMARKS.md, issue 34). A constant higher GOGC would buy
// that back but multiply the heap of a large run as well; a floor costs a
// small run at most the floor and a large one nothing.
//
// After every collection the target (GOGC) is set so that the next one
// starts when the heap reaches the floor, or twice what is live if that is
// more. Go has no setting for a least heap (GOMEMLIMIT is a most); the
// ballast of old and bytedance's gctuner are the usual answers, the one
// keeping memory, the other reading runtime.MemStats (a stop of the world)
// on every cycle and going below GOGC=100 for large heaps, which a batch
// run should not. This reads the live heap from runtime/metrics.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Floor is the heap a command may reach before its first collection.
const Floor = 64 << 20

// minHeap is the runtime's least heap goal at GOGC=100: the goal is never
// under minHeap*GOGC/100, so a target computed from a smaller live heap
// would raise the goal past the floor.
const minHeap = 4 << 20

var (
	floor atomic.Uint64
	armed sync.Once
	// tuned, when set (by tests), is called with each target set after a
	// collection.
	tuned func(percent int)
)

// Set keeps the collector off until the heap reaches bytes, from now on,
// unless GOGC is set (env reads the environment; the user's GOGC wins) or
// bytes is 0. A later call replaces the floor.
func Set(env func(string) string, bytes uint64) {
	if env("GOGC") != "" || bytes == 0 {
		return
	}
	floor.Store(bytes)
	debug.SetGCPercent(Percent(0, bytes))
	armed.Do(arm)
}

// Percent is the GOGC that starts the next collection when the heap reaches
// least, given live bytes marked by the last one (0 before any): at least
// Go's default of 100.
func Percent(live, least uint64) int {
	live = max(live, minHeap)
	if least <= 2*live {
		return 100
	}
	return int((least - live) * 100 / live)
}

// sentinel is allocated to be collected: its cleanup runs once after the
// collection that finds it unreachable. It holds a pointer so that the
// allocator does not pack it with other small objects (which would keep it
// alive).
type sentinel struct{ _ *int }

// arm sets the target again after the next collection, and re-arms.
func arm() {
	runtime.AddCleanup(new(sentinel), func(struct{}) { retune() }, struct{}{})
}

func retune() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		p := Percent(sample[0].Value.Uint64(), floor.Load())
		debug.SetGCPercent(p)
		if tuned != nil {
			tuned(p)
		}
	}
	arm()
}
