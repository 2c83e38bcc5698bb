package prompts

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/assaylabs/assay/internal/datablock"
)

//go:embed templates/*.tmpl
var files embed.FS

// Template is one judge step's prompt: a system and a user message.
type Template struct {
	Name    string
	Version string
	// parsed is the template's text parsed, on its first rendering: a
	// rerun whose replies are all cached renders none, and its keys need
	// only the name and version.
	parsed func() (*template.Template, error)
}

// Rendered is a prompt ready to send.
type Rendered struct {
	System, User string
	// Key identifies the prompt's content: name, version and data, without
	// the nonce, so identical judgements share a cache entry.
	Key string
	// Nonce is the random tag suffix of this rendering's data blocks.
	Nonce string
}

// templates are read on first use, all at once, rather than at start-up;
// each one's text is parsed when it is first rendered.
var templates = sync.OnceValue(mustLoad)

// Names lists the embedded templates.
func Names() []string {
	ts := templates()
	out := make([]string, 0, len(ts))
	for n := range ts {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Get returns the named template.
func Get(name string) (*Template, error) {
	t, ok := templates()[name]
	if !ok {
		return nil, fmt.Errorf("prompts: no template %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return t, nil
}

// MustGet is Get for names fixed in code.
func MustGet(name string) *Template {
	t, err := Get(name)
	if err != nil {
		panic(err)
	}
	return t
}

func mustLoad() map[string]*Template {
	out := map[string]*Template{}
	err := fs.WalkDir(files, "templates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		t, err := parse(p)
		if err != nil {
			return err
		}
		out[t.Name] = t
		return nil
	})
	if err != nil {
		// The templates are part of the binary; a broken one is caught by
		// the package's tests before it can ship (TestEveryTemplateParses).
		panic(err)
	}
	return out
}

// parse reads a template file's "version: N" first line; the definitions
// of "system" and "user" after it are parsed on the first rendering
// (parseBody).
func parse(p string) (*Template, error) {
	src, err := files.ReadFile(p)
	if err != nil {
		return nil, err
	}
	first, body, _ := bytes.Cut(src, []byte("\n"))
	v, ok := strings.CutPrefix(strings.TrimSpace(string(first)), "version:")
	if !ok {
		return nil, fmt.Errorf("%s:1: want \"version: N\"", p)
	}
	return newTemplate(p, strings.TrimSuffix(path.Base(p), ".tmpl"), strings.TrimSpace(v), string(body)), nil
}

// newTemplate is the template of the file p, its body parsed when first
// rendered.
func newTemplate(p, name, version, body string) *Template {
	return &Template{Name: name, Version: version, parsed: sync.OnceValues(func() (*template.Template, error) {
		return parseBody(p, name, body)
	})}
}

// parseBody parses the text of the template file p after its first line,
// which must define "system" and "user".
func parseBody(p, name, body string) (*template.Template, error) {
	// The functions write the process's marker where the nonce goes;
	// Render swaps in each rendering's own nonce.
	t := template.New(name).Option("missingkey=error").Funcs(funcs(marker()))
	if _, err := t.Parse(body); err != nil {
		return nil, fmt.Errorf("prompts: %s: %w", p, err)
	}
	for _, part := range []string{"system", "user"} {
		if t.Lookup(part) == nil {
			return nil, fmt.Errorf("prompts: %s: no %q definition", p, part)
		}
	}
	return t, nil
}

// Render fills the template with data. Strings reach the prompt only
// through {{data "label" .Field}}, which wraps them in nonce-tagged blocks.
func (t *Template) Render(data any) (Rendered, error) {
	p, err := t.Prepare(data)
	if err != nil {
		return Rendered{}, err
	}
	return p.Render()
}

// Preview is Render with a fixed nonce instead of a random one, so that
// the same data always gives the same text: for estimates, such as the
// tokens of a dry run. A preview must never be sent: its nonce is public,
// so the data could close its own block.
func (t *Template) Preview(data any) (Rendered, error) {
	p, err := t.Prepare(data)
	if err != nil {
		return Rendered{}, err
	}
	return p.render(func([]byte) string { return previewNonce })
}

// previewNonce is a nonce's length and alphabet, and as many tokens as a
// random nonce has on average, rounded up, so a preview counts as a real
// prompt (datablock.PreviewNonce, which dry runs count prompts with).
const previewNonce = datablock.PreviewNonce

// Prepared is a template bound to its data: the key of the prompt it
// makes is known before its text is rendered, so a caller whose reply is
// already cached under Key need not render it at all.
type Prepared struct {
	// Key is Rendered.Key of every rendering of the template with the data.
	Key     string
	t       *Template
	data    any
	payload []byte
}

// Prepare binds data to the template and computes the prompt's key:
// name, version and the data's JSON.
func (t *Template) Prepare(data any) (Prepared, error) {
	payload, err := json.Marshal(data)
	if err != nil {
		return Prepared{}, fmt.Errorf("prompts: %s: %w", t.Name, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", t.Name, t.Version)
	h.Write(payload)
	return Prepared{Key: t.Name + "@" + t.Version + ":" + hex.EncodeToString(h.Sum(nil)), t: t, data: data, payload: payload}, nil
}

// Render renders the prepared prompt with a nonce of its own.
func (p Prepared) Render() (Rendered, error) { return p.render(newNonce) }

// render is Render with the nonce drawn by nonceFor from the data's JSON.
func (p Prepared) render(nonceFor func(payload []byte) string) (Rendered, error) {
	t, data := p.t, p.data
	parsed, err := t.parsed()
	if err != nil {
		return Rendered{}, err
	}
	nonce := nonceFor(p.payload)
	tmpl, tag := parsed, marker()
	if bytes.Contains(p.payload, []byte(tag)) {
		// The data holds the marker (it cannot know it, but be exact):
		// bind the functions to the nonce itself on a copy instead.
		if tmpl, err = parsed.Clone(); err != nil {
			return Rendered{}, err
		}
		tmpl.Funcs(funcs(nonce))
		tag = nonce
	}
	var sys, user strings.Builder
	if err := tmpl.ExecuteTemplate(&sys, "system", data); err != nil {
		return Rendered{}, fmt.Errorf("prompts: %s: %w", t.Name, err)
	}
	if err := tmpl.ExecuteTemplate(&user, "user", data); err != nil {
		return Rendered{}, fmt.Errorf("prompts: %s: %w", t.Name, err)
	}
	system, userText := sys.String(), user.String()
	if tag != nonce {
		system, userText = strings.ReplaceAll(system, tag, nonce), strings.ReplaceAll(userText, tag, nonce)
	}
	return Rendered{
		System: strings.TrimSpace(system),
		User:   strings.TrimSpace(userText),
		Key:    p.Key,
		Nonce:  nonce,
	}, nil
}

// marker stands for the nonce in templates as parsed: random for each
// process, so no data can contain it by design (Render checks anyway).
// It is drawn on first use: the first read of crypto/rand is costly.
var marker = sync.OnceValue(func() string { return "nonce" + newNonce(nil) })

// funcs are the template functions, writing tag where the nonce goes.
func funcs(tag string) template.FuncMap {
	return template.FuncMap{
		"data": func(label, text string) (string, error) { return block(label, tag, text), nil },
		"json": func(v any) (string, error) {
			b, err := json.MarshalIndent(v, "", " ")
			return block("data", tag, string(b)), err
		},
		"nonce": func() string { return tag },
	}
}

// block wraps untrusted text between tags that carry the nonce.
func block(label, nonce, text string) string { return datablock.Block(label, nonce, text) }

// newNonce draws a random 96-bit tag suffix that does not occur in the
// payload, so the data cannot contain its own closing tag.
func newNonce(payload []byte) string { return datablock.Nonce(string(payload)) }
