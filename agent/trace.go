package agent

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaylabs/assay/eval"
)

// Stage names of the research workflow.
const (
	StageSearch     = "search"
	StageFetch      = "fetch"
	StageExtract    = "extract"
	StageGate       = "summarize_gate"
	StageCRAG       = "crag"
	StageSynthesize = "synthesize"
	StageScore      = "score"
	StageFix        = "fix"
)

// stageNumbers maps a stage to its number in seed 001's list (1-6).
var stageNumbers = map[string]int{StageSearch: 1, StageFetch: 2, StageExtract: 3, StageGate: 4, StageCRAG: 4, StageSynthesize: 5, StageScore: 6}

// Event is one stage of one iteration, for the trace and for progress.
type Event struct {
	Stage string `json:"stage"`
	// Number is the stage's number in seed 001's list (1 search ... 6
	// score); 0 for the fix step between iterations.
	Number    int            `json:"stage_number,omitempty"`
	Iteration int            `json:"iteration"`
	Start     time.Time      `json:"start"`
	Duration  time.Duration  `json:"duration_ns"`
	Inputs    map[string]any `json:"inputs,omitempty"`
	Outputs   map[string]any `json:"outputs,omitempty"`
	Decisions []string       `json:"decisions,omitempty"`
	Usage     eval.Usage     `json:"llm,omitzero"`
	Errors    []string       `json:"errors,omitempty"`
}

// Line is the event as a line of progress, and whether its stage has
// ended (a stage that begins has no duration and no outputs yet): "[0]
// search..." as it begins, "[0] search new=7 results=7" as it ends, its
// outputs by name and its errors counted.
func (e Event) Line() (line string, ended bool) {
	if e.Duration == 0 && len(e.Outputs) == 0 {
		return fmt.Sprintf("[%d] %s...", e.Iteration, e.Stage), false
	}
	parts := []string{fmt.Sprintf("[%d] %s", e.Iteration, e.Stage)}
	for _, k := range slices.Sorted(maps.Keys(e.Outputs)) {
		v := e.Outputs[k]
		if f, ok := v.(float64); ok {
			// Four significant digits: 0.94, not 0.9400000000000001.
			v = strconv.FormatFloat(f, 'g', 4, 64)
		}
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	line = strings.Join(parts, " ")
	if len(e.Errors) > 0 {
		line += fmt.Sprintf(" (%d error(s))", len(e.Errors))
	}
	return line, true
}

// tracer records events in order and passes each to a callback.
type tracer struct {
	mu     sync.Mutex
	now    func() time.Time
	events []Event
	notify func(Event)
	// record, when set, receives each event as it ends, before notify
	// (RunFolder.Event).
	record func(Event)
}

// begin starts an event; the returned func finishes and records it.
func (t *tracer) begin(stage string, iteration int) (*Event, func()) {
	e := &Event{Stage: stage, Number: stageNumbers[stage], Iteration: iteration, Start: t.now(), Inputs: map[string]any{}, Outputs: map[string]any{}}
	if t.notify != nil {
		t.notify(Event{Stage: stage, Iteration: iteration, Start: e.Start})
	}
	return e, func() {
		e.Duration = t.now().Sub(e.Start)
		t.mu.Lock()
		t.events = append(t.events, *e)
		t.mu.Unlock()
		if t.record != nil {
			t.record(*e)
		}
		if t.notify != nil {
			t.notify(*e)
		}
	}
}

func (t *tracer) all() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Event(nil), t.events...)
}
