// Package runstore keeps the recorded runs: a SQLite file with a row per
// run ([Store], [OpenStore], [DefaultStorePath]), the baseline a run
// names ([ResolveBaseline]), and `assay runs` over it ([Runs]): listed
// ([Runs.List]), one shown ([Runs.Show]), two compared ([Runs.Diff]), a
// metric's mean over time ([Runs.Trend]), each a value whose Write prints
// it in one of report's output formats, and a run exported as a table
// ([Runs.Export]: csv, jsonl or parquet).
//
// It reads run folders (package run) and renders with package report;
// it imports neither bench nor serve, so the service and its dashboard
// read the store without the rest of a run.
package runstore
