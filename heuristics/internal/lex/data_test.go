package lex

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWordLists(t *testing.T) {
	t.Parallel()
	l := Default()
	tests := map[string]struct {
		got, want any
	}{
		"a light verb has no content":            {l.NoContent("became"), true},
		"a word about the source has no content": {l.NoContent("passage"), true},
		"a content word has content":             {l.NoContent("tower"), false},
		"antonyms pair by stem":                  {l.Antonyms(l.Stem("closed")), []string{"open"}},
		"antonyms go both ways":                  {l.Antonyms(l.Stem("decreases")), []string{l.Stem("increase")}},
		"irregular forms pair":                   {l.Antonyms("fell"), []string{"rose"}},
		"a word with no antonym":                 {l.Antonyms("tower"), []string(nil)},
		"kilometres in every spelling": {[]Unit{mustUnit(t, "km"), mustUnit(t, "kilometres"), mustUnit(t, "kilometers")},
			[]Unit{{"length", 1000}, {"length", 1000}, {"length", 1000}}},
		"metres":               {mustUnit(t, "m"), Unit{"length", 1}},
		"kilograms":            {mustUnit(t, "kg"), Unit{"mass", 1}},
		"a Chinese unit":       {mustUnit(t, "公里"), Unit{"length", 1000}},
		"tall is a height":     {l.Measure("tall"), "height"},
		"high is a height":     {l.Measure("high"), "height"},
		"long is a length":     {l.Measure("long"), "length"},
		"a word of no measure": {l.Measure("tower"), ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.got)
		})
	}
}

func mustUnit(t *testing.T, w string) Unit {
	t.Helper()
	u, ok := Default().Unit(w)
	if !ok {
		t.Fatalf("%q is no unit", w)
	}
	return u
}
