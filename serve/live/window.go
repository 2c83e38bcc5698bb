package live

import "time"

// entry is one observation in a window.
type entry struct {
	at        time.Time
	value     float64
	defaulted bool
}

// window is a metric's recent observations, oldest first, in a ring of
// fixed capacity, with the running sum and counts the rule needs, so
// that adding and evicting are O(1).
type window struct {
	ring      []entry
	head, n   int
	sum       float64 // of the scored (not defaulted) values
	scored    int
	defaulted int
	// pushes counts adds since sum was last recomputed: every len(ring)
	// adds it is summed afresh, so rounding cannot build up.
	pushes int
	// version changes with every add and pop.
	version uint64
}

func newWindow(size int) window { return window{ring: make([]entry, size)} }

// add appends e, evicting the oldest observation when the ring is full.
func (w *window) add(e entry) {
	if w.n == len(w.ring) {
		w.pop()
	}
	w.ring[(w.head+w.n)%len(w.ring)] = e
	w.n++
	w.version++
	if e.defaulted {
		w.defaulted++
	} else {
		w.scored++
		w.sum += e.value
	}
	if w.pushes++; w.pushes >= len(w.ring) {
		w.resum()
	}
}

// pop evicts the oldest observation.
func (w *window) pop() {
	e := w.ring[w.head]
	w.head = (w.head + 1) % len(w.ring)
	w.n--
	w.version++
	if e.defaulted {
		w.defaulted--
	} else {
		w.scored--
		w.sum -= e.value
	}
	if w.scored == 0 {
		w.sum = 0
	}
}

// evictBefore evicts observations, oldest first, while they are older
// than cutoff. Observations come in time order, so it stops at the first
// one that is not.
func (w *window) evictBefore(cutoff time.Time) {
	for w.n > 0 && w.ring[w.head].at.Before(cutoff) {
		w.pop()
	}
}

func (w *window) resum() {
	w.pushes = 0
	w.sum = 0
	w.each(func(e entry) {
		if !e.defaulted {
			w.sum += e.value
		}
	})
}

func (w *window) each(f func(entry)) {
	for i := range w.n {
		f(w.ring[(w.head+i)%len(w.ring)])
	}
}

// mean is the mean of the scored values, NaN when there are none.
func (w *window) mean() float64 {
	if w.scored == 0 {
		return nan
	}
	return w.sum / float64(w.scored)
}

// values are the scored values, oldest first.
func (w *window) values() []float64 {
	out := make([]float64, 0, w.scored)
	w.each(func(e entry) {
		if !e.defaulted {
			out = append(out, e.value)
		}
	})
	return out
}
