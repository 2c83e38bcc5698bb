#!/usr/bin/env bash
# graded-rows.sh N [LABELLED]: writes N synthetic records to standard output
# for timing assay agree: a human grade 1-5 (human.relevance) on the first
# LABELLED of them (default: all), a judge value in [0, 1]
# (meta.judge_score) and a judge grade (meta.judge_grade) on every one, and
# a group (meta.model). The judge's grade is the human's, off by one a third
# of the time; its value is the grade over 5 with noise. Seeded: the same N
# gives the same file.
set -euo pipefail
n=${1:?usage: graded-rows.sh N [LABELLED]}
labelled=${2:-$n}
awk -v n="$n" -v labelled="$labelled" 'BEGIN {
  srand(29)
  for (i = 1; i <= n; i++) {
    g = 1 + int(rand() * 5)
    j = g
    u = rand()
    if (u < 1 / 6 && j > 1) j--
    else if (u > 5 / 6 && j < 5) j++
    v = j / 5 - 0.1 + (rand() - 0.5) * 0.2
    v = v < 0 ? 0 : (v > 1 ? 1 : v)
    human = i <= labelled ? sprintf("\"human\": {\"relevance\": %d}, ", g) : ""
    printf "{\"id\": \"r%d\", \"question\": \"Question %d?\", \"answer\": \"Answer %d.\", %s\"metadata\": {\"model\": \"model-%c\", \"judge_grade\": %d, \"judge_score\": %.4f}}\n", i, i, i, human, 97 + i % 3, j, v
  }
}'
