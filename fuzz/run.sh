#!/usr/bin/env bash
# One fuzzing run of a target: `fuzz/run.sh TARGET SECONDS`. New inputs go
# to fuzz/work/TARGET (not checked in); the checked-in corpus seeds it
# (corpus-TARGET/ where the target has its own, as command_line does, else
# corpus/); crashes, timeouts and out-of-memory inputs go to
# fuzz/artifacts/TARGET and the run goes on past them. Standard input is
# /dev/null, so that nothing waits for a keyboard.
set -euo pipefail
cd "$(dirname "$0")"
target=$1
seconds=${2:-1800}
seeds=corpus
[ -d "corpus-$target" ] && seeds="corpus-$target"
mkdir -p "work/$target"
exec nice -n 15 cargo +nightly fuzz run -O "$target" "work/$target" "$seeds" -- \
    -max_total_time="$seconds" -timeout=10 -max_len=8192 -rss_limit_mb=2048 \
    -dict=gdl.dict -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -close_fd_mask=1 < /dev/null
