package heuristics

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultTiersLoads(t *testing.T) {
	t.Parallel()
	// A broken embedded file must fail here, not degrade silently at run
	// time.
	_, err := defaultTiers()
	require.NoError(t, err)
	loaded, err := LoadTiers("tiers.yaml", bytes.NewReader(tiersYAML))
	require.NoError(t, err)
	assert.Equal(t, float64(fallbackDefaultScore), loaded.DefaultScore())
	assert.Same(t, DefaultTiers(), DefaultTiers(), "parsed once")

	var names []string
	for _, tr := range loaded.tiers {
		names = append(names, tr.name)
	}
	assert.Equal(t, []string{
		"government", "intergovernmental", "education", "standards_body", "official_docs",
		"tier1_news", "journals", "preprints", "industry_analysis", "expert_blogs",
		"tier2_news", "reference_works", "wikipedia", "blog_platforms",
		"personal_blogs", "forums", "social_media", "user_generated",
	}, names)
}

func TestDefaultTiersLookup(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		host      string
		wantTier  string
		wantScore float64
	}{
		"us government":                  {"www.cdc.gov", "government", 10},
		"military":                       {"army.mil", "government", 10},
		"uk government suffix":           {"www.ons.gov.uk", "government", 10},
		"suffix matches the name itself": {"www.gov.uk", "government", 10},
		"treaty organisation":            {"www.who.int", "intergovernmental", 9},
		"eu institutions":                {"ec.europa.eu", "government", 10},
		"us university":                  {"cs.stanford.edu", "education", 10},
		"uk university":                  {"www.ox.ac.uk", "education", 10},
		"listed university":              {"ethz.ch", "education", 10},
		"standards body":                 {"www.w3.org", "standards_body", 9},
		"ietf datatracker":               {"datatracker.ietf.org", "standards_body", 9},
		"official docs":                  {"docs.python.org", "official_docs", 9},
		"official docs, exact":           {"react.dev", "official_docs", 9},
		"docs host of a company":         {"learn.microsoft.com", "official_docs", 9},
		"tier 1 news":                    {"www.reuters.com", "tier1_news", 8},
		"tier 1 news, co.uk":             {"www.bbc.co.uk", "tier1_news", 8},
		"journal":                        {"www.nature.com", "journals", 8},
		"acm digital library":            {"dl.acm.org", "journals", 8},
		"ieee xplore beats ieee.org":     {"ieeexplore.ieee.org", "journals", 8},
		"ieee spectrum beats ieee.org":   {"spectrum.ieee.org", "tier2_news", 6},
		"ieee.org itself":                {"www.ieee.org", "standards_body", 9},
		"preprint":                       {"arxiv.org", "preprints", 7},
		"industry analysis":              {"www.gartner.com", "industry_analysis", 7},
		"expert blog":                    {"martinfowler.com", "expert_blogs", 7},
		"expert on github.io beats it":   {"karpathy.github.io", "expert_blogs", 7},
		"tier 2 news":                    {"www.theverge.com", "tier2_news", 6},
		"reference work":                 {"www.britannica.com", "reference_works", 6},
		"wikipedia":                      {"en.wikipedia.org", "wikipedia", 5},
		"blog platform":                  {"medium.com", "blog_platforms", 4},
		"site on a blog platform":        {"someone.github.io", "blog_platforms", 4},
		"blog host":                      {"someone.blogspot.com", "personal_blogs", 2},
		"newsletter host":                {"someone.substack.com", "personal_blogs", 2},
		"thai government":                {"www.dede.go.th", "government", 10},
		"thai university":                {"www.chula.ac.th", "education", 10},
		"forum":                          {"stackoverflow.com", "forums", 3},
		"hacker news":                    {"news.ycombinator.com", "forums", 3},
		"social media":                   {"x.com", "social_media", 2},
		"user generated":                 {"www.pinterest.com", "user_generated", 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tier, score, ok := DefaultTiers().Lookup(tc.host)
			require.True(t, ok, tc.host)
			assert.Equal(t, tc.wantTier, tier)
			assert.Equal(t, tc.wantScore, score)
		})
	}
}

// Official organisations of seed 001 ("official organizations", 9) are a
// class: any host under .int, and intergovernmental and standards bodies on
// other names. The hosts here are subdomains and bodies the seed does not
// name.
func TestDefaultTiersOfficialOrganisations(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		host     string
		wantTier string
	}{
		"any .int host, listed nowhere":        {"secretariat.example-treaty.int", "intergovernmental"},
		"climate convention secretariat":       {"unfccc.int", "intergovernmental"},
		"intellectual property organisation":   {"www.wipo.int", "intergovernmental"},
		"energy agency on .org":                {"www.iea.org", "intergovernmental"},
		"statistics host of the monetary fund": {"data.imf.org", "intergovernmental"},
		"central banks' bank":                  {"www.bis.org", "intergovernmental"},
		"atomic energy agency":                 {"www.iaea.org", "intergovernmental"},
		"un commission for asia, in bangkok":   {"www.unescap.org", "intergovernmental"},
		"regional development bank":            {"www.adb.org", "intergovernmental"},
		"south-east asian nations":             {"asean.org", "intergovernmental"},
		"un agency, thai-language page host":   {"www.unicef.org", "intergovernmental"},
		"oecd statistics":                      {"stats.oecd.org", "intergovernmental"},
		"metrology bureau":                     {"www.bipm.org", "standards_body"},
		"european standards":                   {"www.cencenelec.eu", "standards_body"},
		"testing standards":                    {"www.astm.org", "standards_body"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tier, score, ok := DefaultTiers().Lookup(tc.host)
			require.True(t, ok, tc.host)
			assert.Equal(t, tc.wantTier, tier)
			assert.Equal(t, 9.0, score, "seed 001 gives official organisations 9")
		})
	}
}

func TestDefaultTiersUnlisted(t *testing.T) {
	t.Parallel()
	for _, host := range []string{
		"example.org",      // .org alone is not a primary source
		"ycombinator.com",  // only news.ycombinator.com is listed
		"microsoft.com",    // only its documentation hosts are
		"notgov.com",       // ".gov" must match whole labels
		"gov.example.com",  // a label named gov is not the .gov suffix
		"int.example.com",  // nor is a label named int the .int suffix
		"oecd.org.example", // a listed body's name inside another
		"python.org.evil.", // a listed name inside another
		"localhost",
		"192.168.0.1",
		"",
	} {
		tier, score, ok := DefaultTiers().Lookup(host)
		assert.False(t, ok, host)
		assert.Empty(t, tier, host)
		assert.Zero(t, score, host)
	}
}

func TestTiersLookupHostForms(t *testing.T) {
	t.Parallel()
	tiers := mustLoad(t, `
tiers:
  - name: docs
    score: 9
    domains: [python.org]
`)
	for _, host := range []string{
		"python.org",
		"DOCS.Python.ORG",
		"docs.python.org:443",
		"docs.python.org.",
		"https://docs.python.org/3/library/",
		"  python.org  ",
	} {
		tier, score, ok := tiers.Lookup(host)
		assert.True(t, ok, host)
		assert.Equal(t, "docs", tier, host)
		assert.Equal(t, 9.0, score, host)
	}
}

func TestTiersPrecedence(t *testing.T) {
	t.Parallel()
	// File order is reversed on purpose: matching must not depend on it.
	tiers := mustLoad(t, `
tiers:
  - name: suffix_uk
    score: 2
    suffixes: [.uk]
  - name: suffix_gov_uk
    score: 3
    suffixes: [.gov.uk]
  - name: parent
    score: 4
    domains: [example.gov.uk]
  - name: child
    score: 5
    domains: [docs.example.gov.uk]
`)
	tests := map[string]struct {
		host string
		want string
	}{
		"most specific domain wins":      {"a.docs.example.gov.uk", "child"},
		"exact domain":                   {"docs.example.gov.uk", "child"},
		"parent domain below child":      {"www.example.gov.uk", "parent"},
		"domain beats a longer suffix":   {"example.gov.uk", "parent"},
		"longest suffix wins":            {"other.gov.uk", "suffix_gov_uk"},
		"shorter suffix when no longer":  {"bbc.co.uk", "suffix_uk"},
		"suffix matches the name itself": {"uk", "suffix_uk"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tier, _, ok := tiers.Lookup(tc.host)
			require.True(t, ok)
			assert.Equal(t, tc.want, tier)
		})
	}
}

func TestNilTiers(t *testing.T) {
	t.Parallel()
	var tiers *Tiers
	_, _, ok := tiers.Lookup("python.org")
	assert.False(t, ok)
	assert.Equal(t, 4.0, tiers.DefaultScore())
	merged := tiers.Merge(nil)
	require.NotNil(t, merged)
	_, _, ok = merged.Lookup("python.org")
	assert.False(t, ok)
}

func TestLoadTiersAliases(t *testing.T) {
	t.Parallel()
	tiers := mustLoad(t, `
tiers:
  - name: a
    score: &primary 9
    domains: &sites [a.org]
  - name: b
    score: *primary
    suffixes: [.b]
`)
	_, score, ok := tiers.Lookup("x.b")
	require.True(t, ok)
	assert.Equal(t, 9.0, score)
	tier, _, ok := tiers.Lookup("a.org")
	require.True(t, ok)
	assert.Equal(t, "a", tier)
}

func TestLoadTiersValid(t *testing.T) {
	t.Parallel()
	tiers := mustLoad(t, `
# Our sites.
default_score: 3.5
tiers:
  - name: Internal-Docs_2
    score: 9.5
    with_author: 10
    domains:
      - Wiki.Corp.Example
    suffixes: [.CORP]
  - name: empty
    score: 1
    domains: ~
`)
	assert.Equal(t, 3.5, tiers.DefaultScore())
	tier, score, ok := tiers.Lookup("wiki.corp.example")
	require.True(t, ok)
	assert.Equal(t, "Internal-Docs_2", tier)
	assert.Equal(t, 9.5, score, "Lookup gives the score without a named author")
	tier, _, ok = tiers.Lookup("build.corp")
	require.True(t, ok)
	assert.Equal(t, "Internal-Docs_2", tier)
	tr, ok := tiers.match("wiki.corp.example")
	require.True(t, ok)
	assert.Equal(t, 10.0, tr.withAuthor)
}

func TestLoadTiersEmpty(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"empty":         "",
		"comments only": "# nothing yet\n",
		"null":          "~\n",
		"no tiers":      "tiers:\n",
	} {
		tiers, err := LoadTiers("empty.yaml", strings.NewReader(src))
		require.NoError(t, err, name)
		_, _, ok := tiers.Lookup("python.org")
		assert.False(t, ok, name)
		assert.Equal(t, 4.0, tiers.DefaultScore(), name)
	}
}

func TestLoadTiersErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		src     string
		wantErr string
	}{
		"score out of range": {
			src: `tiers:
  - name: a
    score: 9
    domains: [a.org]
  - name: b
    score: 14
`,
			wantErr: "mytiers.yaml:6: tiers[1].score: must be between 1 and 10, got 14",
		},
		"score below range": {
			src:     "tiers:\n  - name: a\n    score: 0.5\n",
			wantErr: "mytiers.yaml:3: tiers[0].score: must be between 1 and 10, got 0.5",
		},
		"score not a number": {
			src:     "tiers:\n  - name: a\n    score: high\n",
			wantErr: `mytiers.yaml:3: tiers[0].score: must be a number, got "high"`,
		},
		"score quoted": {
			src:     "tiers:\n  - name: a\n    score: \"9\"\n",
			wantErr: `mytiers.yaml:3: tiers[0].score: must be a number, got "9"`,
		},
		"score nan": {
			src:     "tiers:\n  - name: a\n    score: .nan\n",
			wantErr: "mytiers.yaml:3: tiers[0].score: must be between 1 and 10, got .nan",
		},
		"score missing": {
			src:     "tiers:\n  - name: a\n    domains: [a.org]\n",
			wantErr: "mytiers.yaml:2: tiers[0].score: required",
		},
		"name missing": {
			src:     "tiers:\n  - score: 5\n",
			wantErr: "mytiers.yaml:2: tiers[0].name: required",
		},
		"bad name": {
			src:     "tiers:\n  - name: my docs\n    score: 5\n",
			wantErr: `mytiers.yaml:2: tiers[0].name: must be letters, digits, _ or -, got "my docs"`,
		},
		"duplicate tier name": {
			src:     "tiers:\n  - name: a\n    score: 5\n  - name: a\n    score: 6\n",
			wantErr: `mytiers.yaml:4: tiers[1].name: tier "a" already defined at line 2`,
		},
		"with_author out of range": {
			src:     "tiers:\n  - name: a\n    score: 5\n    with_author: 11\n",
			wantErr: "mytiers.yaml:4: tiers[0].with_author: must be between 1 and 10, got 11",
		},
		"default_score out of range": {
			src:     "default_score: 0\n",
			wantErr: "mytiers.yaml:1: default_score: must be between 1 and 10, got 0",
		},
		"unknown top-level field": {
			src:     "default: 4\n",
			wantErr: "mytiers.yaml:1: default: unknown field (want default_score or tiers)",
		},
		"misspelt tier field": {
			src:     "tiers:\n  - name: a\n    score: 5\n    suffix: [.gov]\n",
			wantErr: "mytiers.yaml:4: tiers[0].suffix: unknown field (want name, score, with_author, domains or suffixes)",
		},
		"repeated field": {
			src:     "tiers:\n  - name: a\n    score: 5\n    score: 6\n",
			wantErr: "mytiers.yaml:4: tiers[0].score: repeated field",
		},
		"tiers not a list": {
			src:     "tiers:\n  name: a\n",
			wantErr: "mytiers.yaml:2: tiers: must be a list",
		},
		"tier not a mapping": {
			src:     "tiers:\n  - python.org\n",
			wantErr: "mytiers.yaml:2: tiers[0]: must be a mapping with name, score and domains or suffixes",
		},
		"root not a mapping": {
			src:     "- a\n- b\n",
			wantErr: "mytiers.yaml:1: want a mapping with tiers and default_score",
		},
		"domains not a list": {
			src:     "tiers:\n  - name: a\n    score: 5\n    domains: python.org\n",
			wantErr: "mytiers.yaml:4: tiers[0].domains: must be a list",
		},
		"domain with a dot": {
			src:     "tiers:\n  - name: a\n    score: 5\n    domains: [.gov]\n",
			wantErr: `mytiers.yaml:4: tiers[0].domains[0]: ".gov" starts with a dot: list it under suffixes, or drop the dot`,
		},
		"suffix without a dot": {
			src:     "tiers:\n  - name: a\n    score: 5\n    suffixes:\n      - .edu\n      - gov\n",
			wantErr: `mytiers.yaml:6: tiers[0].suffixes[1]: must start with a dot, like .gov, got "gov"`,
		},
		"url instead of domain": {
			src:     "tiers:\n  - name: a\n    score: 5\n    domains:\n      - https://python.org/\n",
			wantErr: `mytiers.yaml:5: tiers[0].domains[0]: must be a host name like example.org, got "https://python.org/"`,
		},
		"empty label": {
			src:     "tiers:\n  - name: a\n    score: 5\n    suffixes: [..gov]\n",
			wantErr: `mytiers.yaml:4: tiers[0].suffixes[0]: must be a host name like example.org, got "..gov"`,
		},
		"domain not a string": {
			src:     "tiers:\n  - name: a\n    score: 5\n    domains: [[a.org]]\n",
			wantErr: "mytiers.yaml:4: tiers[0].domains[0]: must be a domain name",
		},
		"domain listed twice": {
			src: `tiers:
  - name: a
    score: 5
    domains: [python.org]
  - name: b
    score: 6
    domains:
      - Python.org
`,
			wantErr: "mytiers.yaml:8: tiers[1].domains[0]: Python.org already listed at line 4 (tiers[0].domains[0])",
		},
		"several problems, all reported": {
			src:     "tiers:\n  - name: a\n    score: 14\n  - score: 5\n",
			wantErr: "mytiers.yaml:3: tiers[0].score: must be between 1 and 10, got 14\nmytiers.yaml:4: tiers[1].name: required",
		},
		"yaml syntax error": {
			src:     "tiers:\n\t- name: a\n",
			wantErr: "mytiers.yaml:2: found character that cannot start any token",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := LoadTiers("mytiers.yaml", strings.NewReader(tc.src))
			require.Error(t, err)
			assert.Nil(t, got)
			assert.Equal(t, tc.wantErr, err.Error())
		})
	}
}

func TestLoadTiersReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	_, err := LoadTiers("mytiers.yaml", iotest.ErrReader(boom))
	require.ErrorIs(t, err, boom)
	assert.Equal(t, "mytiers.yaml: disk on fire", err.Error())
}

func TestTiersMerge(t *testing.T) {
	t.Parallel()
	base := mustLoad(t, `
default_score: 4
tiers:
  - name: docs
    score: 9
    domains: [python.org, go.dev]
  - name: blogs
    score: 4
    with_author: 5
    domains: [medium.com]
  - name: gov
    score: 10
    suffixes: [.gov]
`)
	override := mustLoad(t, `
default_score: 2
tiers:
  - name: blogs          # existing tier: new score, keeps with_author
    score: 3
    domains: [dev.to]
  - name: internal       # new tier, takes go.dev away from docs
    score: 8
    domains: [go.dev, wiki.corp.example]
    suffixes: [.gov]     # and the .gov suffix away from gov
`)
	merged := base.Merge(override)

	tests := map[string]struct {
		host      string
		wantTier  string
		wantScore float64
	}{
		"untouched entry":              {"docs.python.org", "docs", 9},
		"entry moved to new tier":      {"go.dev", "internal", 8},
		"entry added to new tier":      {"wiki.corp.example", "internal", 8},
		"suffix moved to new tier":     {"nasa.gov", "internal", 8},
		"entry added to a base tier":   {"dev.to", "blogs", 3},
		"base entry gets tier rescore": {"medium.com", "blogs", 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tier, score, ok := merged.Lookup(tc.host)
			require.True(t, ok)
			assert.Equal(t, tc.wantTier, tier)
			assert.Equal(t, tc.wantScore, score)
		})
	}

	t.Run("keeps with_author unless overridden", func(t *testing.T) {
		t.Parallel()
		tr, ok := merged.match("medium.com")
		require.True(t, ok)
		assert.Equal(t, 5.0, tr.withAuthor)
	})
	t.Run("default score overridden", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, 2.0, merged.DefaultScore())
	})
	t.Run("inputs unchanged", func(t *testing.T) {
		t.Parallel()
		tier, score, _ := base.Lookup("go.dev")
		assert.Equal(t, "docs", tier)
		assert.Equal(t, 9.0, score)
		_, score, _ = base.Lookup("medium.com")
		assert.Equal(t, 4.0, score)
		tier, _, _ = base.Lookup("nasa.gov")
		assert.Equal(t, "gov", tier)
		assert.Equal(t, 4.0, base.DefaultScore())
	})
	t.Run("default score kept when override sets none", func(t *testing.T) {
		t.Parallel()
		m := base.Merge(mustLoad(t, "tiers:\n  - name: x\n    score: 5\n"))
		assert.Equal(t, 4.0, m.DefaultScore())
	})
	t.Run("merge into the built-in tiers", func(t *testing.T) {
		t.Parallel()
		m := DefaultTiers().Merge(mustLoad(t, `
tiers:
  - name: official_docs
    score: 9
    domains: [docs.corp.example, medium.com]
`))
		tier, _, _ := m.Lookup("docs.corp.example")
		assert.Equal(t, "official_docs", tier)
		tier, _, _ = m.Lookup("medium.com")
		assert.Equal(t, "official_docs", tier)
		tier, _, _ = m.Lookup("dev.to")
		assert.Equal(t, "blog_platforms", tier, "the rest of blog_platforms stays")
		tier, _, _ = DefaultTiers().Lookup("medium.com")
		assert.Equal(t, "blog_platforms", tier, "built-in tiers unchanged")
	})
}

func mustLoad(t *testing.T, src string) *Tiers {
	t.Helper()
	tiers, err := LoadTiers("test.yaml", strings.NewReader(src))
	require.NoError(t, err)
	return tiers
}

func ExampleTiers_Lookup() {
	tier, score, ok := DefaultTiers().Lookup("https://ieeexplore.ieee.org/document/1")
	fmt.Println(tier, score, ok)
	tier, score, ok = DefaultTiers().Lookup("www.ieee.org")
	fmt.Println(tier, score, ok)
	_, _, ok = DefaultTiers().Lookup("example.org")
	fmt.Println(ok)
	// Output:
	// journals 8 true
	// standards_body 9 true
	// false
}

func ExampleTiers_Merge() {
	user, err := LoadTiers("mytiers.yaml", strings.NewReader(`
tiers:
  - name: official_docs
    score: 9
    domains: [docs.corp.example]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	tiers := DefaultTiers().Merge(user)
	fmt.Println(tiers.Lookup("docs.corp.example"))
	fmt.Println(tiers.Lookup("docs.python.org"))
	// Output:
	// official_docs 9 true
	// official_docs 9 true
}

func ExampleLoadTiers() {
	_, err := LoadTiers("mytiers.yaml", strings.NewReader(`tiers:
  - name: docs
    score: 14
    domains: [.corp.example]
`))
	fmt.Println(err)
	// Output:
	// mytiers.yaml:3: tiers[0].score: must be between 1 and 10, got 14
	// mytiers.yaml:4: tiers[0].domains[0]: ".corp.example" starts with a dot: list it under suffixes, or drop the dot
}
