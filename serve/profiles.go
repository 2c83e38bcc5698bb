package serve

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/metric"
)

// builtinProfiles are the profiles a request may name whatever the
// server's folder holds.
var builtinProfiles = []string{dataset.ProfileResearch, dataset.ProfileDaily, dataset.ProfileContext}

// profileSet is what a request's "profile" may name: a built-in profile,
// or a profile file of the folder the operator gave (Config.Profiles),
// by its name without .yaml. A request never names a path: the names are
// the folder's, read once when the server is built, and looking one up
// reads no file.
type profileSet struct {
	// paths are the folder's profiles by name.
	paths map[string]string
}

// loadProfiles reads every .yaml (or .yml) file of dir as a profile of
// reg's metrics, so that a bad one stops the server from starting, named
// with its line and field. An empty dir is no folder.
func loadProfiles(dir string, reg *metric.Registry) (profileSet, error) {
	ps := profileSet{paths: map[string]string{}}
	if dir == "" {
		return ps, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ps, eval.FlagError("--profiles", "want a folder of profile files (.yaml): %v", err)
	}
	for _, e := range ents {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".yaml" && ext != ".yml") {
			continue
		}
		name, path := strings.TrimSuffix(e.Name(), ext), filepath.Join(dir, e.Name())
		switch {
		case slices.Contains(builtinProfiles, name):
			return ps, &eval.InputError{File: path, Msg: fmt.Sprintf("has the name of a built-in profile (%s): rename the file", strings.Join(builtinProfiles, ", "))}
		case ps.paths[name] != "":
			return ps, &eval.InputError{File: path, Msg: fmt.Sprintf("%s is also %s: keep one", name, ps.paths[name])}
		}
		if _, err := (agent.Profiles{Metrics: reg}).Load(path); err != nil {
			if _, ok := errors.AsType[*eval.InputError](err); ok {
				return ps, err // it names the file, the line and the field
			}
			return ps, &eval.InputError{File: path, Msg: err.Error(), Err: err}
		}
		ps.paths[name] = path
	}
	return ps, nil
}

// resolve is the profile a request names, as bench.Job and agent.ScoreJob
// take it: a built-in name as it is, a folder's profile by its path; ""
// is "". Any other name, a path above all, is a 400 naming field that
// says which names there are, the same whether a file of that name
// exists or not.
func (ps profileSet) resolve(field, name string) (string, error) {
	if name == "" || slices.Contains(builtinProfiles, name) {
		return name, nil
	}
	if path, ok := ps.paths[name]; ok {
		return path, nil
	}
	own := " (the server has no --profiles folder)"
	if len(ps.paths) > 0 {
		own = ", or a profile of the server's --profiles folder (" + strings.Join(slices.Sorted(maps.Keys(ps.paths)), ", ") + ")"
	}
	// The name is not echoed: what a request sends is data, and an error
	// that repeats it would make the server a mirror.
	return "", badRequest(field, "%s: want research, daily or context%s: a name, never a path", field, own)
}
