package dataset

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// fieldRole is a part of a record that one of several fields gives: the
// fields a misspelt name is compared with.
type fieldRole struct {
	name  string   // as the error says it: "contexts"
	names []string // the fields it is read from, in order
	from  string   // how the error says where it is read from
	// optional is a part no score lacks for want of it (labels,
	// metadata, a conversation): only its name written otherwise ("Human",
	// "meta_data") stands for it, not a name one letter away ("message" is
	// a column of its own).
	optional bool
}

// fieldRoles are the parts of a record read by name. Sources is left out:
// "source" is a common field of its own (the corpus a record came from),
// and contexts are what other tools write.
var fieldRoles = []fieldRole{
	{"id", []string{"id"}, "an id is read from id", true},
	{"query", queryNames, "a query is read from query, question, user_input or input", false},
	{"answer", answerNames, "an answer is read from answer, response or actual_output", false},
	{"contexts", contextNames, "contexts are read from contexts, retrieved_contexts or retrieval_context", false},
	{"reference", referenceNames, "a reference is read from reference, ground_truth or expected_output, one string", false},
	{"human", []string{"human"}, "labels are read from human, an object", true},
	{"metadata", []string{"metadata"}, "metadata is read from metadata, an object", true},
	{"messages", []string{"messages"}, "a conversation is read from messages", true},
}

// readNames are the fields a record is read from.
var readNames = func() []string {
	out := []string{"sources", "expected_tool_calls", "ordered"}
	for _, r := range fieldRoles {
		out = append(out, r.names...)
	}
	return out
}()

// misspelt returns an error naming a field that is not read but is one
// letter away from a field of a role the record lacks ("contexs",
// "ground_truths", "answers", a "Question" column): ignored, as fields
// not read are, it would leave a metric nothing to judge, silently (a
// faithfulness of 0 for want of contexts). A near name beside the role's
// own field is data, and stays ignored. Names differing only in case,
// "_", "-" or " " are one letter away; "id" only in case.
func misspelt(fields map[string]json.RawMessage) *eval.InputError {
	var keys []string // the fields not read: most records have none
	for k := range fields {
		if !slices.Contains(readNames, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, r := range fieldRoles {
			if hasRole(fields, r) {
				continue
			}
			for _, n := range r.names {
				if !near(k, n, r.optional) {
					continue
				}
				msg := fmt.Sprintf("not a field Assay reads, and the record has no %s: is it %q? (%s)", r.name, n, r.from)
				if _, ok := fields["chunks"]; ok {
					msg += "; a record of query, chunks and context is a retrieval sample, judged with --profile context"
				}
				return &eval.InputError{Field: k, Msg: msg}
			}
		}
	}
	return nil
}

// hasRole reports whether one of r's fields is in fields and not null.
func hasRole(fields map[string]json.RawMessage, r fieldRole) bool {
	for _, n := range r.names {
		if raw, ok := fields[n]; ok && kind(raw) != "null" {
			return true
		}
	}
	return false
}

// near reports whether key is name misspelt: the same but for case
// and separators, or, for a name of five letters or more of a part a
// score needs (not optional), one edit (a letter added, dropped, changed,
// or two swapped) away.
func near(key, name string, optional bool) bool {
	if name == "id" {
		return strings.EqualFold(key, name)
	}
	k, n := fold(key), fold(name)
	return k == n || (!optional && len(n) >= 5 && oneEdit(k, n))
}

// fold is s in lower case without "_", "-" and " ".
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// oneEdit reports whether a and b differ by exactly one letter added,
// dropped or changed, or two neighbours swapped (byte-wise: the names
// compared with are ASCII).
func oneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 || a == b {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	switch {
	case len(a) < len(b): // one letter added to a
		return a[i:] == b[i+1:]
	case a[i+1:] == b[i+1:]: // one letter changed
		return true
	}
	// Two neighbours swapped.
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}
