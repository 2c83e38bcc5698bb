package run

import (
	"bytes"
	"path/filepath"
	"slices"
)

// MaxHeld is how many results a new run holds as it writes them, so
// that the report's samples are chosen from memory once the run ends
// (Run.Bounded) rather than from results.jsonl read again: a few
// thousand results, about what ReadResultsBounded itself holds of a
// large run (a few hundred samples a metric). A run that writes more
// holds none, and reads the file.
const MaxHeld = 4096

// hold keeps res, whose line of results.jsonl is line, as reading the
// line back would give it: encoding/json writes each byte of a string
// that is not UTF-8 as U+FFFD, so such a line is read back from its
// bytes; a result the file would refuse (no id or metric) or one past
// MaxHeld ends the holding, and Bounded then reads the file. Called
// with r.mu held.
func (r *Run) hold(res Result, line []byte) {
	if len(r.held) == MaxHeld || res.ID == "" || res.Metric == "" {
		r.held, r.holding = nil, false
		return
	}
	if bytes.Contains(line, []byte(`\ufffd`)) {
		back, err := decodeResult(r.f.Name(), len(r.held)+1, bytes.TrimSpace(line))
		if err != nil {
			r.held, r.holding = nil, false
			return
		}
		res = back
	}
	res.Usage = cachedBefore(res.Usage)
	r.held = append(r.held, res)
}

// Expect says how many more results this attempt is about to append,
// so that the results it holds for Bounded are allocated once, not grown
// line by line (a run of 600 results copied them ten times over). A run
// that will hold more than MaxHeld holds none past MaxHeld: nothing is
// made for it.
func (r *Run) Expect(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.holding && n > 0 && len(r.held)+n <= MaxHeld {
		r.held = slices.Grow(r.held, n)
	}
}

// Bounded is ReadResultsBounded of the run's results.jsonl (see there),
// called once the run has written its results. A new run that wrote at
// most MaxHeld results chooses from those it holds, without reading the
// file again; a resumed run, whose file holds earlier attempts' lines,
// and a larger one read the file.
func (r *Run) Bounded(show int, also ...string) (*ResultFile, error) {
	r.mu.Lock()
	held, holding, size := r.held, r.holding, r.written
	r.mu.Unlock()
	path := filepath.Join(r.dir, FileResults)
	if !holding {
		return ReadResultsBounded(path, show, also...)
	}
	// The lines that count, as lastLines finds them in the file.
	last := supersession{}
	for i, res := range held {
		if _, ok := last[res.Key()]; ok || !res.Final() {
			last[res.Key()] = i + 1
		}
	}
	return bounded(path, show, also, func(out *ResultFile, fn func(line int, h Result, full func() (Result, error)) error) error {
		out.Size = size
		// One reader of the result at hand for every result, not a
		// closure (and a copy of its result) apiece.
		var at *Result
		full := func() (Result, error) { return *at, nil }
		for i := range held {
			at = &held[i]
			if l, ok := last[at.Key()]; ok && l != i+1 {
				continue
			}
			if err := fn(i+1, *at, full); err != nil {
				return err
			}
		}
		return nil
	})
}
