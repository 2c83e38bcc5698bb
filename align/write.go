package align

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/assaylabs/assay/internal/termtext"
)

// Write prints the outcome as Markdown: the judge as it was beside the
// aligned one on the held-out records, each with its interval, the
// difference with its interval, the verdict, and what the search tried
// and spent. Text from the files and the model server (a failure's
// reason quotes a reply) is written with its control characters as
// escapes (termtext.Visible), so the terminal shows them, not obeys them.
func (o *Outcome) Write(w io.Writer) {
	kind := "binary"
	if o.Graded {
		kind = "graded"
	}
	fmt.Fprintf(w, "## align %s: %s, label human.%s (%s)\n\n", termtext.Visible(o.Judge), termtext.Visible(o.File), termtext.Visible(o.Label), kind)
	fmt.Fprintf(w, "split: %d train, %d held out (--holdout %g, --seed %d)\n\n", o.Train, o.Heldout, o.Holdout, o.Seed)
	if o.DryRun {
		fmt.Fprintf(w, "dry run: at most %d judge calls, none made\n", o.Planned)
		return
	}
	fmt.Fprintln(w, "| judge | held-out n | agreement | 95% interval |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| as it was | %d | %s | %s |\n", o.Before.N, f3(o.Before.Mean), interval(o.Before.Lo, o.Before.Hi))
	fmt.Fprintf(w, "| aligned (%s) | %d | %s | %s |\n", termtext.Visible(o.What), o.After.N, f3(o.After.Mean), interval(o.After.Lo, o.After.Hi))
	fmt.Fprintf(w, "| difference (paired) | %d | %s | %s |\n\n", o.Diff.N, signed(o.Diff.Mean), interval(o.Diff.Lo, o.Diff.Hi))
	fmt.Fprintf(w, "verdict: %s\n", termtext.Visible(o.Verdict()))
	s := o.Search
	cost := "unknown"
	if s.Known {
		cost = fmt.Sprintf("$%.4f", s.CostUSD)
	}
	fmt.Fprintf(w, "searched: %d candidates on the training part (%d criterion rewrites, %d rubrics, %d few-shot sets, %d thresholds); %d calls, %d cache hits, %d tokens in, %d out, cost %s\n",
		s.Candidates, s.Criteria, s.Rubrics, s.Examples, s.Thresholds, s.Usage.Calls, s.Usage.CacheHits, s.Usage.TokensIn, s.Usage.TokensOut, cost)
	fmt.Fprintf(w, "judgements: %d, failed %d", o.Judged, o.Failures)
	if o.FirstFailure != "" {
		fmt.Fprintf(w, " (first: %s)", termtext.Visible(o.FirstFailure))
	}
	fmt.Fprintln(w)
}

// Verdict says in words what the outcome supports.
func (o *Outcome) Verdict() string {
	switch {
	case o.DryRun:
		return "dry run: nothing measured"
	case o.Failed != "":
		return "run failed: " + o.Failed + "; nothing written"
	case o.Gain:
		return fmt.Sprintf("gain supported (the difference's interval lies above 0): wrote %s", o.Written)
	case o.Aligned != nil && o.What == "as it was":
		return "no gain supported: no candidate beat the judge as it was on the training part; nothing written"
	default:
		return "no gain supported: the difference's interval does not lie above 0; nothing written"
	}
}

func f3(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func signed(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%+.3f", v)
}

func interval(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return "[" + f3(lo) + ", " + f3(hi) + "]"
}
