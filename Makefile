.PHONY: help build test demo lint fuzz bench bench-fanout agree

help: ## list the targets
	@grep -E '^[a-z]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## build bin/assay
	CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay

test: ## run every test with the race detector
	go test -race ./...

demo: build ## research a question on the embedded corpus (the README's first command): no account, no network
	./bin/assay research --now 2026-11-23 "How do heat pumps perform in cold climates?"

lint: ## gofmt, vet and staticcheck
	test -z "$$(gofmt -l .)"
	go vet ./...
	go tool staticcheck ./...

fuzz: ## run each fuzz target for 30 s (FUZZTIME=10s for less)
	bash scripts/fuzz.sh

bench: ## run the benchmarks
	go test -run xxx -bench . -benchmem ./...

bench-fanout: ## time the whole assay process judging 800 calls against a 50 ms fake server, beside a bare net/http client (the floor)
	bash scripts/bench-fanout.sh

DATA ?= ../shared/data
agree: build ## offline judges vs human labels on the dev sets in $(DATA) (not in the repo)
	./bin/assay agree --metric faithfulness --label faithful --baseline $(DATA)/begin.dev.jsonl
	./bin/assay agree --metric faithfulness --label faithful --baseline $(DATA)/faithbench.dev.jsonl
	./bin/assay agree --metric source_relevance --label relevant --baseline $(DATA)/msmarco.dev.jsonl
