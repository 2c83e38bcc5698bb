package progress

import (
	"fmt"
	"io"
	"sync"
)

// Status shows the stages of a run one line at a time, as `assay research`
// shows search, fetch, gate and score: live (on a terminal), each line
// redraws the last in place, a stage that begins included, and Close clears
// it; plain, only the stages that end are printed, a line each; quiet,
// nothing. It reads Quiet and Live of its Config. A Status is safe for
// concurrent use.
type Status struct {
	w           io.Writer
	live, quiet bool

	mu sync.Mutex
}

// NewStatus returns a Status writing to w.
func NewStatus(w io.Writer, cfg Config) *Status {
	return &Status{w: w, live: cfg.Live, quiet: cfg.Quiet}
}

// Begin shows that a stage has begun: live only, since a plain log would
// repeat every stage twice.
func (s *Status) Begin(line string) {
	if s.live {
		s.show(line)
	}
}

// End shows that a stage has ended, with what it did.
func (s *Status) End(line string) { s.show(line) }

func (s *Status) show(line string) {
	if s.quiet {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live {
		fmt.Fprintf(s.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(s.w, line)
}

// Close clears the live line, so that what follows starts on a clean one.
func (s *Status) Close() {
	if !s.live || s.quiet {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprint(s.w, "\r\033[K")
}
