package heuristics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// seedsDirEnv names a folder holding the seeds, for a checkout whose
// ../shared/seeds is elsewhere.
const seedsDirEnv = "ASSAY_SEEDS_DIR"

// seed002Scorer returns the TypeScript of seed 002's CompositeQualityScorer
// (the code block that starts with its file name), or skips the test when
// the seed is not there.
func seed002Scorer(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(seedsDirEnv)
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "seeds")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "002_*.txt"))
	require.NoError(t, err)
	if len(paths) == 0 {
		t.Skipf("seed 002 not found in %s (set %s to the seeds folder): the conformance check needs its TypeScript", dir, seedsDirEnv)
	}
	raw, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	const marker = "// packages/evaluator/src/scorer.ts"
	_, code, ok := strings.Cut(string(raw), marker)
	require.True(t, ok, "%s: no code block starting with %q", paths[0], marker)
	code, _, ok = strings.Cut(code, "```")
	require.True(t, ok, "%s: the scorer's code block does not end", paths[0])
	return code
}

// seed002Program turns the seed's scorer into a Node program: the imports
// go (types are stripped, the logger becomes a no-op), and a driver reads
// a JSON array of QualityInputs on standard input and writes the array of
// their scores.
func seed002Program(t *testing.T, ts string) string {
	t.Helper()
	var kept []string
	for line := range strings.Lines(ts) {
		if !strings.HasPrefix(strings.TrimSpace(line), "import ") {
			kept = append(kept, line)
		}
	}
	res := api.Transform(strings.Join(kept, ""), api.TransformOptions{
		Loader: api.LoaderTS,
		Format: api.FormatCommonJS,
		Target: api.ES2022,
	})
	for _, m := range res.Errors {
		t.Fatalf("esbuild: %s", m.Text)
	}
	return "const logger = { debug() {}, info() {} };\n" + string(res.Code) + `
const inputs = JSON.parse(require("fs").readFileSync(0, "utf8"));
(async () => {
  const scorer = new CompositeQualityScorer();
  const out = [];
  for (const input of inputs) out.push(await scorer.score(input));
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`
}

// nodeScore is one ContextQualityScore as the seed's code returns it.
type nodeScore struct {
	Overall               *float64 `json:"overall"`
	RetrievalConfidence   *float64 `json:"retrievalConfidence"`
	ContextSufficiency    *float64 `json:"contextSufficiency"`
	DiversityScore        *float64 `json:"diversityScore"`
	EstimatedFaithfulness *float64 `json:"estimatedFaithfulness"`
	Warning               string   `json:"warning"`
}

// TestContextQualityEqualsSeedTypeScriptOnNode runs seed 002's own
// TypeScript under Node on a table of inputs and requires Assay's figures
// (read through the same decoder as the CLI and the server) to be the same
// float64s, to the last bit. It skips when node or the seed is missing.
func TestContextQualityEqualsSeedTypeScriptOnNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: seed 002's TypeScript cannot be run, so the conformance check is skipped")
	}
	program := seed002Program(t, seed002Scorer(t))

	chunk := func(content string, score any, rerank any, doc string, section any) map[string]any {
		c := map[string]any{"content": content, "score": score, "documentId": doc, "metadata": map[string]any{}}
		if rerank != "" {
			c["rerankScore"] = rerank
		}
		if section != nil {
			c["metadata"] = map[string]any{"sectionTitle": section}
		}
		return c
	}
	ctxText := func(text string, tokens int) map[string]any {
		return map[string]any{"text": text, "tokenCount": tokens}
	}
	// Each input is written unlike the examples of the issue: the
	// cross-encoder logits, zero scores and text-less contexts come from
	// other domains and other languages.
	inputs := []struct {
		name string
		in   map[string]any
	}{
		{"cross-encoder logits, all negative", map[string]any{
			"query": "Which bearing grease suits cold climates?",
			"chunks": []any{
				chunk("Lithium complex grease stays soft at -40 C (ISO 6743-9).", 0.71, -1.25, "tribo-3", "Low temperature"),
				chunk("Calcium sulfonate resists water washout.", 0.66, -3.9, "tribo-8", nil),
				chunk("Synthetic PAO base oils flow below -50 C.", 0.52, -6.125, "tribo-3", "Base oils"),
			},
			"context": ctxText("Lithium complex grease stays soft at -40 C. Synthetic PAO base oils flow.", 38),
		}},
		{"negative logit first, positive after", map[string]any{
			"query": "การบำรุงรักษาแบตเตอรี่ลิเธียมในรถไฟฟ้า",
			"chunks": []any{
				chunk("ควรชาร์จไว้ที่ 20-80% เพื่อยืดอายุแบตเตอรี่ (Tesla Model 3, 2023)", 0.58, -0.4, "ev-th-1", "การชาร์จ"),
				chunk("อุณหภูมิสูงเร่งการเสื่อมของเซลล์", 0.44, 2.2, "ev-th-2", "ความร้อน"),
			},
			"context": ctxText("ควรชาร์จไว้ที่ 20-80% เพื่อยืดอายุแบตเตอรี่", 31),
		}},
		{"zero rerank scores throughout", map[string]any{
			"query": "Kubernetes pod eviction thresholds",
			"chunks": []any{
				chunk("The kubelet evicts pods when memory.available drops below 100Mi.", 0.83, 0, "k8s-docs", "Eviction"),
				chunk("Node pressure eviction is configured in KubeletConfiguration.", 0.79, 0, "k8s-docs", "Config"),
			},
			"context": ctxText("The kubelet evicts pods when memory.available drops below 100Mi.", 17),
		}},
		{"zero retrieval score and zero rerank score on top", map[string]any{
			"query": "lunar eclipse visibility from Chile on March 14, 2025",
			"chunks": []any{
				chunk("Totality was visible across South America on 2025-03-14.", 0, 0, "astro-1", nil),
				chunk("Santiago saw the partial phases after midnight.", 0.35, nil, "astro-2", nil),
			},
			"context": ctxText("Totality was visible across South America.", 9),
		}},
		{"context without its text field", map[string]any{
			"query": "Why did the bridge cables corrode?",
			"chunks": []any{
				chunk("Chloride ingress through cracked sheathing corroded the Hammersmith cables.", 0.62, 0.7, "eng-2", "Findings"),
				chunk("Dehumidification was installed in 2019.", 0.48, 0.31, "eng-5", "Remedies"),
			},
			"context": map[string]any{"tokenCount": 120},
		}},
		{"context text null, no token count", map[string]any{
			"query": "อัตราดอกเบี้ยนโยบายของธนาคารแห่งประเทศไทย",
			"chunks": []any{
				chunk("กนง. คงอัตราดอกเบี้ยที่ 2.50% ในการประชุมเดือนธันวาคม", 0.74, nil, "bot-1", nil),
			},
			"context": map[string]any{"text": nil},
		}},
		{"negative retrieval scores, null rerank", map[string]any{
			"query": "sourdough hydration ratio",
			"chunks": []any{
				chunk("A 75% hydration dough uses 750 g water per 1000 g flour.", -0.12, nil, "bake-1", nil),
				chunk("King Arthur Baking suggests 70 to 80 percent.", -0.3, nil, "bake-2", nil),
			},
			"context": ctxText("A 75% hydration dough uses 750 g water per 1000 g flour.", 22),
		}},
		{"scores above one, sections of mixed types", map[string]any{
			"query": "carbon fibre layup schedule for a bicycle frame",
			"chunks": []any{
				chunk("Toray T700 plies at 0/45/90 degrees.", 1.8, 2.4, "frame-1", 7),
				chunk("Autoclave cure at 120 C for 90 minutes.", 1.1, nil, "frame-1", "7"),
				chunk("Bottom bracket shells get extra unidirectional plies.", 0.9, 1.6, "frame-2", true),
			},
			"context": ctxText("Toray T700 plies at 0/45/90 degrees. Autoclave cure at 120 C.", 600),
		}},
		{"query of stop words only", map[string]any{
			"query":   "what is it and how does it do that",
			"chunks":  []any{chunk("Nothing here.", 0.2, nil, "x", nil)},
			"context": ctxText("Nothing here.", 3),
		}},
	}
	var stdin bytes.Buffer
	all := make([]map[string]any, len(inputs))
	for i, in := range inputs {
		all[i] = in.in
	}
	require.NoError(t, json.NewEncoder(&stdin).Encode(all))

	script := filepath.Join(t.TempDir(), "seed002.cjs")
	require.NoError(t, os.WriteFile(script, []byte(program), 0o600))
	cmd := exec.CommandContext(t.Context(), node, script)
	cmd.Stdin = &stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.String())
	var want []nodeScore
	require.NoError(t, json.Unmarshal(out, &want))
	require.Len(t, want, len(inputs))

	for i, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			data, err := json.Marshal(in.in)
			require.NoError(t, err)
			s, err := eval.DecodeContextSample(in.name+".json", data)
			require.NoError(t, err)
			got := AssessContext(s)
			w := want[i]
			for _, f := range []struct {
				name string
				node *float64
				go_  float64
			}{
				{"overall", w.Overall, got.Overall},
				{"retrievalConfidence", w.RetrievalConfidence, got.RetrievalConfidence},
				{"contextSufficiency", w.ContextSufficiency, got.ContextSufficiency},
				{"diversityScore", w.DiversityScore, got.DiversityScore},
				{"estimatedFaithfulness", w.EstimatedFaithfulness, got.EstimatedFaithfulness},
			} {
				require.NotNil(t, f.node, "%s: node gave no finite number", f.name)
				assert.Equal(t, fmt.Sprint(*f.node), fmt.Sprint(f.go_), "%s", f.name)
				assert.Equal(t, *f.node, f.go_, "%s differs in the last bits", f.name)
			}
			assert.Equal(t, w.Warning, got.Warning)
		})
	}
}
