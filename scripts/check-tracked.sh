#!/usr/bin/env bash
# Fails when the repository tracks a build output: a file over 1 MB, a
# log, an executable binary (ELF, Mach-O or PE), or a run folder that
# assay bench wrote (its results.jsonl or .lock outside a testdata
# folder). Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((1024 * 1024))
bad=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	size=$(stat -c %s "$f")
	if [ "$size" -gt "$limit" ]; then
		echo "tracked file over 1 MB: $f ($size bytes)"; bad=1
	fi
	case "$f" in
	*.log) echo "tracked log: $f"; bad=1 ;;
	*/testdata/*) ;;
	.lock | */.lock | results.jsonl | */results.jsonl) echo "tracked run folder (assay bench's output): $f"; bad=1 ;;
	esac
	magic=$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')
	case "$magic" in
	7f454c46 | cffaedfe | cefaedfe | 4d5a*) echo "tracked binary: $f"; bad=1 ;;
	esac
done < <(git ls-files -z)
if [ "$bad" = 1 ]; then
	echo "build outputs, run folders, binaries and logs are not kept in the repository: git rm --cached them and list them in .gitignore"
	exit 1
fi
echo "tracked files: none over 1 MB, no logs, no run folders, no binaries"
