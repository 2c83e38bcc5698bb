// Package judges holds Assay's LLM judges, each an eval.Scorer that returns
// its evidence: faithfulness, answer relevancy, context precision, context
// recall, completeness, per-source relevance (1-5, seed 004) and reasoning
// quality (seed 003's dimensions).
//
// # Contract
//
// A judge whose model call still fails after the client's retries, or whose
// reply stays invalid after one repair request, returns grade 3 of 5
// (value 0.5) with Defaulted set and the error in Err and Reason: "when in
// doubt, keep it". Only a cancelled context or input the judge cannot use
// (a missing reference for context recall) is returned as an error.
//
// # Offline
//
// With no Model (or the offline backend), every judge runs a deterministic
// lexical counterpart from package heuristics and says so: its Method is
// "offline (approximate)".
//
//	j := judges.Faithfulness{Model: client}
//	sc, err := j.Score(ctx, sample)
package judges
