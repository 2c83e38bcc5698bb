package agent_test

import (
	"context"
	"fmt"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
)

// Score a report with the built-in research profile and read the card.
func Example() {
	p, err := agent.LoadProfile("research")
	if err != nil {
		panic(err)
	}
	report := `# Boiling points

## Executive Summary

The boiling point of water is 100 degrees Celsius at sea level [NIST](https://www.nist.gov/water "boils at 100 °C at 101.325 kPa").
Water boils at a lower temperature at altitude.

## Sources

- https://www.nist.gov/water
`
	card, err := agent.Score(context.Background(), p, eval.Sample{Query: "boiling point of water", Answer: report}, agent.Options{})
	if err != nil {
		panic(err)
	}
	g, _ := card.Get("grounding")
	fmt.Println(card.Status, card.Total)
	fmt.Println(g.Reason)
	for _, f := range card.Fixes {
		fmt.Println(f.Priority, f.Dimension, f.RerunStages)
	}
	// Output:
	// fail 4
	// 1 of 2 claims cited (50.0%); uncited: line 6: "Water boils at a lower temperature at altitude."
	// 1 grounding [1 2 3 4 5 6]
	// 3 source_diversity [1 2 3 4 5 6]
	// 5 clarity [5 6]
}
