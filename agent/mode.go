package agent

import (
	"fmt"
	"maps"
	"strings"
)

// Mode sets how many sources a research run keeps and how many must survive
// the relevance gate for each kind of report (seed 004).
type Mode struct {
	Name       string `json:"name"`
	MaxSources int    `json:"max_sources"`
	// MinFull sources make a full report; MinShort a short report with a
	// disclaimer; fewer is insufficient data.
	MinFull  int `json:"min_sources_full_report"`
	MinShort int `json:"min_sources_short_report"`
	// Cutoff is the least relevance grade (1-5) a source needs to be kept.
	Cutoff int `json:"relevance_cutoff"`
}

// modes backs Modes, which hands out copies.
var modes = map[string]Mode{
	"quick":    {Name: "quick", MaxSources: 3, MinFull: 3, MinShort: 1, Cutoff: 3},
	"standard": {Name: "standard", MaxSources: 7, MinFull: 4, MinShort: 2, Cutoff: 3},
	"deep":     {Name: "deep", MaxSources: 10, MinFull: 5, MinShort: 2, Cutoff: 3},
}

// Modes returns seed 004's research modes.
func Modes() map[string]Mode { return maps.Clone(modes) }

// ModeNamed returns the named mode.
func ModeNamed(name string) (Mode, error) {
	m, ok := modes[name]
	if !ok {
		return Mode{}, fmt.Errorf("unknown mode %q (have deep, quick, standard)", name)
	}
	return m, nil
}

// Decision is what the relevance gate's survivors allow (seed 004).
type Decision string

// Decisions of the relevance gate (seed 004).
const (
	DecisionFull         Decision = "full_report"
	DecisionShort        Decision = "short_report"
	DecisionInsufficient Decision = "insufficient_data"
)

// decide maps the number of surviving sources to a decision.
func (m Mode) decide(surviving int) Decision {
	switch {
	case surviving >= m.MinFull:
		return DecisionFull
	case surviving >= m.MinShort:
		return DecisionShort
	}
	return DecisionInsufficient
}

func (m Mode) String() string {
	return fmt.Sprintf("%s (max %d sources; full report from %d, short from %d; keep grade >= %d)",
		m.Name, m.MaxSources, m.MinFull, m.MinShort, m.Cutoff)
}

// primaryDomains are preferred by the source-quality fix: government,
// education, intergovernmental and standards bodies (credibility 9-10).
var primaryDomains = strings.Fields(".gov .edu .int .mil .gov.uk .ac.uk .europa.eu who.int oecd.org un.org w3.org ietf.org iso.org nist.gov")
