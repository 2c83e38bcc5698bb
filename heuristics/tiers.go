package heuristics

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed tiers.yaml
var tiersYAML []byte

// fallbackDefaultScore is the base score of an unlisted site when no file
// sets default_score. The embedded tiers.yaml sets the same value.
const fallbackDefaultScore = 4

// Tiers maps web sites to credibility tiers, each with a base score from 1
// to 10 (seed 001's source table). See tiers.yaml for the file format and
// the built-in lists.
//
// A host matches the most specific listed domain it equals or sits below
// (docs.python.org matches python.org; ieeexplore.ieee.org beats ieee.org);
// when no domain matches, the longest listed suffix (".gov.uk" beats ".uk");
// otherwise no tier. Order in the file never matters.
//
// A Tiers is immutable once built and safe for concurrent use. A nil *Tiers
// is an empty table: it matches nothing and its default score is 4.
type Tiers struct {
	tiers []tier
	// defaultScore is the score of an unlisted site; 0 means not set.
	defaultScore float64
	// byDomain and bySuffix map a canonical name (a suffix without its
	// leading dot) to an index in tiers.
	byDomain map[string]int
	bySuffix map[string]int
}

// tier is one tier of a Tiers.
type tier struct {
	name  string
	score float64
	// withAuthor is the score of a source that names its author; 0 means
	// the tier makes no such distinction.
	withAuthor float64
	domains    []string
	suffixes   []string // canonical, without the leading dot
}

var defaultTiers = sync.OnceValues(func() (*Tiers, error) {
	return LoadTiers("tiers.yaml", bytes.NewReader(tiersYAML))
})

// DefaultTiers returns the built-in tiers, parsed once from the embedded
// tiers.yaml. The result is shared; it cannot be modified, only merged into a
// new Tiers.
func DefaultTiers() *Tiers {
	t, err := defaultTiers()
	if err != nil {
		// Unreachable in a released build: TestDefaultTiersLoads fails when the
		// embedded file does not load. Degrade to "every site unlisted"
		// rather than panic.
		return &Tiers{}
	}
	return t
}

// Lookup returns the tier of a host name and its base score, or ok false when
// no tier lists it. The host may carry a port, brackets or a trailing dot and
// any case; a whole URL is accepted too, and its host is used. For a tier
// with a with_author score, Lookup returns the score without a named author.
func (t *Tiers) Lookup(host string) (tier string, score float64, ok bool) {
	tr, ok := t.match(hostOf(host))
	if !ok {
		return "", 0, false
	}
	return tr.name, tr.score, true
}

// DefaultScore returns the base score of a site no tier lists.
func (t *Tiers) DefaultScore() float64 {
	if t == nil || t.defaultScore == 0 {
		return fallbackDefaultScore
	}
	return t.defaultScore
}

// match finds the tier of a canonical host name.
func (t *Tiers) match(host string) (tier, bool) {
	if t == nil || host == "" {
		return tier{}, false
	}
	for _, index := range []map[string]int{t.byDomain, t.bySuffix} {
		// Walk from the full name up, so the most specific entry wins.
		for name := host; name != ""; {
			if i, ok := index[name]; ok {
				return t.tiers[i], true
			}
			_, parent, found := strings.Cut(name, ".")
			if !found {
				break
			}
			name = parent
		}
	}
	return tier{}, false
}

// Merge returns a new Tiers made of t with override applied; neither is
// changed. A tier of override with the name of a tier of t replaces that
// tier's score (and with_author, when override sets it) and gains its
// entries; other tiers of override are added. A domain or suffix listed in
// override leaves whatever tier of t held it. A default_score in override
// replaces t's. A nil t or override counts as empty.
func (t *Tiers) Merge(override *Tiers) *Tiers {
	out := &Tiers{}
	if t != nil {
		out.defaultScore = t.defaultScore
		for _, tr := range t.tiers {
			tr.domains = slices.Clone(tr.domains)
			tr.suffixes = slices.Clone(tr.suffixes)
			out.tiers = append(out.tiers, tr)
		}
	}
	if override != nil {
		if override.defaultScore != 0 {
			out.defaultScore = override.defaultScore
		}
		moved := func(list []string, taken map[string]int) []string {
			return slices.DeleteFunc(list, func(s string) bool {
				_, ok := taken[s]
				return ok
			})
		}
		for i := range out.tiers {
			out.tiers[i].domains = moved(out.tiers[i].domains, override.byDomain)
			out.tiers[i].suffixes = moved(out.tiers[i].suffixes, override.bySuffix)
		}
		for _, o := range override.tiers {
			i := slices.IndexFunc(out.tiers, func(tr tier) bool { return tr.name == o.name })
			if i < 0 {
				o.domains = slices.Clone(o.domains)
				o.suffixes = slices.Clone(o.suffixes)
				out.tiers = append(out.tiers, o)
				continue
			}
			tr := &out.tiers[i]
			tr.score = o.score
			if o.withAuthor != 0 {
				tr.withAuthor = o.withAuthor
			}
			tr.domains = append(tr.domains, o.domains...)
			tr.suffixes = append(tr.suffixes, o.suffixes...)
		}
	}
	out.index()
	return out
}

// index builds byDomain and bySuffix from tiers.
func (t *Tiers) index() {
	t.byDomain = make(map[string]int)
	t.bySuffix = make(map[string]int)
	for i, tr := range t.tiers {
		for _, d := range tr.domains {
			t.byDomain[d] = i
		}
		for _, s := range tr.suffixes {
			t.bySuffix[s] = i
		}
	}
}

// LoadTiers reads a tiers file in the format of the built-in tiers.yaml.
// name is used only in errors, which give the file, the line and the field:
//
//	mytiers.yaml:12: tiers[3].score: must be between 1 and 10, got 14
//
// All problems found are reported, one per line (errors.Join). Unknown
// fields are errors, so a misspelt key does not pass silently. An empty file
// gives an empty Tiers. To add to the built-in tiers rather than replace
// them, merge: DefaultTiers().Merge(user).
func LoadTiers(name string, r io.Reader) (*Tiers, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlSyntaxError(name, err)
	}
	l := tiersLoader{name: name, seen: make(map[string]string)}
	t := &Tiers{}
	if len(doc.Content) > 0 {
		l.document(derefAlias(doc.Content[0]), t)
	}
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	t.index()
	return t, nil
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// yamlSyntaxError rewrites "yaml: line 3: msg" as "name:3: msg".
func yamlSyntaxError(name string, err error) error {
	msg := err.Error()
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", name, m[1], msg[len(m[0]):])
	}
	return fmt.Errorf("%s: %w", name, err)
}

// tiersLoader walks a parsed tiers file and collects its errors.
type tiersLoader struct {
	name string
	errs []error
	// seen maps each entry ("domain python.org", "suffix gov") to where it
	// was first listed ("line 40 (tiers[1].domains[2])").
	seen map[string]string
}

func (l *tiersLoader) errorf(n *yaml.Node, path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	l.errs = append(l.errs, fmt.Errorf("%s:%d: %s", l.name, n.Line, msg))
}

// derefAlias follows aliases.
func derefAlias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// fields returns the key and value nodes of a mapping, reporting unknown and
// repeated keys.
func (l *tiersLoader) fields(n *yaml.Node, path string, known ...string) map[string]*yaml.Node {
	out := make(map[string]*yaml.Node)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := derefAlias(n.Content[i]), derefAlias(n.Content[i+1])
		field := fieldPath(path, k.Value)
		switch {
		case !slices.Contains(known, k.Value):
			l.errorf(k, field, "unknown field (want %s)", orWords(known))
		case out[k.Value] != nil:
			l.errorf(k, field, "repeated field")
		default:
			out[k.Value] = v
		}
	}
	return out
}

func fieldPath(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func orWords(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func (l *tiersLoader) document(n *yaml.Node, t *Tiers) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		l.errorf(n, "", "want a mapping with tiers and default_score")
		return
	}
	f := l.fields(n, "", "default_score", "tiers")
	if v := f["default_score"]; v != nil {
		t.defaultScore = l.score(v, "default_score")
	}
	v := f["tiers"]
	if v == nil || yamlNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		l.errorf(v, "tiers", "must be a list")
		return
	}
	names := make(map[string]int) // tier name -> line
	for i, item := range v.Content {
		tr, ok := l.tier(derefAlias(item), fmt.Sprintf("tiers[%d]", i), names)
		if ok {
			t.tiers = append(t.tiers, tr)
		}
	}
}

var tierName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

func (l *tiersLoader) tier(n *yaml.Node, path string, names map[string]int) (tier, bool) {
	if n.Kind != yaml.MappingNode {
		l.errorf(n, path, "must be a mapping with name, score and domains or suffixes")
		return tier{}, false
	}
	before := len(l.errs)
	f := l.fields(n, path, "name", "score", "with_author", "domains", "suffixes")
	var tr tier
	switch v := f["name"]; {
	case v == nil:
		l.errorf(n, path+".name", "required")
	case v.Kind != yaml.ScalarNode || !tierName().MatchString(v.Value):
		l.errorf(v, path+".name", "must be letters, digits, _ or -, got %q", v.Value)
	case names[v.Value] != 0:
		l.errorf(v, path+".name", "tier %q already defined at line %d", v.Value, names[v.Value])
	default:
		tr.name = v.Value
		names[v.Value] = v.Line
	}
	if v := f["score"]; v == nil {
		l.errorf(n, path+".score", "required")
	} else {
		tr.score = l.score(v, path+".score")
	}
	if v := f["with_author"]; v != nil {
		tr.withAuthor = l.score(v, path+".with_author")
	}
	if v := f["domains"]; v != nil {
		tr.domains = l.names(v, path+".domains", false)
	}
	if v := f["suffixes"]; v != nil {
		tr.suffixes = l.names(v, path+".suffixes", true)
	}
	return tr, len(l.errs) == before
}

// score reads a number from 1 to 10.
func (l *tiersLoader) score(n *yaml.Node, path string) float64 {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		l.errorf(n, path, "must be a number, got %q", n.Value)
		return 0
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsNaN(f) || f < 1 || f > 10 {
		l.errorf(n, path, "must be between 1 and 10, got %s", n.Value)
		return 0
	}
	return f
}

// names reads a list of domains or (when suffix) suffixes and returns them in
// canonical form: lower case, suffixes without their leading dot.
func (l *tiersLoader) names(n *yaml.Node, path string, suffix bool) []string {
	if yamlNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, path, "must be a list")
		return nil
	}
	kind := "domain"
	if suffix {
		kind = "suffix"
	}
	var out []string
	for i, item := range n.Content {
		item = derefAlias(item)
		at := fmt.Sprintf("%s[%d]", path, i)
		if item.Kind != yaml.ScalarNode || yamlNull(item) {
			l.errorf(item, at, "must be a %s name", kind)
			continue
		}
		s := strings.ToLower(strings.TrimSpace(item.Value))
		switch {
		case suffix && !strings.HasPrefix(s, "."):
			l.errorf(item, at, "must start with a dot, like .gov, got %q", item.Value)
			continue
		case !suffix && strings.HasPrefix(s, "."):
			l.errorf(item, at, "%q starts with a dot: list it under suffixes, or drop the dot", item.Value)
			continue
		}
		s = strings.TrimPrefix(s, ".")
		if !validHostName(s) {
			l.errorf(item, at, "must be a host name like example.org, got %q", item.Value)
			continue
		}
		key := kind + " " + s
		if first, dup := l.seen[key]; dup {
			l.errorf(item, at, "%s already listed at %s", item.Value, first)
			continue
		}
		l.seen[key] = fmt.Sprintf("line %d (%s)", item.Line, at)
		out = append(out, s)
	}
	return out
}

func yamlNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// validHostName reports whether s is a lower-case host name: labels of
// letters, digits, "-" and "_" (or non-ASCII letters), none empty.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" {
			return false
		}
		for _, r := range label {
			ok := r >= 0x80 || 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '_'
			if !ok {
				return false
			}
		}
	}
	return true
}
