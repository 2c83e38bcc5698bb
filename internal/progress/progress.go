// Package progress shows how far a long run over records has got, on
// standard error: records done of the total, the rate, the time left, the
// judgements that fell back to the neutral default and the money spent.
//
// On a terminal it draws a live bar (github.com/vbauerster/mpb/v8); off a
// terminal (a CI log, a file) it prints a plain line every few seconds,
// and nothing for a run shorter than that; quiet, it prints nothing.
// `assay judge`, `assay agree` and the benchmark runner share it:
//
//	m := progress.New(os.Stderr, progress.Config{Label: "judge", Total: n, Live: progress.IsTerminal(os.Stderr)})
//	defer m.Close()
//	for ... { m.Add(1, defaulted) }
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/assaylabs/assay/internal/plural"
)

// DefaultEvery is how often a plain line is printed off a terminal.
const DefaultEvery = 5 * time.Second

// Config says what a Meter counts and how it shows it. The zero value
// counts records of unknown total in plain lines every DefaultEvery.
type Config struct {
	// Label starts every line: "judge", "agree faithfulness".
	Label string
	// Total is the number of records the run will do; 0 when unknown.
	Total int
	// Quiet shows nothing.
	Quiet bool
	// Live draws a bar that redraws itself, for a terminal (IsTerminal);
	// otherwise plain lines are printed.
	Live bool
	// Every is the interval of plain lines [DefaultEvery].
	Every time.Duration
	// Tick, when set, replaces the ticker of plain lines: a line is
	// printed for each value received (tests send them by hand).
	Tick <-chan time.Time
	// Now is the clock for the rate and the time left [time.Now].
	Now func() time.Time
	// Cost returns the US dollars spent so far, and whether that is the
	// whole cost (false once a model with no price was called: the cost
	// shows as unknown, never as a $0 that is not a price); nil shows no
	// cost. It is called from the Meter's own goroutine, so it must be
	// safe for concurrent use.
	Cost func() (usd float64, known bool)
	// Note, when set, says what the run waits on when that is unusual (a
	// model server that does not answer, slow replies), or "": a line
	// shows it in place of the time left, which means nothing meanwhile.
	// It is called from the Meter's own goroutine.
	Note func() string
}

// Meter counts a run's progress and shows it. Add may be called from any
// goroutine; Close once, when the run ends.
type Meter struct {
	cfg   Config
	w     io.Writer
	start time.Time
	done  atomic.Int64
	defs  atomic.Int64

	stop   chan struct{}
	exited chan struct{}
	once   sync.Once

	bars *mpb.Progress // live only
	bar  *mpb.Bar
}

// IsTerminal reports whether w is a terminal, on which a live bar can be
// drawn.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// New starts a Meter writing to w. It shows nothing until records are
// added or, off a terminal, the first interval has passed.
func New(w io.Writer, cfg Config) *Meter {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultEvery
	}
	m := &Meter{cfg: cfg, w: w, start: cfg.Now(), stop: make(chan struct{}), exited: make(chan struct{})}
	switch {
	case cfg.Quiet:
		close(m.exited)
	case cfg.Live:
		close(m.exited)
		m.bars = mpb.New(mpb.WithOutput(w), mpb.WithAutoRefresh())
		m.bar = m.bars.AddBar(int64(cfg.Total),
			mpb.PrependDecorators(decor.Name(cfg.Label+" "), decor.CountersNoUnit("%d/%d ")),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return " " + m.figures() })),
		)
	default:
		go m.plain()
	}
	return m
}

// Add counts n more records done, with defaulted judgements among them.
func (m *Meter) Add(n, defaulted int) {
	m.done.Add(int64(n))
	m.defs.Add(int64(defaulted))
	if m.bar != nil {
		m.bar.IncrBy(n)
	}
}

// Writer returns the writer to print results on while the Meter runs:
// stdout itself, unless the live bar and stdout share a terminal, where
// lines go above the bar so that the bar does not draw over them.
func (m *Meter) Writer(stdout io.Writer) io.Writer {
	if m.bars == nil || !IsTerminal(stdout) {
		return stdout
	}
	return m.bars
}

// Close stops the Meter and waits until it has written its last. A live
// bar is left showing where the run stopped.
func (m *Meter) Close() {
	m.once.Do(func() {
		close(m.stop)
		<-m.exited
		if m.bars == nil {
			return
		}
		if m.cfg.Total > 0 && m.done.Load() < int64(m.cfg.Total) {
			m.bar.Abort(false) // an interrupted run: keep what it did
		} else {
			m.bar.SetTotal(-1, true)
		}
		m.bars.Wait()
	})
}

// plain prints a line at every tick until Close.
func (m *Meter) plain() {
	defer close(m.exited)
	tick := m.cfg.Tick
	if tick == nil {
		t := time.NewTicker(m.cfg.Every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-m.stop:
			return
		case <-tick:
			fmt.Fprintln(m.w, m.Line())
		}
	}
}

// Line is the progress as one plain line:
//
//	judge: 120/2000 records, 6.0/s, ETA 5m13s, 0 defaulted, $0.0123
//
// or, while the run waits on something unusual (Config.Note):
//
//	judge: 120/2000 records, 6.0/s, 3 calls waiting on slow replies, 0 defaulted, $0.0123
func (m *Meter) Line() string {
	done := m.done.Load()
	count := plural.Count(int(done), "record")
	if m.cfg.Total > 0 {
		count = fmt.Sprintf("%d/%s", done, plural.Count(m.cfg.Total, "record"))
	}
	return fmt.Sprintf("%s: %s, %s", m.cfg.Label, count, m.figures())
}

// figures are the rate, the time left, the defaults and the cost.
func (m *Meter) figures() string {
	done := m.done.Load()
	elapsed := m.cfg.Now().Sub(m.start)
	parts := make([]string, 0, 4)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	parts = append(parts, fmt.Sprintf("%.1f/s", rate))
	note := ""
	if m.cfg.Note != nil {
		note = m.cfg.Note()
	}
	switch left := int64(m.cfg.Total) - done; {
	case note != "":
		parts = append(parts, note)
	case m.cfg.Total > 0 && left > 0:
		eta := "ETA -"
		if rate > 0 {
			eta = "ETA " + (time.Duration(math.Ceil(float64(left)/rate)) * time.Second).String()
		}
		parts = append(parts, eta)
	}
	parts = append(parts, fmt.Sprintf("%d defaulted", m.defs.Load()))
	if m.cfg.Cost != nil {
		cost := "cost unknown"
		if usd, known := m.cfg.Cost(); known {
			cost = fmt.Sprintf("$%.4f", usd)
		}
		parts = append(parts, cost)
	}
	return strings.Join(parts, ", ")
}
