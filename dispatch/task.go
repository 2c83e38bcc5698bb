package dispatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/run"
)

// taskBody is a task's message: the unit of the run's plan to judge the
// sample with, the unit's metrics and the judges' version, which the
// worker checks against its own plan.
type taskBody struct {
	Unit    int         `json:"unit"`
	Metrics []string    `json:"metrics"`
	Version string      `json:"version"`
	Sample  eval.Sample `json:"sample"`
	// Tag, when set, is the publisher's (a service's) data about the
	// task, returned with its results (TaggedResults).
	Tag json.RawMessage `json:"tag,omitempty"`
}

// TaskID is the id of the task judging sample with metrics in run, by
// judges of version, tries being how often results.jsonl has judged the
// pair already (run.Run.Tries): the message id that drops a second
// publish of it, and its reply's key.
func TaskID(folder, sample string, metrics []string, version string, tries int) string {
	h := sha256.New()
	for _, s := range []string{folder, sample, strings.Join(metrics, ","), version, strconv.Itoa(tries)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// JudgeVersion is the version of what judges a run: its model, prompt
// versions and the settings that change a judgement (not --strict or
// --max-default-rate, which judge the run).
func JudgeVersion(cfg run.Config) string {
	h := sha256.New()
	fmt.Fprintf(h, "model=%s\n", cfg.Model)
	for _, k := range slices.Sorted(maps.Keys(cfg.Prompts)) {
		fmt.Fprintf(h, "prompt %s=%s\n", k, cfg.Prompts[k])
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Settings)) {
		if k == "--strict" || k == "--max-default-rate" {
			continue
		}
		fmt.Fprintf(h, "%s=%s\n", k, cfg.Settings[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// A service (assay serve --queue) puts the samples it judges on the same
// queue as the runs, for the same workers: each is a task of an item run,
// a run that has a specification in the bucket (what judges it, so that a
// worker that judges otherwise refuses it) but no folder and no
// coordinator. The service names each task's reply key, and tags each
// task with its own data, which the worker returns with the results.

// ItemRunPrefix begins the id of every item run.
const ItemRunPrefix = "items-"

// IsItemRun reports whether run is an item run's id.
func IsItemRun(folder string) bool { return strings.HasPrefix(folder, ItemRunPrefix) }

// ItemRunID is the id of the item run judging metrics by judges of cfg
// (its model, prompts and settings): a hash of the judges and the
// metrics, so every service judging alike names the same run.
func ItemRunID(cfg run.Config, metrics []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", JudgeVersion(cfg), strings.Join(metrics, ","))
	return ItemRunPrefix + hex.EncodeToString(h.Sum(nil)[:8])
}

// Tagged is one sample to judge with one metric of an item run.
type Tagged struct {
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

// PublishTagged puts each task on conn's stream as a task of the item run
// (whose specification is in the bucket: PutItemRun), keyed by its
// sample's conversation when it has one, and returns once the server has
// stored them all; dup[i] says it had tasks[i] already.
func PublishTagged(ctx context.Context, conn *queue.Conn, items run.Config, tasks []Tagged) (dup []bool, err error) {
	version := JudgeVersion(items)
	ts := make([]queue.Outgoing, len(tasks))
	for i, it := range tasks {
		unit := slices.Index(items.Metrics, it.Metric)
		if unit < 0 {
			return nil, fmt.Errorf("item %s: run %s has no metric %s", it.ID, items.RunID, it.Metric)
		}
		b, err := json.Marshal(taskBody{Unit: unit, Metrics: []string{it.Metric}, Version: version, Sample: it.Sample, Tag: it.Tag})
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", it.ID, err)
		}
		ts[i] = queue.Outgoing{Run: items.RunID, ID: it.ID, Key: it.Key, Conversation: Conversation(it.Sample), Body: b}
	}
	return conn.PublishTasks(ctx, ts)
}

// PutItemRun stores an item run's specification in the bucket, where
// workers read it before they judge its tasks.
func PutItemRun(ctx context.Context, conn *queue.Conn, items run.Config) error {
	spec, err := json.Marshal(items)
	if err != nil {
		return err
	}
	return conn.PutSpec(ctx, items.RunID, spec)
}

// WaitingTagged is a tagged task published and not judged yet (waiting,
// or being judged): its reply key and its tag.
type WaitingTagged struct {
	Key string
	Tag json.RawMessage
}

// Waiting are the tagged tasks on conn's stream whose reply keys match
// filter (a subject filter over keys), not judged yet. Read them before
// the replies, and a task judged meanwhile is in one or the other.
func Waiting(ctx context.Context, conn *queue.Conn, filter string) ([]WaitingTagged, error) {
	ws, err := conn.WaitingItems(ctx, filter)
	if err != nil {
		return nil, err
	}
	out := make([]WaitingTagged, 0, len(ws))
	for _, w := range ws {
		if !IsItemRun(w.Run) {
			continue
		}
		var b taskBody
		if err := json.Unmarshal(w.Body, &b); err != nil {
			return nil, fmt.Errorf("item %s: its task does not read: %w", w.ID, err)
		}
		out = append(out, WaitingTagged{Key: w.Key, Tag: b.Tag})
	}
	return out, nil
}

// Conversation is the id of the conversation sample s is, or is a part
// of, that keys its tasks on a queue (queue.Outgoing.Conversation), so
// that one worker takes them all and its model server's prefix cache
// serves each after the first: its metadata's conversation_id (the
// sessions threaded by gen_ai.conversation.id, a dataset's own), else the
// sample's id when it has messages; "" for a sample of no conversation.
func Conversation(s eval.Sample) string {
	if id, ok := s.Metadata["conversation_id"].(string); ok && id != "" {
		return id
	}
	if len(s.Messages) > 0 || len(s.ExpectedToolCalls) > 0 {
		return s.ID
	}
	return ""
}
