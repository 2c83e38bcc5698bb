// Package agent turns a Profile into a Card, and runs the research
// workflow.
//
// # Scoring
//
// Score builds a profile's scorers (heuristics, and the completeness judge
// when Options.Model is set), runs them in parallel with errgroup, and
// decides the status and the ordered fixes (seeds 000 and 001).
//
// # Research
//
// Research.Run answers a question end to end: search (a Searcher: the
// local corpus or SearxNG), fetch and extract (a Fetcher with an SSRF
// guard), summarize and gate every source in parallel (seed 004's 1-5
// rubric, cutoff 3, a judge error keeps the source at 3), classify the
// retrieval with CRAG (seed 002, ClassifyCRAG, the same classifier the
// context profile's card uses) and act on it, synthesize a cited report
// (extractive offline; with a model, every quote checked against its
// source), score it, and repair it through the fix queue at most twice.
// Every stage is traced as an Event. A source is one SourceRecord from the
// search to the report, and the run's Options carry its one model and its
// one clock (nil is time.Now: the stages' times and the "today" of source
// recency).
//
//	res, err := agent.Research{Searcher: corpus, Mode: agent.Modes()["standard"]}.Run(ctx, "How do heat pumps perform in cold climates?")
//	fmt.Println(res.Status, res.Decision)
//
// # The research job
//
// RunResearch runs a ResearchJob, everything `assay research` is asked:
// it checks the settings (an *eval.InputError names the flag), opens the
// search backend (the embedded corpus, a corpus folder, or SearxNG) and
// the model (judging.Config), runs the research (or, for a dry run,
// counts its calls with a recording stand-in for the model), writes the
// run folder as it goes, and returns a ResearchOutcome: the Run, what the
// model did, and the judging.Failures that say why it did not pass (a
// status other than pass is a judging.FailVerdict; the others are
// failures of the run itself). ResearchOutcome.Write prints it as the
// command line does.
package agent
