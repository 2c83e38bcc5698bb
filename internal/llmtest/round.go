package llmtest

import (
	"context"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// RoundBackend is an in-process llm.Backend that answers each call only
// once every call of its round is in flight (Round, a WaitGroup added the
// round's size), each with Content and Usage: calls that are sent
// together, for what the client does with several in flight (a budget
// that holds each call's estimate, not its cost). Its model is Model.
type RoundBackend struct {
	Model   string
	Round   *sync.WaitGroup
	Content string
	Usage   eval.Usage
}

func (b RoundBackend) Name() string { return b.Model }

func (b RoundBackend) Chat(context.Context, llm.Request) (llm.Response, error) {
	b.Round.Done()
	b.Round.Wait()
	return llm.Response{Content: b.Content, Usage: b.Usage}, nil
}

func (RoundBackend) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, llm.ErrNoEmbeddings
}
