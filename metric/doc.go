// Package metric is Assay's metric registry: a value, built explicitly, in
// which each Entry is the whole truth about one metric: how its scorer is
// built and whether it calls a model, where it can be asked for (--metric,
// which kinds of profile), its default threshold, its row in a card, its
// repair action in the research loop and its dry-run stand-in reply.
//
// # Building a registry
//
// Nothing registers itself when a package loads. Each package that defines
// metrics has a function that adds its entries to a Registry given to it
// (judges.AddBuiltins, assertions.AddBuiltins, agent.AddBuiltins), and
// agent.Builtins assembles the built-in registry from them, once, and
// seals it: the shared one cannot grow at run time. A test or a program
// with metrics of its own builds its own registry, typically a Clone of
// the built-in one with its entries added, and passes it where metrics are
// looked up (profiles, the CLI's commands, dry runs):
//
//	reg := agent.Builtins().Clone()
//	err := reg.Add(metric.Entry{
//		Name: "brevity", Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsAnswer,
//		Build: func(m metric.Model) eval.Scorer { return Brevity{Model: m} },
//	})
//
// The package imports only eval and llm, so that the packages that define
// metrics (judges, agent) can all add to one registry.
package metric
