package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/judges"
)

// dailyProfile returns the daily profile --profile names: the built-in
// "daily", or a YAML file whose kind is daily; ok is false for any other
// profile.
func dailyProfile(name string) (p *daily.Profile, ok bool, err error) {
	if name == "daily" {
		return daily.Default(), true, nil
	}
	if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
		return nil, false, nil
	}
	data, err := os.ReadFile(name)
	if err != nil || !isDailyKind(data) {
		return nil, false, nil // agent.LoadProfile reports what is wrong
	}
	p, err = daily.ParseProfile(name, data)
	return p, true, err
}

// isDailyKind reports whether a profile file says "kind: daily".
func isDailyKind(data []byte) bool {
	for line := range bytes.Lines(data) {
		f := strings.Fields(string(line))
		if len(f) == 2 && f[0] == "kind:" && strings.Trim(f[1], `"'`) == "daily" {
			return true
		}
	}
	return false
}

// runDaily scores a daily report (seed 003): the five scorers against the
// truth (and the telemetry, for QoS), overall_quality and the gate; exit 0
// on publish, 1 on review.
func runDaily(cmd *cobra.Command, f scoreFlags, p *daily.Profile, file string) error {
	if f.truth == "" {
		return inputErr(fmt.Errorf("--truth: missing: the daily profile judges a report against the data it was written from; give --truth TRUTH.json"))
	}
	data, err := readInput(file, cmd.InOrStdin(), maxInput)
	if err != nil {
		return inputErr(err)
	}
	td, err := readInput(f.truth, nil, maxInput)
	if err != nil {
		return inputErr(err)
	}
	truth, err := daily.ReadTruth(f.truth, td, p)
	if err != nil {
		return inputErr(err)
	}
	var tel *daily.Telemetry
	if f.telemetry != "" {
		rd, err := readInput(f.telemetry, nil, maxInput)
		if err != nil {
			return inputErr(err)
		}
		if tel, err = daily.ReadTelemetry(f.telemetry, rd); err != nil {
			return inputErr(err)
		}
	}
	r := p.Score(string(data), truth, tel)

	client, closeCache, err := f.llm.client(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer closeCache()
	defaulted := 0
	if !client.Offline() {
		// The seed's "future enhancement": a model's semantic verdict on
		// the reasoning, beside the deterministic score.
		sc, err := judges.Reasoning{Model: client}.Score(cmd.Context(), eval.Sample{Query: truth.Subject["name"], Answer: string(data)})
		if err != nil {
			return &exitError{code: exitInfra, err: err}
		}
		r.SemanticReasoning = &daily.SemanticVerdict{Label: "LLM reasoning verdict (semantic, not in overall_quality)",
			Method: sc.Method, Score: round1(sc.Points), Reason: sc.Reason, Defaulted: sc.Defaulted}
		if sc.Defaulted {
			defaulted++
		}
	}
	if err := renderDaily(cmd.OutOrStdout(), f.format, r); err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	if !client.Offline() {
		f.llm.summary(cmd.ErrOrStderr(), client, defaulted)
	}
	if err := f.llm.budgetErr(client); err != nil {
		return err
	}
	if err := f.llm.strictErr(defaulted); err != nil {
		return err
	}
	if r.Gate.Decision != daily.Publish {
		return &exitError{code: exitFailed}
	}
	return nil
}

func renderDaily(w io.Writer, format string, r daily.Result) error {
	switch format {
	case "text":
		_, err := io.WriteString(w, r.Text())
		return err
	case "md":
		_, err := io.WriteString(w, r.Markdown())
		return err
	case "json":
		return writeJSON(w, r)
	default:
		return writeYAML(w, r)
	}
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }
