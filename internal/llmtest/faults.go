package llmtest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sashabaranov/go-openai"
)

// faults backs Faults, which hands out copies.
var faults = map[string]Reply{
	"offschema": {Content: `{"hello": "world"}`},
	"empty":     {Content: `{}`},
	"401":       {Status: 401, Body: `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`},
	"403":       {Status: 403, Body: `{"error":{"message":"This key may not use the model.","type":"permission_error"}}`},
	"429":       {Status: 429, RetryAfter: "1"},
	"500":       {Status: 500},
	"hang":      {Delay: time.Hour},
	"reset":     {Reset: true},
	"truncated": {Body: `{"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"sc`},
	// 10 MB of valid JSON in every reply.
	"huge": {Bulk: 10 << 20},
	// A 200 reply of another API's shape: no choices.
	"notchat": {Body: `{"result": "ok", "output": {"text": "4"}}`},
}

// Faults returns the ways a model server misbehaves, each as the reply to every
// chat call, by name: the fault table of the CLI's tests and fakellm's
// -fault flag use the same list.
func Faults() map[string]Reply { return maps.Clone(faults) }

// FaultNames lists faults' names in order.
func FaultNames() []string { return slices.Sorted(maps.Keys(faults)) }

// Mix answers each chat call with one of faults, each with its share of
// the calls as spec gives them ("500=0.05,hang=0.01,reset=0.01"), and the
// rest with next; the draws come from a source seeded with seed, so a mix
// is the same from run to run for the same order of calls. It counts what
// it served (Counts). It is safe for concurrent use.
func Mix(spec string, seed uint64, next func(openai.ChatCompletionRequest) Reply) (*Mixer, error) {
	m := &Mixer{next: next, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), counts: map[string]int{}}
	total := 0.0
	for part := range strings.SplitSeq(spec, ",") {
		name, share, ok := strings.Cut(strings.TrimSpace(part), "=")
		f, known := faults[name]
		p, err := strconv.ParseFloat(share, 64)
		switch {
		case !ok || err != nil || !(p >= 0 && p <= 1):
			return nil, fmt.Errorf("mix %q: want NAME=SHARE pairs such as 500=0.05, with a share from 0 to 1", part)
		case !known:
			return nil, fmt.Errorf("mix %q: no fault %q: want one of %s", part, name, strings.Join(FaultNames(), ", "))
		}
		total += p
		m.faults = append(m.faults, mixed{name, f, total})
	}
	if total > 1 {
		return nil, fmt.Errorf("mix %q: the shares add up to %g, over 1", spec, total)
	}
	return m, nil
}

// Mixer answers chat calls with a mix of faults (Mix).
type Mixer struct {
	next   func(openai.ChatCompletionRequest) Reply
	faults []mixed

	mu     sync.Mutex
	rng    *rand.Rand
	counts map[string]int
}

// mixed is one fault of a mix and the share of calls up to it.
type mixed struct {
	name  string
	reply Reply
	upTo  float64
}

// Reply answers req: a fault drawn by its share, else next's reply.
func (m *Mixer) Reply(req openai.ChatCompletionRequest) Reply {
	m.mu.Lock()
	x := m.rng.Float64()
	name := "ok"
	var reply *Reply
	for i := range m.faults {
		if x < m.faults[i].upTo {
			name, reply = m.faults[i].name, &m.faults[i].reply
			break
		}
	}
	m.counts[name]++
	m.mu.Unlock()
	if reply != nil {
		return *reply
	}
	return m.next(req)
}

// Counts is how many calls got each fault, and "ok" the rest.
func (m *Mixer) Counts() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.counts)
}
