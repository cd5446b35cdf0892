#!/usr/bin/env bash
# A locksim seed sweep spread with GNU parallel over the cores of one large machine, merged
# into one verdict (the exit status is the merge's: 1 on a violation).
#
#   SCENARIO=zk-lock SEEDS=0..100000 deploy/parallel.sh
#
# One shard per core (SHARDS, default: the cores), each one simulation thread. On one
# machine `locksim explore --jobs N` does the same in one process; shards also spread over
# hosts (parallel --sshloginfile, with --return for the reports) and can be rerun one by one.
set -euo pipefail
export SCENARIO=${SCENARIO:-zk-lock}
export SEEDS=${SEEDS:-0..100000}
export SHARDS=${SHARDS:-$(nproc)}
export RESULTS=${RESULTS:-locksim-shards}
mkdir -p "$RESULTS"
# Exit status 1 (a violation) is a verdict for the merge to give; 2 (bad input) or 3
# (harness error) stops the sweep, and the script exits with it.
parallel --halt now,fail=1 \
  'locksim explore "$SCENARIO" --seeds "$SEEDS" --shard {}/"$SHARDS" --jobs 1 --json > "$RESULTS/shard-{}.json"; s=$?; [ $s -le 1 ] || exit $s' \
  ::: $(seq 1 "$SHARDS")
locksim merge "$RESULTS"/shard-*.json
