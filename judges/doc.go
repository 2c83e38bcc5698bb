// Package judges holds Assay's LLM judges, each an eval.Scorer that returns
// its evidence: faithfulness, answer relevancy (RAGAS's; the model's direct
// 1-5 grade is another metric, answer_relevancy_grade), context precision,
// context recall, completeness, per-source relevance (1-5, seed 004),
// reasoning quality (seed 003's dimensions), and the judges of an answer
// against its reference: answer correctness, factual correctness (F1,
// precision, recall) and semantic similarity (RAGAS's).
//
// # Contract
//
// A judge whose model call still fails after the client's retries, or whose
// reply stays invalid after one repair request, returns grade 3 of 5
// (value 0.5) with Defaulted set and the error in Err and Reason: "when in
// doubt, keep it". Only a cancelled context or input the judge cannot use
// (a missing reference for context recall) is returned as an error.
//
// # Strict replies
//
// Every reply is read the same way in every judge: its JSON must validate
// against the schema the judge sends (required fields, types, enums,
// ranges; see llm.ChatJSON), and then pass the judge's checks of what only
// the request knows: statement numbers within 1..n, context ids among
// those of the prompt. A reply that fails gets one repair request, then
// the neutral default. A reply on another scale than its schema's (a 0-1
// or 0-100 number where a 1-5 grade is asked, 0.8 where an integer 0-100
// is) fails like any other: each schema states its scale (integer type,
// minimum, maximum) and the reply is read on that scale alone. A reply of
// the right shape that judges nothing
// ({}, {"hello":"world"}, the list under another key) is therefore never
// read as "no claims".
//
// Contexts are named in prompts by position (c1, c2, ...), whatever their
// ids in the sample, and mapped back to the sample's ids in the evidence.
// Where a judge gives verdicts per item (faithfulness, context recall,
// context precision):
//   - two verdicts for one item: the worse is kept, and counted in the
//     evidence as "repeated_verdicts" with a note in its issues;
//   - items the reply skips are asked about once more, alone; when any is
//     still without a verdict, the whole score is the neutral default with
//     ErrMissingVerdicts, the evidence keeping the verdicts given and
//     counting the missing ones as "unjudged".
//
// # Nothing to judge
//
// A judge of the answer (faithfulness, answer relevancy and its grade,
// completeness, reasoning) given a missing or blank answer, and
// faithfulness given an answer with no claim, returns a Skipped score
// (eval.Score.Skipped) with eval.ErrNoAnswer or eval.ErrNoClaims and the
// reason, offline and with a model alike: not scored, counted apart, never
// averaged in, never passing a gate. So does a judge given a sample it
// does not apply to: offline reasoning reads a report's sections, and
// skips an answer without a Markdown heading with eval.ErrNoSections. Context precision (with a reference), context recall and source
// relevance judge the retrieval, not the answer, and score such a sample
// as any other.
//
// # Registry
//
// Each judge's metric is one entry of a metric.Registry, written beside
// the scorer it builds: its name, kind, what it needs of a sample, its
// default threshold offline and with a model, how its scorer is built and
// its dry-run stand-in reply. AddBuiltins adds them to a registry; nothing
// is added when the package loads. agent.Builtins is the built-in registry
// of every metric; New builds one of the judges' own:
//
//	reg := agent.Builtins().Clone()
//	err := reg.Add(metric.Entry{
//		Name: "brevity", Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsAnswer,
//		Build: func(m judges.Model) eval.Scorer { return Brevity{Model: m} },
//	})
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
