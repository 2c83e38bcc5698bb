package annotation

import (
	"fmt"
	"math"
)

// Scale is what a label says of a sample.
type Scale string

// The scales of a label.
const (
	// Binary is pass (1) or fail (0).
	Binary Scale = "binary"
	// Graded is a grade from MinGrade to MaxGrade.
	Graded Scale = "graded"
)

// The grades of the Graded scale.
const (
	MinGrade = 1
	MaxGrade = 5
)

// ParseScale reads a scale's name; "" is Binary.
func ParseScale(s string) (Scale, error) {
	switch Scale(s) {
	case "", Binary:
		return Binary, nil
	case Graded:
		return Graded, nil
	}
	return "", fmt.Errorf("want binary or graded, got %q", s)
}

// CheckLabel reports whether v is a label of scale s: 0 or 1 for Binary,
// a whole grade from MinGrade to MaxGrade for Graded.
func (s Scale) CheckLabel(v float64) error {
	switch s {
	case Binary:
		if v != 0 && v != 1 {
			return fmt.Errorf("a binary label is pass (1, true) or fail (0, false), got %g", v)
		}
	case Graded:
		if v != math.Trunc(v) || v < MinGrade || v > MaxGrade {
			return fmt.Errorf("a grade is a whole number from %d to %d, got %g", MinGrade, MaxGrade, v)
		}
	default:
		return fmt.Errorf("no scale %q: want binary or graded", string(s))
	}
	return nil
}

// Item is one sample of a queue as the ranking sees it: the judge's
// verdict on it and the person's label, when there is one.
type Item struct {
	// ID names the sample (a dataset record's id, a trace id).
	ID string
	// Scored says the judge gave a value: false for a neutral default, a
	// judgement that failed or one skipped. Value is that value, from 0
	// to 1; Points and Max the judge's native grade (3 of 5), when it
	// grades. A Value that is not a finite number (NaN, an infinity) is
	// none: the item is ranked, counted and estimated as one not scored.
	Scored       bool
	Value        float64
	Points, Max  float64
	Defaulted    bool
	HasAgreement bool
	// Agreement, when HasAgreement, is the share of the judge's jurors
	// or sampled draws that gave the majority verdict (judges.Sampled's
	// majority_share): 1 when all agree.
	Agreement float64
	// Label is the person's label on the queue's scale, nil when the
	// item is not labelled.
	Label *float64
}

// valued reports whether the judge gave the item a value: Scored, and
// the value a finite number.
func (it Item) valued() bool {
	return it.Scored && !math.IsNaN(it.Value) && !math.IsInf(it.Value, 0)
}

// OnScale is the judge's value on the scale of the labels: the value
// itself for Binary (the chance that the label is pass); for Graded the
// judge's own grade when it grades from MinGrade to MaxGrade, else the
// grade nearest MinGrade + Value*(MaxGrade-MinGrade), the lower of two as
// near.
func (it Item) OnScale(s Scale) float64 {
	if s != Graded {
		return it.Value
	}
	if it.Max == MaxGrade && it.Points == math.Trunc(it.Points) && it.Points >= MinGrade && it.Points <= MaxGrade {
		return it.Points
	}
	g := MinGrade + min(max(it.Value, 0), 1)*(MaxGrade-MinGrade)
	return math.Ceil(g - 0.5)
}
