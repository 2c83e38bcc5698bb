package serve

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
func (s *store) putLabel(ctx context.Context, queue, metric string, l Label) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
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
			queue, metric, l.Item, l.Scale, l.Value, l.Note, l.Who, l.At.UTC().Format(storeTime))
		return err
	})
	if _, ok := errors.AsType[*scaleConflictError](err); ok || err == nil {
		return err
	}
	return fmt.Errorf("labels %s: %w", s.path, err)
}

// labels are the labels of a queue for metric, by item.
func (s *store) labels(ctx context.Context, queue, metric string) (map[string]Label, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT item, scale, value, note, who, at FROM labels WHERE queue = ? AND metric = ?`, queue, metric)
	if err != nil {
		return nil, fmt.Errorf("labels %s: %w", s.path, err)
	}
	defer func() { _ = rows.Close() }() // read only
	out := map[string]Label{}
	for rows.Next() {
		var l Label
		var at string
		if err := rows.Scan(&l.Item, &l.Scale, &l.Value, &l.Note, &l.Who, &at); err != nil {
			return nil, err
		}
		l.At, _ = time.Parse(storeTime, at) // written by putLabel
		out[l.Item] = l
	}
	return out, rows.Err()
}
