package annotate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Label is a person's label of an item of an annotation queue, as the
// store keeps it.
type Label struct {
	// Item is the sample's id in its queue: a record's id in a run, a
	// trace id.
	Item string `json:"item"`
	// Scale is binary or graded; Value 1 (pass) or 0 (fail), or the
	// grade, 1 to 5.
	Scale string  `json:"scale"`
	Value float64 `json:"value"`
	Note  string  `json:"note,omitempty"`
	// Who gave it (the labeler named, or how the request was signed in)
	// and when (the server's clock).
	Who string    `json:"who"`
	At  time.Time `json:"at"`
}

// LabelsSchema is the labels' table in the server's database (DB): one
// label per queue ("run:ID" or "traces"), metric and item.
const LabelsSchema = `CREATE TABLE IF NOT EXISTS labels (
	queue  TEXT NOT NULL,
	metric TEXT NOT NULL,
	item   TEXT NOT NULL,
	scale  TEXT NOT NULL,
	value  REAL NOT NULL,
	note   TEXT NOT NULL,
	who    TEXT NOT NULL,
	at     TEXT NOT NULL,
	PRIMARY KEY (queue, metric, item)
)`

// timeLayout is how the labels' times are stored, as the server's store
// stores every time: UTC, fixed width, so text order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// DB is the server's database as the labels use it (its table is
// LabelsSchema): reads, writes in a transaction of the server's one
// writer, and its file's path for messages.
type DB interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	InTx(ctx context.Context, fn func(*sql.Tx) error) error
	Path() string
}

// scaleConflictError is a label whose scale is not that of the queue's
// labels so far.
type scaleConflictError struct{ have string }

func (e *scaleConflictError) Error() string {
	return fmt.Sprintf("this queue's labels are %s: give every label on that scale", e.have)
}

// putLabel stores l as the label of its item in the queue (a run's, or
// the traces') for metric, in place of any before it. A queue's labels
// are of one scale: a label of another is a *scaleConflictError, unless
// the only label so far is the item's own (relabelled).
func (s *Queues) putLabel(ctx context.Context, queue, metric string, l Label) error {
	err := s.DB.InTx(ctx, func(tx *sql.Tx) error {
		var have string
		err := tx.QueryRowContext(ctx, `SELECT scale FROM labels WHERE queue = ? AND metric = ? AND item != ? AND scale != ? LIMIT 1`,
			queue, metric, l.Item, l.Scale).Scan(&have)
		switch {
		case err == nil:
			return &scaleConflictError{have: have}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO labels (queue, metric, item, scale, value, note, who, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(queue, metric, item) DO UPDATE SET scale = excluded.scale, value = excluded.value, note = excluded.note, who = excluded.who, at = excluded.at`,
			queue, metric, l.Item, l.Scale, l.Value, l.Note, l.Who, l.At.UTC().Format(timeLayout))
		return err
	})
	if _, ok := errors.AsType[*scaleConflictError](err); ok || err == nil {
		return err
	}
	return fmt.Errorf("labels %s: %w", s.DB.Path(), err)
}

// Labels are the labels of a queue ("run:ID" or "traces") for metric,
// by item.
func (s *Queues) Labels(ctx context.Context, queue, metric string) (map[string]Label, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT item, scale, value, note, who, at FROM labels WHERE queue = ? AND metric = ?`, queue, metric)
	if err != nil {
		return nil, fmt.Errorf("labels %s: %w", s.DB.Path(), err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := map[string]Label{}
	for rows.Next() {
		var l Label
		var at string
		if err := rows.Scan(&l.Item, &l.Scale, &l.Value, &l.Note, &l.Who, &at); err != nil {
			return nil, err
		}
		l.At, _ = time.Parse(timeLayout, at) // written by putLabel
		out[l.Item] = l
	}
	return out, rows.Err()
}
