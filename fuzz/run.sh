#!/usr/bin/env bash
# Usage: fuzz/run.sh [SECONDS] [TARGET ...]
#
# Builds the libFuzzer targets (clang, AddressSanitizer + UndefinedBehaviorSanitizer) into
# build-fuzz/ and runs each TARGET (default: all four) for SECONDS (default 60) on a scratch copy
# of its seed corpus fuzz/corpus/TARGET/. Prints the executions each ran clean for; stops with a
# non-zero exit and the crashing input (build-fuzz/crash-*) at the first failure.
#   targets: embeddings safetensors tokenizer binding
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-embeddings safetensors tokenizer binding}
build=${ATTNVIZ_FUZZ_BUILD:-build-fuzz}

cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNVIZ_FUZZ=ON -DATTNVIZ_OPENMP=OFF \
  -DATTNVIZ_BUILD_TESTS=OFF > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" > "$build.build.log" 2>&1 || { tail -50 "$build.build.log"; exit 1; }

for t in $targets; do
  work=$(mktemp -d)
  cp "fuzz/corpus/$t/"* "$work/"
  log="$build/fuzz_$t.log"
  if ! "$build/fuzz/fuzz_$t" "$work" -max_total_time="$secs" -print_final_stats=1 \
       -artifact_prefix="$build/crash-$t-" > "$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz_$t: FAILED (input saved as $build/crash-$t-*)"
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  echo "fuzz_$t: $runs executions in ${secs} s, no crash"
  rm -rf "$work"
done
