#!/usr/bin/env bash
# Fails when cmd/assay's Go code (tests left out) reaches 1,500 lines: the
# CLI turns flags into a Job and an Outcome into text, and what grows past
# that belongs in a library package. Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=1500
lines=$(find cmd/assay -name '*.go' ! -name '*_test.go' -exec cat {} + | wc -l)
if [ "$lines" -ge "$limit" ]; then
	echo "cmd/assay has $lines lines of Go outside tests (the ceiling is under $limit): move the logic into a library package"
	exit 1
fi
echo "cmd/assay: $lines lines of Go outside tests (under $limit)"
