// Package report renders a finished run for people and for CI: the run
// folder's report.html ([WriteHTML], with the samples worth reading,
// [ReadShown]), the JUnit XML CI servers read ([WriteJUnit]), the
// Markdown summary of a comparison with a baseline for a pull request
// ([WriteComparisonMD]), and results as a command prints them in one of
// the [outputFormats] ([ResultWriter]).
//
// It reads what package run keeps and writes nothing into a run folder
// itself: the caller (bench.Execute) chooses where each file goes.
package report
