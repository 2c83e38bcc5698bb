package queue

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Workers is the key-value bucket of the workers' leases: each worker
// that takes conversations' tasks keeps its key (w.ID) there, written
// again every third of the bucket's TTL (Options.Lease). The workers
// whose keys are there share the conversations' partitions, each
// partition going to one of them (rendezvous hashing of the worker's id
// and the partition), so all of one worker's view agrees with another's
// once both have read the bucket.
const Workers = "assay_workers"

// DefaultLease is the TTL of a new Workers bucket: how long a worker that
// stopped answering (killed, cut off) keeps its conversations before the
// others take them over.
const DefaultLease = 10 * time.Second

const memberPrefix = "w."

// openWorkers opens the Workers bucket, making it with lease as its TTL
// when it is not there: a bucket made earlier keeps its own.
func openWorkers(ctx context.Context, js jetstream.JetStream, lease time.Duration) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, Workers)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: Workers, History: 1, TTL: lease, Storage: jetstream.FileStorage})
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = js.KeyValue(ctx, Workers) // another client made it meanwhile
		}
	}
	return kv, err
}

// members is one worker's lease in Workers and its view of the others':
// which partitions of conversations are its own. The view is what a
// watch of the bucket says (the keys there when it starts, then each
// written or deleted), and a worker whose key is not written again
// within the bucket's TTL has left it (killed: its key expired). It is
// safe for concurrent use.
type members struct {
	c     *Conn
	id    string
	value []byte
	lease time.Duration
	log   io.Writer
	name  string // the worker's endpoint, for the log
	poke  chan struct{}
	// peers is how many workers started with this one (WorkerConfig.Peers),
	// start when: until it sees them all, or a lease has passed, it owns
	// no partition.
	peers int
	start time.Time

	mu      sync.Mutex
	joined  bool      // wants its lease kept
	leased  bool      // its key is written (as far as it knows)
	renewed time.Time // when it last wrote its key
	ready   bool      // the watch has said which keys were there
	stopped bool      // the worker stopped: nothing more to say
	others  map[string]time.Time
	owned   []int // the partitions it owns, ascending
	share   string
	changed chan struct{} // closed, and replaced, when owned changes
}

// newMembers is the lease of a worker of endpoint, not joined yet.
func (c *Conn) newMembers(ctx context.Context, endpoint string, log io.Writer) (*members, error) {
	st, err := c.workers.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("queue: bucket %s: %w", Workers, err)
	}
	lease := st.TTL()
	if lease <= 0 {
		lease = DefaultLease
	}
	value, err := json.Marshal(struct {
		Endpoint string    `json:"endpoint"`
		Since    time.Time `json:"since"`
	}{endpoint, time.Now().UTC()})
	if err != nil {
		return nil, err
	}
	return &members{c: c, id: rand.Text(), value: value, lease: lease, log: log, name: endpoint,
		poke: make(chan struct{}, 1), others: map[string]time.Time{}, changed: make(chan struct{})}, nil
}

func (m *members) key() string { return memberPrefix + m.id }

// every is how often the worker writes its key again.
func (m *members) every() time.Duration { return m.lease / 3 }

// setJoined says whether the worker takes conversations: a worker paused
// (its model server unreachable) gives its partitions up, and takes them
// back when it resumes.
func (m *members) setJoined(joined bool) {
	m.mu.Lock()
	m.joined = joined
	m.update()
	m.mu.Unlock()
	select {
	case m.poke <- struct{}{}:
	default:
	}
}

// Owned is the partitions the worker owns now, and a channel closed when
// that changes.
func (m *members) Owned() ([]int, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.owned, m.changed
}

// run keeps the lease and the view until ctx is done, then gives the
// lease up (the others take its partitions at once).
func (m *members) run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	wg.Go(func() { m.watch(wctx) })
	defer m.release()
	t := time.NewTicker(m.every())
	defer t.Stop()
	for {
		m.renew(ctx)
		m.prune()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-m.poke:
		}
	}
}

// release deletes the worker's key, so that the others need not wait
// for it to expire.
func (m *members) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = m.c.workers.Delete(ctx, m.key()) // gone, or it expires
	m.mu.Lock()
	defer m.mu.Unlock()
	m.leased, m.joined, m.stopped = false, false, true
	m.update()
}

// renew writes the worker's key when it is due, or deletes it when the
// worker left.
func (m *members) renew(ctx context.Context) {
	m.mu.Lock()
	joined, leased, due := m.joined, m.leased, time.Since(m.renewed) >= m.every()*9/10
	m.mu.Unlock()
	switch {
	case joined && (due || !leased):
		if _, err := m.c.workers.Put(ctx, m.key(), m.value); err == nil {
			m.mu.Lock()
			m.leased, m.renewed = true, time.Now()
			m.mu.Unlock()
		}
	case !joined && leased:
		if err := m.c.workers.Delete(ctx, m.key()); err == nil {
			m.mu.Lock()
			m.leased = false
			m.mu.Unlock()
		}
	}
}

// prune drops the workers whose keys were not written again within the
// lease (and a third more, for the time a write takes to be heard).
func (m *members) prune() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, seen := range m.others {
		if time.Since(seen) > m.lease+m.every() {
			delete(m.others, id)
		}
	}
	m.update()
}

// watch follows the workers' keys: those there when it starts, then each
// written or deleted, starting over when the connection is made again.
func (m *members) watch(ctx context.Context) {
	for ctx.Err() == nil {
		again := m.c.reconnect()
		w, err := m.c.workers.Watch(ctx, memberPrefix+"*")
		if err == nil {
			m.follow(ctx, w, again)
			_ = w.Stop()
		}
		select {
		case <-ctx.Done():
		case <-again:
		case <-time.After(m.every()):
		}
	}
}

// follow applies w's updates to the view until ctx is done, the
// connection is made again, or w ends.
func (m *members) follow(ctx context.Context, w jetstream.KeyWatcher, again <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-again:
			return
		case e, ok := <-w.Updates():
			if !ok {
				return
			}
			m.mu.Lock()
			if e == nil {
				m.ready = true // the keys there when it started, all said
			} else if id := strings.TrimPrefix(e.Key(), memberPrefix); id != m.id {
				if e.Operation() == jetstream.KeyValuePut {
					m.others[id] = time.Now()
				} else {
					delete(m.others, id)
				}
			}
			m.update()
			m.mu.Unlock()
		}
	}
}

// update recomputes the partitions the worker owns, and says so when
// they change: none until the watch said which workers were there, and
// none while the worker has left. m.mu is held.
func (m *members) update() {
	if !m.ready {
		return
	}
	var owned []int
	n := len(m.others)
	if m.joined && n+1 < m.peers && time.Since(m.start) < m.lease {
		return // its peers are still starting: prune looks again
	}
	if m.joined {
		n++
		ids := make([]string, 0, n)
		for id := range m.others {
			ids = append(ids, id)
		}
		for p := range Partitions {
			if owner(ids, m.id, p) {
				owned = append(owned, p)
			}
		}
	}
	if slices.Equal(owned, m.owned) {
		return
	}
	m.owned = owned
	close(m.changed)
	m.changed = make(chan struct{})
	share := fmt.Sprintf("worker: %s takes the tasks of %d of the %d conversation partitions (%d worker(s) share them)\n", m.name, len(owned), Partitions, n)
	if !m.joined {
		share = fmt.Sprintf("worker: %s takes no conversation's tasks; the other %d worker(s) share them\n", m.name, n)
	}
	if share != m.share && !m.stopped {
		m.share = share
		fmt.Fprint(m.log, share)
	}
}

// Partitions is how many partitions the tasks of conversations are keyed
// into (Outgoing.Conversation): each partition is taken by one worker at
// a time, so all the tasks of one conversation go to one worker.
const Partitions = 32

// Partition is the partition of conversation: a stable hash of its id,
// the same in every process.
func Partition(conversation string) int {
	h := sha256.Sum256([]byte(conversation))
	return int(binary.BigEndian.Uint32(h[:4]) % Partitions)
}

// owner reports whether the worker me owns partition p among itself and
// others: the one whose hash of (id, p) is highest, so that a worker that
// leaves moves only its own partitions, spread over those that stay.
func owner(others []string, me string, p int) bool {
	mine := weight(me, p)
	for _, id := range others {
		if w := weight(id, p); w > mine || (w == mine && id > me) {
			return false
		}
	}
	return true
}

func weight(id string, p int) uint64 {
	h := sha256.Sum256([]byte(id + "/" + strconv.Itoa(p)))
	return binary.BigEndian.Uint64(h[:8])
}
