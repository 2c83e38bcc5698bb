package dataset

import "iter"

// Labels are the binary human labels of a dataset's records by id: what a
// run's calibration is measured against (`assay bench --label`).
type Labels struct {
	// Name is the label as Record.Label reads it ("faithful",
	// "!hallucinated").
	Name string
	byID map[string]bool
}

// ReadLabels reads the binary label name of every record. A record whose
// label is absent or not binary (a grade of 1-5) is left out; Len says how
// many have one. The first error of records is returned.
func ReadLabels(records iter.Seq2[Record, error], name string) (Labels, error) {
	l := Labels{Name: name, byID: map[string]bool{}}
	for rec, err := range records {
		if err != nil {
			return Labels{}, err
		}
		if v, ok := rec.Label(name); ok {
			l.byID[rec.ID] = v
		}
	}
	return l, nil
}

// Len is how many records carry the label.
func (l Labels) Len() int { return len(l.byID) }

// Of is sample id's label, and whether it has one.
func (l Labels) Of(id string) (bool, bool) {
	v, ok := l.byID[id]
	return v, ok
}
