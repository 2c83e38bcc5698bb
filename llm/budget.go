package llm

import (
	"fmt"
	"sync"
)

// Budget is a cost budget in US dollars that clients spend from: a
// client's own (Config.MaxCostUSD), or one that several clients share
// (Config.Budget), as a judging model and the fact checker its judges
// verify claims with, so that --max-cost bounds what a run spends on
// both. A call holds its estimate while in flight and is settled at its
// real cost; a call whose estimate would pass the limit with what is in
// flight waits for those to settle, and is refused (ErrBudget) only when
// it would pass it with nothing in flight. Its methods are safe for
// concurrent use.
type Budget struct {
	max float64

	mu       sync.Mutex
	spent    float64
	carried  float64 // of spent, what Spend counted: paid before the budget was made
	inflight float64
	stopped  int           // calls refused
	settled  chan struct{} // closed and replaced when a call settles
}

// NewBudget returns a budget of max US dollars; 0 is no limit.
func NewBudget(max float64) *Budget {
	return &Budget{max: max, settled: make(chan struct{})}
}

// Max is the limit in US dollars; 0 means none.
func (b *Budget) Max() float64 { return b.max }

// Stops is how many calls the budget refused, of every client that
// spends from it.
func (b *Budget) Stops() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stopped
}

// Spent is the US dollars the calls settled so far cost, of every client
// that spends from the budget. Calls in flight together, each within the
// limit by its estimate, can take it past the limit when their replies
// are longer than estimated: a caller that must keep to the limit checks
// Spent against Max once the calls ended.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Spend counts usd as spent already: what was paid before the budget was
// made, by an earlier attempt of a run that resumes, so that a limit
// bounds the run in all and not each attempt. It refuses nothing itself;
// the calls after it find less of the limit left.
func (b *Budget) Spend(usd float64) {
	if usd <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spent += usd
	b.carried += usd
}

// Carried is the part of Spent that Spend counted: paid before the
// budget was made, by no call of its clients.
func (b *Budget) Carried() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.carried
}

// reserve holds est, the estimated cost of a call to model (priced: its
// price is known), or returns a channel to wait on when the calls in
// flight hold so much that est would pass the limit: it is closed when
// one of them settles. It refuses only when est would pass the limit even
// with nothing in flight, or when model has no price.
func (b *Budget) reserve(model string, priced bool, est float64) (settled <-chan struct{}, err error) {
	if b.max <= 0 {
		return nil, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !priced:
		b.stopped++
		return nil, fmt.Errorf("%w: model %s is not in the price table, so no spending can be counted against the limit $%g; give its price (Config.Prices)",
			ErrBudget, modelOf(model), b.max)
	case b.spent+est > b.max:
		b.stopped++
		return nil, fmt.Errorf("%w: spent $%.4f, next call about $%.4f, limit $%.4f", ErrBudget, b.spent, est, b.max)
	case b.spent+b.inflight+est > b.max:
		return b.settled, nil
	}
	b.inflight += est
	return nil, nil
}

// settle ends a call's reservation est at its real cost, and wakes the
// calls waiting for the budget.
func (b *Budget) settle(est, cost float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight -= est
	b.spent += cost
	close(b.settled)
	b.settled = make(chan struct{})
}
