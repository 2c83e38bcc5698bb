package main

import "github.com/assaylabs/assay/bench"

// minFlag is the judge command's --min, a bench.MinGate as a pflag.Value.
type minFlag struct{ bench.MinGate }

func (*minFlag) Type() string { return "floor" }
