package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/run"
)

// A service (assay serve --queue) puts the samples it judges on the same
// queue as the runs, for the same workers (Work): each is a task of an
// item run, a run that has a specification in the bucket (what judges it,
// so that a worker that judges otherwise refuses it) but no folder and no
// coordinator. The service names each task's reply key, and tags each
// task with its own data, which the worker returns with the results.

// ItemRunPrefix begins the id of every item run.
const ItemRunPrefix = "items-"

// IsItemRun reports whether run is an item run's id.
func IsItemRun(folder string) bool { return strings.HasPrefix(folder, ItemRunPrefix) }

// ItemRun is the configuration of the item run that judges samples with
// metrics (each a unit of its own) by the judger's judges: the
// specification a worker checks its own judges against. Its id is a
// hash of the judges and the metrics, so every service judging alike
// names the same run.
func (j *Judger) ItemRun(metrics []string) (run.Config, error) {
	job := Job{Metrics: metrics, Registry: j.reg, Judging: j.s.Config()}
	_, cfg, err := judgesConfig(job, j.s)
	if err != nil {
		return run.Config{}, err
	}
	cfg.Metrics = slices.Clone(metrics)
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", JudgeVersion(cfg), strings.Join(metrics, ","))
	cfg.RunID = ItemRunPrefix + hex.EncodeToString(h.Sum(nil)[:8])
	return cfg, nil
}

// Item is one sample to judge with one metric of an item run.
type Item struct {
	// ID is the task's id: the message id that drops a second publish of
	// it.
	ID string
	// Key is the key of its reply in the bucket (queue.Bucket).
	Key    string
	Metric string
	Sample eval.Sample
	// Tag is returned with the results (TaggedResults).
	Tag json.RawMessage
}

// TaggedResults is a worker's reply to a tagged task: the tag it came
// with and the results of its unit.
type TaggedResults struct {
	Tag     json.RawMessage `json:"tag"`
	Results []run.Result    `json:"results"`
}

// PublishItems puts each item on conn's stream as a task of run (an
// ItemRun whose specification is in the bucket: PutItemRun), and returns
// once the server has stored them all; dup[i] says it had items[i]
// already.
func PublishItems(ctx context.Context, conn *queue.Conn, folder run.Config, items []Item) (dup []bool, err error) {
	version := JudgeVersion(folder)
	ts := make([]queue.Outgoing, len(items))
	for i, it := range items {
		unit := slices.Index(folder.Metrics, it.Metric)
		if unit < 0 {
			return nil, fmt.Errorf("item %s: run %s has no metric %s", it.ID, folder.RunID, it.Metric)
		}
		b, err := json.Marshal(taskBody{Unit: unit, Metrics: []string{it.Metric}, Version: version, Sample: it.Sample, Tag: it.Tag})
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", it.ID, err)
		}
		ts[i] = queue.Outgoing{Run: folder.RunID, ID: it.ID, Key: it.Key, Body: b}
	}
	return conn.PublishTasks(ctx, ts)
}

// PutItemRun stores run's specification in the bucket, where workers read
// it before they judge its tasks.
func PutItemRun(ctx context.Context, conn *queue.Conn, folder run.Config) error {
	spec, err := json.Marshal(folder)
	if err != nil {
		return err
	}
	return conn.PutSpec(ctx, folder.RunID, spec)
}

// WaitingItem is an item published and not judged yet (waiting, or being
// judged): its reply key and its tag.
type WaitingItem struct {
	Key string
	Tag json.RawMessage
}

// WaitingItems are the items on conn's stream whose reply keys match
// filter (a subject filter over keys), not judged yet. Read them before
// the replies, and an item judged meanwhile is in one or the other.
func WaitingItems(ctx context.Context, conn *queue.Conn, filter string) ([]WaitingItem, error) {
	ws, err := conn.WaitingItems(ctx, filter)
	if err != nil {
		return nil, err
	}
	out := make([]WaitingItem, 0, len(ws))
	for _, w := range ws {
		if !IsItemRun(w.Run) {
			continue
		}
		var b taskBody
		if err := json.Unmarshal(w.Body, &b); err != nil {
			return nil, fmt.Errorf("item %s: its task does not read: %w", w.ID, err)
		}
		out = append(out, WaitingItem{Key: w.Key, Tag: b.Tag})
	}
	return out, nil
}
