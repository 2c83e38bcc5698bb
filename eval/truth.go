package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Sample metadata keys the daily profile's scorers read their inputs
// from: the truth and the telemetry, each a *Truth / *Telemetry, or their
// JSON (json.RawMessage, []byte, string, or a decoded map, as a JSONL line
// gives it).
const (
	MetaTruth     = "truth"
	MetaTelemetry = "telemetry"
)

// Truth is the ground truth a report was written from (TRUTH.json):
//
//	{
//	  "subject": {"ticker": "DBS19", "name": "DBS Group", "sector": "Banking"},
//	  "date": "2025-11-01",
//	  "values": {"uncertainty_score": 56.6, "atr_pct": 3.03, "vwap_pct": 43.79},
//	  "percentiles": {"atr_pct": 88},
//	  "news": [{"title": "...", "url": "https://..."}],
//	  "fundamentals": {"pe_ratio": 11.2}
//	}
//
// Values, percentiles and fundamentals are keyed by the profile's metric
// names. Only what the truth holds is demanded of the report.
type Truth struct {
	Subject      map[string]string  `json:"subject"`
	Date         string             `json:"date"`
	Values       map[string]float64 `json:"values"`
	Percentiles  map[string]float64 `json:"percentiles"`
	News         []News             `json:"news"`
	Fundamentals map[string]float64 `json:"fundamentals"`
}

// News is one item of the news list a report cites as [1], [2], ...
type News struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Value returns the true value of a metric, from values or fundamentals.
func (t *Truth) Value(name string) (float64, bool) {
	if v, ok := t.Values[name]; ok {
		return v, true
	}
	v, ok := t.Fundamentals[name]
	return v, ok
}

// Telemetry is the record of the run that produced a report (RUN.json),
// for the QoS scorer. Times are in seconds.
type Telemetry struct {
	// Timings are the seconds each stage took (data_fetch, llm_generation, ...).
	Timings map[string]float64 `json:"timings"`
	// Total is the whole run, in seconds; 0 means the sum of Timings.
	Total        float64 `json:"total"`
	LLMCalls     int     `json:"llm_calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	DBQueries    int     `json:"db_queries"`
	CacheHit     bool    `json:"cache_hit"`
	// Errors are the errors the run met; none means a clean run.
	Errors []string `json:"errors"`
	// Consistency holds determinism checks (data_fetch, technical_analysis,
	// db_queries): true when a repeated step gave the same result.
	Consistency map[string]bool `json:"consistency"`
	// History holds earlier runs' totals in seconds, oldest first, for the
	// latency trend.
	History []float64 `json:"history"`
}

// TotalS is the run's total time in seconds.
func (t *Telemetry) TotalS() float64 {
	if t.Total > 0 {
		return t.Total
	}
	s := 0.0
	for _, v := range t.Timings {
		s += v
	}
	return s
}

// ReadTruth decodes TRUTH.json and checks it against the metric names a
// profile knows (daily.Profile.MetricNames): values and percentiles must
// be numbers keyed by those names (any name when known is nil), and
// percentiles between 0 and 100. Errors are *InputError naming the
// file, the line and the field.
func ReadTruth(name string, data []byte, known []string) (*Truth, error) {
	var t Truth
	if err := decodeTruthJSON(name, data, &t); err != nil {
		return nil, err
	}
	for _, group := range []struct {
		field string
		m     map[string]float64
	}{{"values", t.Values}, {"percentiles", t.Percentiles}, {"fundamentals", t.Fundamentals}} {
		for _, k := range slices.Sorted(maps.Keys(group.m)) {
			if group.field != "fundamentals" && known != nil && !slices.Contains(known, k) {
				return nil, truthFieldErr(name, data, group.field, k, fmt.Sprintf("unknown metric name; the profile knows %s (add it to the profile's metrics to use it)", strings.Join(known, ", ")))
			}
			if v := group.m[k]; group.field == "percentiles" && !(v >= 0 && v <= 100) {
				return nil, truthFieldErr(name, data, group.field, k, fmt.Sprintf("a percentile must be between 0 and 100, got %v", v))
			}
		}
	}
	if len(t.Values) == 0 {
		return nil, &InputError{File: name, Field: "values", Msg: `missing or empty: the truth needs the values the report was written from ({"values": {"atr_pct": 3.03}})`}
	}
	for i, n := range t.News {
		if strings.TrimSpace(n.Title) == "" {
			return nil, truthFieldErr(name, data, "news", "", fmt.Sprintf("item %d (citation [%d]) needs a title", i, i+1))
		}
	}
	return &t, nil
}

// ReadTelemetry decodes RUN.json, or the card.json of an `assay research`
// run (whose "qos" object has the stage timings, calls, tokens, cost and
// errors). Errors are *InputError naming the file, the line and the
// field.
func ReadTelemetry(name string, data []byte) (*Telemetry, error) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) == nil && probe["qos"] != nil {
		return readRunCard(name, data)
	}
	var t Telemetry
	if err := decodeTruthJSON(name, data, &t); err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(t.Timings)) {
		if t.Timings[k] < 0 {
			return nil, truthFieldErr(name, data, "timings", k, fmt.Sprintf("must be seconds >= 0, got %v", t.Timings[k]))
		}
	}
	for f, v := range map[string]float64{"total": t.Total, "cost_usd": t.CostUSD, "llm_calls": float64(t.LLMCalls),
		"input_tokens": float64(t.InputTokens), "output_tokens": float64(t.OutputTokens), "db_queries": float64(t.DBQueries)} {
		if v < 0 {
			return nil, truthFieldErr(name, data, f, "", fmt.Sprintf("must be >= 0, got %v", v))
		}
	}
	for i, v := range t.History {
		if v < 0 {
			return nil, truthAt(name, data, listItemOffset(data, "history", i), fmt.Sprintf("history[%d]", i),
				fmt.Sprintf("an earlier run's total must be seconds >= 0, got %v", v))
		}
	}
	if t.TotalS() == 0 {
		return nil, &InputError{File: name, Field: "total", Msg: "missing: give the run's total seconds or its stage timings"}
	}
	return &t, nil
}

// listItemOffset returns where item i of the list under key starts in
// data, or where the key is when the item cannot be found.
func listItemOffset(data []byte, key string, i int) int {
	off := bytes.Index(data, []byte(`"`+key+`"`))
	if off < 0 {
		return 0
	}
	open := bytes.IndexByte(data[off:], '[')
	if open < 0 {
		return off
	}
	dec := json.NewDecoder(bytes.NewReader(data[off+open:]))
	if _, err := dec.Token(); err != nil {
		return off
	}
	for n := 0; dec.More(); n++ {
		var raw json.RawMessage
		start := dec.InputOffset()
		if err := dec.Decode(&raw); err != nil {
			return off
		}
		if n == i {
			// InputOffset before an item sits at its separator; skip it.
			j := int(start)
			for j < len(data[off+open:]) && bytes.IndexByte([]byte(", \t\r\n"), data[off+open+j]) >= 0 {
				j++
			}
			return off + open + j
		}
	}
	return off
}

// readRunCard takes the QoS of an `assay research` card.json.
func readRunCard(name string, data []byte) (*Telemetry, error) {
	var card struct {
		QoS struct {
			Total     time.Duration            `json:"total_ns"`
			Stages    map[string]time.Duration `json:"stages_ns"`
			LLMCalls  int                      `json:"llm_calls"`
			TokensIn  int                      `json:"tokens_in"`
			TokensOut int                      `json:"tokens_out"`
			CostUSD   float64                  `json:"cost_usd"`
			Errors    []string                 `json:"errors"`
		} `json:"qos"`
	}
	if err := json.Unmarshal(data, &card); err != nil {
		return nil, truthJSONErr(name, data, err)
	}
	q := card.QoS
	t := &Telemetry{Total: q.Total.Seconds(), LLMCalls: q.LLMCalls, InputTokens: q.TokensIn, OutputTokens: q.TokensOut,
		CostUSD: q.CostUSD, Errors: q.Errors, Timings: map[string]float64{}}
	for _, k := range slices.Sorted(maps.Keys(q.Stages)) {
		if q.Stages[k] < 0 {
			return nil, truthAt(name, data, keyOffset(data, "stages_ns", k), "qos.stages_ns."+k, fmt.Sprintf("must be nanoseconds >= 0, got %d", q.Stages[k]))
		}
		t.Timings[k] = q.Stages[k].Seconds()
	}
	for _, f := range []struct {
		key string
		v   float64
	}{{"total_ns", float64(q.Total)}, {"cost_usd", q.CostUSD}, {"llm_calls", float64(q.LLMCalls)},
		{"tokens_in", float64(q.TokensIn)}, {"tokens_out", float64(q.TokensOut)}} {
		if f.v < 0 {
			return nil, truthAt(name, data, keyOffset(data, "qos", f.key), "qos."+f.key, fmt.Sprintf("must be >= 0, got %v", f.v))
		}
	}
	if t.TotalS() == 0 {
		return nil, &InputError{File: name, Field: "qos.total_ns", Msg: "missing: the card has no run timings"}
	}
	return t, nil
}

// decodeTruthJSON decodes one JSON object into v, refusing unknown fields and
// trailing data.
func decodeTruthJSON(name string, data []byte, v any) error {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if len(bytes.TrimSpace(data)) == 0 {
		return &InputError{File: name, Msg: "empty input: expected a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return truthJSONErr(name, data, err)
	}
	if dec.More() {
		return truthAt(name, data, int(dec.InputOffset()), "", "unexpected data after the JSON object; give one object")
	}
	return nil
}

// truthJSONErr turns a decoding error into an *InputError with the line,
// the column and the field.
func truthJSONErr(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		e := truthAt(name, data, int(se.Offset)-1, "", "invalid JSON: "+se.Error())
		e.Err = err
		return e
	case errors.As(err, &te):
		field := te.Field
		if k := keyBefore(data, int(te.Offset)); k != "" && !strings.HasSuffix(field, k) {
			field += "." + k // a map's entry: the decoder names only the map
		}
		e := truthAt(name, data, valueStart(data, int(te.Offset)), field, fmt.Sprintf("must be %s, got %s", truthKind(te.Type.Kind().String()), te.Value))
		e.Err = err
		return e
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		key := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		off := bytes.Index(data, []byte(`"`+key+`"`))
		e := truthAt(name, data, max(off, 0), key, "unknown field; see the file's format in docs/scoring.md (daily profile)")
		e.Err = err
		return e
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &InputError{File: name, Msg: "invalid JSON: unexpected end of input", Err: err}
	}
	return &InputError{File: name, Msg: "invalid JSON: " + err.Error(), Err: err}
}

func truthKind(k string) string {
	switch k {
	case "float64", "int", "int64":
		return "a number"
	case "string":
		return "text"
	case "bool":
		return "true or false"
	case "slice":
		return "a list"
	case "map", "struct":
		return "an object"
	}
	return k
}

// keyBefore returns the object key whose value ends at or before off in
// data: the last quoted string followed by a colon.
func keyBefore(data []byte, off int) string {
	off = min(max(off, 0), len(data))
	colon := bytes.LastIndex(data[:off], []byte(`":`))
	if colon < 0 {
		return ""
	}
	open := bytes.LastIndexByte(data[:colon], '"')
	if open < 0 {
		return ""
	}
	return string(data[open+1 : colon])
}

// valueStart is the offset of the value that ends at end: after the last
// key's colon before end, past white space.
func valueStart(data []byte, end int) int {
	end = min(max(end, 0), len(data))
	i := bytes.LastIndex(data[:end], []byte(`":`))
	if i < 0 {
		return max(end-1, 0)
	}
	i += 2
	for i < end && strings.IndexByte(" \t\r\n", data[i]) >= 0 {
		i++
	}
	return i
}

// truthAt is an *InputError at byte offset off of data.
func truthAt(name string, data []byte, off int, field, msg string) *InputError {
	off = min(max(off, 0), len(data))
	line := bytes.Count(data[:off], []byte{'\n'}) + 1
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return &InputError{File: name, Line: line, Col: col, Field: field, Msg: msg}
}

// keyOffset returns where key first appears after parent in data (0 when
// neither is found).
func keyOffset(data []byte, parent, key string) int {
	off := max(bytes.Index(data, []byte(`"`+parent+`"`)), 0)
	if i := bytes.Index(data[off:], []byte(`"`+key+`"`)); i >= 0 {
		return off + i
	}
	return off
}

// truthFieldErr is an error at the key of parent.key (or parent, when key is
// "") as it first appears in data.
func truthFieldErr(name string, data []byte, parent, key, msg string) error {
	off := bytes.Index(data, []byte(`"`+parent+`"`))
	field := parent
	if key != "" {
		field = parent + "." + key
		if i := bytes.Index(data[max(off, 0):], []byte(`"`+key+`"`)); i >= 0 {
			off = max(off, 0) + i
		}
	}
	return truthAt(name, data, off, field, msg)
}
