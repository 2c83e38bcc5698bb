package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// The profiles whose samples a dataset can hold instead of records, each
// read by [OpenProfileData] (a bench run judges them with the profile's
// card: run.Config.Profile).
const (
	// ProfileContext is JSON Lines of seed 002's retrieval samples
	// ({query, chunks, context} a line), judged by the context card.
	ProfileContext = "context"
	// ProfileResearch is JSON Lines of {id, query, report}, judged by the
	// research card.
	ProfileResearch = "research"
	// ProfileDaily is JSON Lines of {id, report, truth, telemetry}, judged
	// by seed 003's five scorers and the overall quality (heuristics/daily;
	// values are the 0-100 scores over 100).
	ProfileDaily = "daily"
)

// ProfileData is a JSON Lines dataset of a profile, checked whole by a
// first pass and read again record by record, like [Dataset].
type ProfileData struct {
	path    string
	name    string // how errors name the file
	profile string
	// truthMetrics are the metric names a daily sample's truth may key
	// its values by.
	truthMetrics []string
	n            int
}

// OpenProfileData checks the JSON Lines file at path as records of
// profile (ProfileContext, ProfileResearch or ProfileDaily): every line a
// valid record, ids unique. Errors are *eval.InputError naming the file,
// line and field. A hash of each id is held during the check (to find
// duplicates, see idSet), not the records. name is how errors name the file ("" is path;
// a copy of standard input is StdinName). truthMetrics are the metric
// names a ProfileDaily sample's truth may key its values and percentiles
// by (the daily profile's, daily.Profile.MetricNames); nil takes any.
func OpenProfileData(path, name, profile string, truthMetrics []string) (*ProfileData, error) {
	if profile != ProfileContext && profile != ProfileResearch && profile != ProfileDaily {
		return nil, &eval.InputError{Field: "--profile", Msg: fmt.Sprintf("want %s, %s or %s, got %q", ProfileContext, ProfileResearch, ProfileDaily, profile)}
	}
	if name == "" {
		name = path
	}
	d := &ProfileData{path: path, name: name, profile: profile, truthMetrics: truthMetrics}
	seen := newIDSet()
	for rec, err := range d.Records() {
		if err != nil {
			return nil, err
		}
		if first, dup := seen.add(rec.ID, rec.Line); dup {
			return nil, &eval.InputError{File: d.name, Line: rec.Line, Field: "id", Msg: fmt.Sprintf("id %q is also on line %d: ids must be unique", rec.ID, first)}
		}
		d.n++
	}
	if d.n == 0 {
		return nil, &eval.InputError{File: d.name, Msg: "empty input: nothing to score"}
	}
	return d, nil
}

// Len is the number of records.
func (d *ProfileData) Len() int { return d.n }

// Records reads the file record by record; each record's Sample.ID is its
// ID: the line's "id" (beside the context sample's fields), or "line-N".
func (d *ProfileData) Records() iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		f, err := os.Open(d.path)
		if err != nil {
			yield(Record{}, &eval.InputError{File: d.name, Msg: "cannot read: " + err.Error()})
			return
		}
		defer func() { _ = f.Close() }() // read only
		br := bufio.NewReaderSize(io.LimitReader(f, MaxSize+1), 64<<10)
		for line := 1; ; line++ {
			b, rerr := br.ReadBytes('\n')
			if rerr != nil && !errors.Is(rerr, io.EOF) {
				yield(Record{}, &eval.InputError{File: d.name, Line: line, Msg: "cannot read: " + rerr.Error()})
				return
			}
			if len(b) > MaxLine {
				yield(Record{}, &eval.InputError{File: d.name, Line: line, Msg: fmt.Sprintf("line longer than the %d MB limit", MaxLine>>20)})
				return
			}
			if t := bytes.TrimSpace(b); len(t) > 0 {
				rec, err := d.decode(line, t)
				if !yield(rec, err) || err != nil {
					return
				}
			}
			if rerr != nil {
				return
			}
		}
	}
}

func (d *ProfileData) decode(line int, b []byte) (Record, error) {
	var head struct {
		ID        json.RawMessage `json:"id"`
		Query     string          `json:"query"`
		Report    *string         `json:"report"`
		Truth     json.RawMessage `json:"truth"`
		Telemetry json.RawMessage `json:"telemetry"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Record{}, &eval.InputError{File: d.name, Line: line, Msg: "not a JSON object of a " + d.profile + " sample: " + err.Error(), Err: err}
	}
	if path, first, second, dup := duplicateKey(b); dup {
		return Record{}, &eval.InputError{File: d.name, Line: line, Col: int(second) + 1, Field: path,
			Msg: fmt.Sprintf("given twice in one object (first at column %d): a record names each field once", first+1)}
	}
	id := "line-" + strconv.Itoa(line)
	if len(head.ID) > 0 && string(head.ID) != "null" {
		var s string
		if json.Unmarshal(head.ID, &s) != nil {
			s = string(head.ID) // a number
		}
		if s = strings.TrimSpace(s); s != "" {
			id = s
		}
	}
	rec := Record{ID: id, Line: line}
	switch d.profile {
	case ProfileContext:
		if len(head.ID) > 0 {
			// Seed 002's sample has no id: a dataset's own is taken off
			// before the sample is decoded, which refuses unknown fields.
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(b, &fields); err == nil {
				delete(fields, "id")
				b, _ = json.Marshal(fields)
			}
		}
		s, err := eval.DecodeContextSample(d.name, b)
		if err != nil {
			var ie *eval.InputError
			if errors.As(err, &ie) {
				ie.Line, ie.Col = line, 0 // the line's own, not the file's
			}
			return Record{}, err
		}
		rec.Sample = s
	case ProfileDaily:
		if head.Report == nil || strings.TrimSpace(*head.Report) == "" {
			return Record{}, &eval.InputError{File: d.name, Line: line, Field: "report", Msg: "missing: a daily sample is {id, report, truth, telemetry}, the report in Markdown"}
		}
		if len(head.Truth) == 0 || string(head.Truth) == "null" {
			return Record{}, &eval.InputError{File: d.name, Line: line, Field: "truth", Msg: "missing: the ground truth the report was written from ({subject, date, values, percentiles, news})"}
		}
		if _, err := eval.ReadTruth("truth", head.Truth, d.truthMetrics); err != nil {
			return Record{}, &eval.InputError{File: d.name, Line: line, Field: "truth", Msg: err.Error(), Err: err}
		}
		md := map[string]any{eval.MetaTruth: head.Truth}
		if len(head.Telemetry) > 0 && string(head.Telemetry) != "null" {
			md[eval.MetaTelemetry] = head.Telemetry
		}
		rec.Sample = eval.Sample{Answer: *head.Report, Metadata: md}
	default:
		if head.Report == nil || strings.TrimSpace(*head.Report) == "" {
			return Record{}, &eval.InputError{File: d.name, Line: line, Field: "report", Msg: "missing: a research sample is {id, query, report}, the report in Markdown"}
		}
		rec.Sample = eval.Sample{Query: head.Query, Answer: *head.Report}
	}
	rec.Sample.ID = id
	return rec, nil
}
