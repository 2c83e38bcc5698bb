package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/run"
)

// TestReplyResults: a worker's reply is its unit's results on the
// sample; anything else is the unit's neutral defaults saying why.
func TestReplyResults(t *testing.T) {
	t.Parallel()
	u := Unit{Metrics: []string{"a", "b"}}
	def := func(why string, undelivered int) []run.Result {
		out := make([]run.Result, 2)
		for i, m := range u.Metrics {
			out[i] = run.Result{ID: "x", Metric: m, Value: 0.5, Method: "queue", Defaulted: true, Undelivered: undelivered,
				Reason: "not judged: the queue gave up on its task", Error: "undelivered: " + why}
		}
		return out
	}
	for name, tc := range map[string]struct {
		reply queue.Reply
		want  []run.Result
	}{
		"the unit's results": {
			reply: queue.Reply{Results: []byte(`[{"id":"x","metric":"a","value":0.75},{"id":"x","metric":"b","value":0.25}]`)},
			want:  []run.Result{{ID: "x", Metric: "a", Value: 0.75}, {ID: "x", Metric: "b", Value: 0.25}},
		},
		"deliveries ran out": {
			reply: queue.Reply{Undelivered: 5, Err: "model server down"},
			want:  def("model server down", 5),
		},
		"another sample's results": {
			reply: queue.Reply{Results: []byte(`[{"id":"y","metric":"a"},{"id":"y","metric":"b"}]`)},
			want:  def("a worker's reply is not the results of a, b on sample x", 1),
		},
		"not results": {
			reply: queue.Reply{Results: []byte(`{`)},
			want:  def("a worker's reply did not read: unexpected end of JSON input", 1),
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, replyResults(tc.reply, "x", u))
		})
	}
}
