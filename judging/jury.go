package judging

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// Jurors are the models of a comma-separated LLM.Spec, a jury (assay
// agree's), each once and in the order given; nil for one model or none.
func (j Config) Jurors() ([]string, error) {
	spec := j.LLM.Spec
	if !strings.Contains(spec, ",") {
		return nil, nil
	}
	var specs []string
	for part := range strings.SplitSeq(spec, ",") {
		one := strings.TrimSpace(part)
		switch {
		case one == "":
			return nil, &eval.InputError{Msg: fmt.Sprintf("--llm %q: an empty model between commas: write openai:gpt-4o-mini,ollama:qwen2.5:7b", spec)}
		case slices.Contains(specs, one):
			return nil, eval.FlagError("--llm", "%s is given twice: a jury's models are distinct", one)
		}
		specs = append(specs, one)
	}
	return specs, nil
}

// OpenJury opens a Session per juror (Jurors), each with its own client
// and so its own cache and usage, the other settings the same; or the one
// Session of Open when j names one model. The caller closes them; on an
// error those opened are closed.
func (j Config) OpenJury(w io.Writer, env func(string) string) ([]*Session, error) {
	specs, err := j.Jurors()
	if err != nil {
		return nil, err
	}
	if specs == nil {
		specs = []string{j.LLM.Spec}
	}
	out := make([]*Session, 0, len(specs))
	for _, spec := range specs {
		juror := j
		juror.LLM.Spec = spec
		s, err := juror.Open(w, env)
		if err != nil {
			for _, o := range out {
				_ = o.Close() // the error is the one to report
			}
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
