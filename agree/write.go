package agree

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/assaylabs/assay/internal/mdtext"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// Style is how Outcome.Write prints the results.
type Style struct {
	// JSON prints them as JSON; the zero Style prints Markdown tables.
	JSON bool
	// Calibration adds, in Markdown, the MCC and calibration of a binary
	// label (JSON always has them).
	Calibration bool
}

// Write prints the outcome as `assay agree` shows it: the results on out,
// a table per metric with the baseline beside each, then on log what
// each juror's model client did. A dry run prints its plans on out.
//
// The JSON is the list of results (the baseline's last); with a jury it
// is an object {"results": [...], "jury": {...}}, "juries" holding a list
// of them when there are several metrics.
func (o *Outcome) Write(out, log io.Writer, st Style) error {
	for _, p := range o.Plans {
		p.Write(out)
	}
	if o.Plans != nil {
		return nil
	}
	var err error
	if st.JSON {
		err = o.writeJSON(out)
	} else {
		err = o.writeMarkdown(out, st.Calibration)
	}
	if err != nil {
		return err
	}
	for _, r := range o.Reports {
		r.Write(log)
	}
	return nil
}

func (o *Outcome) writeJSON(w io.Writer) error {
	var rs []Result
	var juries []*JuryResult
	for _, t := range o.Tables {
		rs = append(rs, t.Results...)
		if t.Jury != nil {
			juries = append(juries, t.Jury)
		}
	}
	if o.Baseline != nil {
		rs = append(rs, *o.Baseline)
	}
	var v any = rs
	switch {
	case len(juries) == 1 && len(o.Tables) == 1:
		v = struct {
			Results []Result    `json:"results"`
			Jury    *JuryResult `json:"jury"`
		}{rs, juries[0]}
	case len(juries) > 0:
		v = struct {
			Results []Result      `json:"results"`
			Juries  []*JuryResult `json:"juries"`
		}{rs, juries}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // read by people and programs, never pasted into HTML
	return enc.Encode(v)
}

func (o *Outcome) writeMarkdown(w io.Writer, calibration bool) error {
	// Buffered, so that a failed write (a full disk) is kept and returned.
	bw := bufio.NewWriter(w)
	for i, t := range o.Tables {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		rs := t.Results
		if t.Jury != nil {
			rs = append(slices.Clone(rs), t.Jury.Jury) // the jury's row right after its jurors'
		}
		if o.Baseline != nil {
			rs = append(slices.Clone(rs), *o.Baseline)
		}
		// The file's name as the terminal can show it: a name is the
		// user's, but a stored run's may be anyone's.
		file := termtext.Visible(o.File)
		writeTable(bw, file, rs, calibration)
		if t.Jury != nil {
			fmt.Fprintf(bw, "\n%s", t.Jury.Markdown())
		}
		writeEstimates(bw, file, rs)
	}
	return bw.Flush()
}

// writeTable prints the results rs of one metric: the binary ones with
// their groups (and calibration), then the graded ones.
func writeTable(w io.Writer, file string, rs []Result, calibration bool) {
	var binary, graded []Result
	for _, r := range rs {
		if r.GradedStats != nil {
			graded = append(graded, r)
		} else {
			binary = append(binary, r)
		}
	}
	if len(binary) > 0 {
		writeBinary(w, file, binary, calibration)
	}
	if len(graded) > 0 {
		if len(binary) > 0 {
			fmt.Fprintln(w)
		}
		writeGraded(w, file, graded)
	}
}

func writeBinary(w io.Writer, file string, rs []Result, calibration bool) {
	fmt.Fprintf(w, "Agreement with human labels on %s\n\n", file)
	fmt.Fprint(w, MarkdownHeader)
	for _, r := range rs {
		fmt.Fprint(w, r.Markdown())
	}
	for _, g := range groupNames(rs) {
		fmt.Fprintf(w, "\nBy %s = %s\n\n", mdtext.Cell(rs[0].By), groupCell(g))
		fmt.Fprint(w, MarkdownHeader)
		for _, r := range rs {
			if i := slices.IndexFunc(r.Groups, func(x Result) bool { return x.Group == g }); i >= 0 {
				rows := slices.DeleteFunc(slices.Clone(r.Rows), func(x Row) bool { return x.Group != g })
				fmt.Fprint(w, r.Groups[i].markdown(rows))
			}
		}
	}
	if !calibration {
		return
	}
	fmt.Fprintf(w, "\nMCC and calibration (%d bins)\n\n", run.CalibrationBins)
	fmt.Fprint(w, CalibrationMarkdownHeader)
	for _, r := range rs {
		fmt.Fprint(w, r.CalibrationMarkdown())
		for _, g := range r.Groups {
			fmt.Fprint(w, g.CalibrationMarkdown())
		}
	}
}

func writeGraded(w io.Writer, file string, rs []Result) {
	fmt.Fprintf(w, "Agreement with graded human labels on %s (grades %s; 95%% bootstrap intervals)\n\n", file, gradeList(rs[0].Grades))
	fmt.Fprint(w, GradedMarkdownHeader)
	for _, r := range rs {
		fmt.Fprint(w, r.Markdown())
		for _, g := range r.Groups {
			fmt.Fprint(w, g.Markdown())
		}
	}
	first := true
	for _, r := range rs {
		for _, x := range append([]Result{r}, r.Groups...) {
			d := x.Dropped()
			if d == "" {
				continue
			}
			if first {
				fmt.Fprintln(w)
				first = false
			}
			fmt.Fprintf(w, "%s, %s: undefined bootstrap resamples dropped: %s\n", mdtext.Cell(x.Metric), groupCell(x.Group), d)
		}
	}
}

// writeEstimates prints the estimates of the mean label of rs, if any.
func writeEstimates(w io.Writer, file string, rs []Result) {
	var rows strings.Builder
	for _, r := range rs {
		rows.WriteString(r.EstimateMarkdown())
	}
	if rows.Len() == 0 {
		return
	}
	fmt.Fprintf(w, "\nMean human label over the records the judge scored in %s: PPI++ (the labels corrected by the judge), the labels alone and the judge alone; 95%% normal intervals\n\n", file)
	fmt.Fprint(w, EstimateMarkdownHeader)
	fmt.Fprint(w, rows.String())
}

// groupNames are the groups of rs, in order, each once.
func groupNames(rs []Result) []string {
	var names []string
	for _, r := range rs {
		for _, g := range r.Groups {
			if !slices.Contains(names, g.Group) {
				names = append(names, g.Group)
			}
		}
	}
	return names
}
