package agent

import (
	"fmt"
	"io"

	"github.com/assaylabs/assay/internal/encode"
)

// The formats a research run is printed in (Run.Write, ResearchJob.Format).
const (
	FormatMD   = "md"
	FormatJSON = "json"
	FormatYAML = "yaml"
)

func validFormat(f string) bool { return f == FormatMD || f == FormatJSON || f == FormatYAML }

// ended reports whether a run with the status ended with a verdict: pass,
// rejected or insufficient data; not one an error stopped, nor one still
// running.
func (s Status) ended() bool {
	return s == StatusPass || s == StatusRejected || s == StatusInsufficient
}

// Write prints the run in format. JSON and YAML are the run with its
// report and final card (RunCard), with the same keys. Markdown is the
// report, its score card (when the run scored one), the status with the
// decision and mode, and a line per repair iteration.
func (r *Run) Write(w io.Writer, format string) error {
	switch format {
	case FormatJSON:
		return encode.JSON(w, NewRunCard(r, true))
	case FormatYAML:
		return encode.YAMLOfJSON(w, NewRunCard(r, true))
	}
	if _, err := io.WriteString(w, r.Report); err != nil {
		return err
	}
	if cv, ok := NewRunView(r); ok {
		if _, err := io.WriteString(w, "\n---\n\n"+cv.Markdown()); err != nil {
			return err
		}
	}
	how := r.Mode.Name + " mode"
	if r.Decision != "" { // an interrupted run has made none
		how = string(r.Decision) + ", " + how
	}
	if _, err := fmt.Fprintf(w, "\nResearch status: **%s** (%s). %s\n", r.Status, how, r.Reason); err != nil {
		return err
	}
	for _, it := range r.Iterations[min(1, len(r.Iterations)):] {
		undone := ""
		if it.Reverted {
			undone = ", undone"
		}
		if _, err := fmt.Fprintf(w, "- Iteration %d: fix %q (re-ran stages %v): %s -> %s %.1f/%.0f%s\n",
			it.Iteration, it.Fix.Dimension, it.Stages, it.Applied, it.Card.Status, it.Card.Total, it.Card.Max, undone); err != nil {
			return err
		}
	}
	return nil
}
