package report

import (
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

// Data is what report.html shows of its samples besides their
// results: their texts, read from the dataset, and their results in the
// baseline run. Each holds the shown samples only, so that the page and
// the memory that writes it stay the same size however large the run.
// The zero value shows results alone.
type Data struct {
	// Texts are the shown samples' texts by id (ReadSampleTexts).
	Texts map[string]SampleText
	// Baseline holds the baseline run's results of the shown samples
	// (ReadBaselineResults).
	Baseline map[run.Key]run.Result
	// TextsErr, when not "", says why the samples' texts are not shown.
	TextsErr string
	// Failed says why the run failed (its exit code not 0), a reason a
	// line, for the page's header; empty when it passed. A failed gate
	// or an alert of the summary fails the page without it.
	Failed []string
}

// Samples is about how many samples report.html and the JUnit file
// show for their metrics' lowest values: each metric's share, at least
// SamplesMin, are the samples of its lowest values (a default, a
// skip or an error lowest of all). Flipped is about how many more
// report.html shows that flipped pass/fail against the baseline, shared
// among the metrics too. With each sample's texts bounded (MaxAnswer
// and the others) the page stays a few MB however large the run.
const (
	Samples    = 400
	SamplesMin = 25
	Flipped    = 100
)

// How much of a sample's texts report.html holds, in bytes: a text
// longer than its bound is cut at a character boundary and says how many
// characters it left out; contexts past MaxContexts are counted.
// A sample thus adds at most 8 KB of text to the page (before escaping).
const (
	MaxQuestion  = 500
	MaxAnswer    = 2500
	MaxReference = 1000
	MaxContext   = 800
	MaxContexts  = 5
	// MaxListed is how many items of an evidence list (claims,
	// sources, gaps, statements) report.html shows; it counts the rest.
	MaxListed = 20
	// MaxItem is how much of each item of such a list (a gap, an issue)
	// it shows.
	MaxItem = 400
)

// SampleText is a sample's texts as report.html shows them, each cut to
// its bound.
type SampleText struct {
	Question, Answer, Reference Text
	Contexts                    []Context
	// MoreContexts is how many contexts past MaxContexts are left
	// out.
	MoreContexts int
	// Conversation is the sample's conversation, nil when it has none.
	Conversation *Conversation
}

// Context is one of a sample's contexts (a retrieved chunk or a fetched
// source): its label (id, title, URL) and its text.
type Context struct {
	Label string
	Text
}

// Text is a text cut to a bound: Cut is how many characters were left
// out (0 for a text whole).
type Text struct {
	Text string
	Cut  int
}

// cutText cuts s to at most n bytes, at a character boundary.
func cutText(s string, n int) Text {
	if len(s) <= n {
		return Text{Text: s}
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return Text{Text: s[:i], Cut: utf8.RuneCountInString(s[i:])}
}

// ReadSampleTexts reads records (a dataset read again, record by record)
// and keeps the texts of the samples whose id is in ids, each cut to its
// bound (MaxAnswer...): memory holds one record at a time and the
// kept texts. A sample's conversation is kept too (MaxConversation...). Contexts are the sample's sources; a sample with none but an
// assembled context shows that. A record that does not read is the error.
func ReadSampleTexts(records iter.Seq2[dataset.Record, error], ids map[string]bool) (map[string]SampleText, error) {
	out := make(map[string]SampleText, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	for rec, err := range records {
		if err != nil {
			return nil, err
		}
		id := rec.ID // the id results are written under
		if !ids[id] {
			continue
		}
		s := rec.Sample
		t := SampleText{
			Question:     cutText(s.Query, MaxQuestion),
			Answer:       cutText(s.Answer, MaxAnswer),
			Reference:    cutText(s.Reference, MaxReference),
			Conversation: newConversation(s),
		}
		for i, src := range s.Sources {
			if i == MaxContexts {
				t.MoreContexts = len(s.Sources) - i
				break
			}
			label := []string{cmpOr(src.ID, fmt.Sprintf("c%d", i+1))}
			for _, l := range []string{src.Title, src.URL} {
				if l != "" {
					label = append(label, l)
				}
			}
			t.Contexts = append(t.Contexts, Context{Label: cutText(strings.Join(label, " · "), 300).Text, Text: cutText(src.Text, MaxContext)})
		}
		if len(s.Sources) == 0 && s.Context != nil && s.Context.Text != "" {
			t.Contexts = []Context{{Label: "assembled context", Text: cutText(s.Context.Text, MaxContext*MaxContexts)}}
		}
		out[id] = t
		if len(out) == len(ids) {
			break
		}
	}
	return out, nil
}

// ReadBaselineResults reads the results of the baseline run in dir for
// the samples whose id is in ids, streaming: memory holds those results.
func ReadBaselineResults(dir string, ids map[string]bool) (map[run.Key]run.Result, error) {
	out := map[run.Key]run.Result{}
	if len(ids) == 0 {
		return out, nil
	}
	err := run.EachResult(filepath.Join(dir, run.FileResults), func(r run.Result) {
		if ids[r.ID] {
			r.Evidence, r.Reason = eval.Evidence{}, "" // the baseline's value is shown, not its evidence
			out[r.Key()] = r
		}
	})
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", dir, err)
	}
	return out, nil
}

// ShownIDs are the ids of the samples results holds.
func ShownIDs(results *run.ResultFile) map[string]bool {
	out := map[string]bool{}
	if results == nil {
		return out
	}
	for r := range results.All() {
		out[r.ID] = true
	}
	return out
}

// ReadShown reads what report.html and the JUnit file show: the
// results of each metric's lowest samples and of those that flipped in
// the comparison cmp (nil without a baseline), with their texts read
// again from records and their results in the baseline run in baseDir.
// Memory holds the shown samples only. A dataset that no longer reads
// (changed since the run) leaves the texts out, saying why.
func ReadShown(dir, baseDir string, records iter.Seq2[dataset.Record, error], metrics []string, cmp *run.Comparison) (*run.ResultFile, Data, error) {
	bounded := func(show int, also ...string) (*run.ResultFile, error) {
		return run.ReadResultsBounded(filepath.Join(dir, run.FileResults), show, also...)
	}
	return ReadShownFrom(bounded, baseDir, records, metrics, cmp)
}

// ReadShownFrom is ReadShown with the run's results chosen by bounded,
// run.ReadResultsBounded of its results.jsonl or a run.Run's Bounded,
// which holds the results a new run wrote.
func ReadShownFrom(bounded func(show int, also ...string) (*run.ResultFile, error), baseDir string, records iter.Seq2[dataset.Record, error], metrics []string, cmp *run.Comparison) (*run.ResultFile, Data, error) {
	share := func(total int) int { return max((total+len(metrics)-1)/max(len(metrics), 1), 1) }
	var flipped []string
	if cmp != nil {
		for _, m := range cmp.Metrics {
			for _, f := range m.Flipped[:min(len(m.Flipped), share(Flipped))] {
				flipped = append(flipped, f.ID)
			}
		}
	}
	results, err := bounded(max(share(Samples), SamplesMin), flipped...)
	if err != nil {
		return nil, Data{}, err
	}
	ids := ShownIDs(results)
	var more Data
	if more.Texts, err = ReadSampleTexts(records, ids); err != nil {
		more.TextsErr = err.Error()
	}
	if baseDir != "" {
		if more.Baseline, err = ReadBaselineResults(baseDir, ids); err != nil {
			return nil, Data{}, err
		}
	}
	return results, more, nil
}
