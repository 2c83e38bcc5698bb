.PHONY: help build test demo lint fuzz bench bench-fanout agree

help: ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## build bin/assay
	CGO_ENABLED=0 go build -buildvcs=auto -trimpath -o bin/assay ./cmd/assay

test: ## run every test with the race detector
	go test -race ./...

demo: build ## research a question on the embedded corpus (the README's first command): no account, no network
	./bin/assay research --now 2026-11-23 "How do heat pumps perform in cold climates?"

lint: ## gofmt, vet and golangci-lint (its linters in .golangci.yml, pinned in tools/go.mod)
	test -z "$$(gofmt -l .)"
	go vet ./...
	go tool -modfile=tools/go.mod golangci-lint run ./...

fuzz: ## run each fuzz target for 30 s (FUZZTIME=10s for less)
	bash scripts/fuzz.sh

bench: ## run the benchmarks
	go test -run xxx -bench . -benchmem ./...

bench-fanout: ## time the whole assay process judging 800 calls against a 50 ms fake server, beside a bare net/http client (the floor)
	bash scripts/bench-fanout.sh

# The human-labelled dev sets (begin, faithbench, msmarco) are not in the
# repository: set DATA to the folder that holds them.
DATA ?= ../shared/data
agree: build ## offline judges vs human labels on the dev sets in $(DATA): make agree DATA=path/to/dir (the sets are not in the repo)
	@test -d "$(DATA)" || { echo "make agree: no folder $(DATA): the human-labelled dev sets are not in the repository; run make agree DATA=path/to/dir (begin.dev.jsonl, faithbench.dev.jsonl, msmarco.dev.jsonl), or try bin/assay agree on fixtures/rag/labelled.jsonl" >&2; exit 2; }
	./bin/assay agree --metric faithfulness --label faithful --baseline $(DATA)/begin.dev.jsonl
	./bin/assay agree --metric faithfulness --label faithful --baseline $(DATA)/faithbench.dev.jsonl
	./bin/assay agree --metric source_relevance --label relevant --baseline $(DATA)/msmarco.dev.jsonl
