// Package run is an evaluation run's folder and what is read from it: the
// configuration (config.json, [Config]), the results (results.jsonl,
// [Result], written by [Run] so that a run killed at any point resumes),
// the summary (summary.json, [Summary] and [MetricStats], from [Stats]),
// the floors and gates that judge it ([MinGate], [Gate]), the comparison
// with a baseline run ([Compare]) and seed 002's alerts ([QualityAlert]).
//
// It knows nothing of how the results were judged: package bench plans a
// run and package dispatch hands its work items out; package report draws
// a run and package runstore keeps the list of runs. The service's live
// monitor and dashboard read the same types.
package run
