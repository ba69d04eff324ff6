#!/usr/bin/env bash
# One fuzzing run of a target: `fuzz/run.sh TARGET SECONDS`. New inputs go
# to fuzz/work/TARGET (not checked in); the checked-in corpus seeds it;
# crashes, timeouts and out-of-memory inputs go to fuzz/artifacts/TARGET and
# the run goes on past them.
set -euo pipefail
cd "$(dirname "$0")"
target=$1
seconds=${2:-1800}
mkdir -p "work/$target"
exec nice -n 15 cargo +nightly fuzz run -O "$target" "work/$target" corpus -- \
    -max_total_time="$seconds" -timeout=10 -max_len=4096 -rss_limit_mb=2048 \
    -dict=gdl.dict -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1
