package openai_test

import (
	"context"
	"fmt"

	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

func Example() {
	// A fake server stands in for vLLM, Ollama or OpenAI.
	srv := llmtest.Start(llmtest.Default(llmtest.Reply{Content: `{"score": 4, "reason": "supported"}`}))
	defer srv.Close()

	b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "qwen3-8b"})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := llm.New(llm.Config{Backend: b})
	var v verdict
	u, err := llm.ChatJSON(context.Background(), c, llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "Is the answer supported?"}},
		Schema:   llm.SchemaFor[verdict]("verdict"),
	}, &v)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Name(), v.Score, v.Reason, u.Calls)
	// Output: openai:qwen3-8b 4 supported 1
}
