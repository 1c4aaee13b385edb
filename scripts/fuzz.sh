#!/usr/bin/env bash
# Runs each cargo-fuzz target for a bounded time, one at a time, and prints libFuzzer's final
# executions and coverage for each. Needs the nightly toolchain and `cargo install cargo-fuzz`.
#
#   scripts/fuzz.sh                 every target, FUZZ_SECONDS (60) each
#   FUZZ_SECONDS=300 scripts/fuzz.sh json_parse canonical
#
# New inputs go to fuzz/found/<target> (ignored by git); the committed seeds in
# fuzz/corpus/<target> are only read. A failure leaves its input in fuzz/artifacts/<target>.
set -euo pipefail

cd "$(dirname "$0")/../fuzz"
seconds="${FUZZ_SECONDS:-60}"
# A single input that runs longer than this is a hang.
timeout="${FUZZ_TIMEOUT:-10}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

cargo +nightly fuzz build -O
status=0
for target in "${targets[@]}"; do
  mkdir -p "found/$target" "artifacts/$target"
  log="found/$target.log"
  echo "== $target (${seconds}s)"
  if ! cargo +nightly fuzz run -O "$target" "found/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1 \
    >"$log" 2>&1; then
    status=1
    echo "   FAILED: see fuzz/$log and fuzz/artifacts/$target"
  fi
  # The last status line (`#N DONE cov: … ft: … corp: …`) and the run's final counters.
  grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 | sed 's/^/   /' || true
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | sed 's/^/   /' || true
done
exit "$status"
