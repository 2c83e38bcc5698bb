// Package judging is how a run's judgements are made and what their
// failures mean, shared by every job that judges: `assay judge`, `assay
// bench`, `assay agree`, the research workflow, the service and the
// workers.
//
// A [Config] is the model client's settings (llm/setup's Config, the
// command line's model flags) and the rules for its failures: how many
// neutral defaults a run may have (MaxDefaultRate, or none under Strict),
// and how often each judgement is asked (Samples). [Config.Open] builds
// the client into a [Session], which wraps scorers to sample them, meters
// progress, and, once the run ended, gives the [Report] line of what the
// client did and the run's own [Failures] (a budget that refused calls,
// too many defaults):
//
//	s, err := judging.Default().Open(os.Stderr, os.Getenv)
//	if err != nil {
//		return err // an *eval.InputError naming the flag
//	}
//	defer s.Close()
//	... judge with s.Client() ...
//	for _, f := range s.Failures(defaults) {
//		fmt.Println(f.Kind, f.Err)
//	}
//
// A [Failure]'s Kind says whether it is a verdict on what was scored (a
// floor, a gate, an alert: exit 1 at the command line) or a failure of
// the run itself (exit 3). [DryRun] counts the calls, tokens and cost a
// run would need without making one, as a [Plan].
package judging
