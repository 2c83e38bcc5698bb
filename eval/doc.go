// Package eval is Assay's vocabulary: the thing judged ([Sample]), one
// measurement of it ([Score]), the contract every scorer meets ([Scorer]) and
// the verdict of a profile ([Card]).
//
// Heuristic scorers (package heuristics) and LLM judges (package judges) both
// implement [Scorer], so the agent fans out over one interface and a card can
// mix deterministic and model-based scores. The package imports nothing else
// of Assay's.
//
// A Score is always in the same two units: Value in [0, 1] for comparison
// across metrics, and native Points out of Max (4.5 of 5, grade 3 of 5) for
// the seeds' point tables. A judge that failed and fell back to its neutral
// default says so with Defaulted and Err; it is never silently averaged in.
//
//	var s eval.Scorer = heuristics.Grounding{}
//	sc, err := s.Score(ctx, eval.Sample{Answer: report})
//	fmt.Println(sc.Points, "of", sc.Max)
package eval
