// Package agent turns a Profile into a Card: it builds the profile's
// scorers, runs them in parallel, and decides the status and the fixes.
// Later it also drives the research workflow and its remediation loop.
package agent
