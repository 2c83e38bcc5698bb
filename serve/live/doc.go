// Package live watches judged scores as they arrive and raises seed 002's
// quality alerts on them.
//
// A Monitor is fed one judged score at a time (Observe). Per metric it
// keeps a rolling window of recent scores, a baseline (a stored run's
// mean, or the mean of the metric's first full window), a trend by day and
// the judge's health. After every observation it applies seed 002's rule
// to the window's mean:
//
//   - warning ("degradation"): the recent mean is under 0.85 x the
//     baseline mean;
//   - critical ("threshold"): the recent mean is under 0.4, an absolute
//     floor that does not depend on the baseline (the seed compares
//     currentAvg with 0.4, not with 0.4 x baselineAvg).
//
// Each metric's alert is one state, none, warning or critical (critical
// when the floor is crossed, whether or not the warning holds too), and
// every change of state is an Event: open, escalate, deescalate, resolve.
// An alert opens or escalates at once, and is lowered (deescalate,
// resolve) only once Config.ClearAfter observations in a row (MinScores
// by default) each call for less: a mean hovering at a limit raises one
// alert, not an open and a resolve per score.
// A judge that stops answering (its last StallDefaults observations all
// defaulted, or no successful observation for StallAfter) makes the metric
// stalled, also an Event (stalled, recovered), and the flag and the last
// success time are in every Snapshot. A caller that announces each
// judgement (Begin, with Config.Announced) has the time counted only while
// one is under way, so that an idle metric is not taken for a stalled one.
//
// Events go, in order, to an optional Sink and an optional webhook, each
// from its own bounded queue served by its own goroutine, so that Observe
// never waits on them: a full queue drops its oldest event and counts it.
// Close stops both goroutines.
//
// The Monitor reads time only through Config.Now. Observe does no I/O.
package live
