#!/usr/bin/env bash
# Usage: fuzz/run.sh [SECONDS] [TARGET ...]     the short run (default 60 s a target; CI's)
#        fuzz/run.sh --long [TARGET ...]        the deep run: 10 M executions a target
#
# Builds the libFuzzer targets (clang, AddressSanitizer + UndefinedBehaviorSanitizer) into
# build-fuzz/ and runs each TARGET (default: all nine) on a scratch copy of its seed corpus
# fuzz/corpus/TARGET/, with one worker per core (ATTNVIZ_FUZZ_WORKERS to choose): each worker a
# libFuzzer process with its own seed on the same corpus folder, which each reloads as the
# others add to it. Prints the executions the workers ran clean for together and the time they
# took; stops with a non-zero exit and the crashing input (build-fuzz/crash-*) at the first
# failure.
#   targets: embeddings safetensors tokenizer binding model_files attention_file sentencepiece gguf
#            image
#
# Each target's -max_len lets it build the structures its format can hold: the JSON readers
# (model_files: tokenizer.json and config.json; attention_file; safetensors' header) 128 KiB, so
# nesting 60,000 levels deep can be built and mutated (each has such a seed), pictures 64 KiB, the
# others 16 KiB.
#
# --long: an execution budget rather than a time: each target runs until its workers have
# executed ATTNVIZ_FUZZ_RUNS inputs together (default 10,000,000, shared equally among them),
# with a time cap of ATTNVIZ_FUZZ_MAX_SECONDS a target (default 10,800); a target stopped by
# the cap before its budget makes the run fail, saying how far it got. Afterwards the inputs
# that reached new code are merged into fuzz/corpus/TARGET/ (libFuzzer's -merge=1 keeps only
# those that add coverage), so the corpus grows from run to run; commit it. CI runs the short
# mode on the committed corpus. Every new parser gets its own target here from the start.
set -euo pipefail
cd "$(dirname "$0")/.."
long=0
if [ "${1:-}" = "--long" ]; then long=1; shift; fi
if [ "$long" = 1 ]; then
  secs=${ATTNVIZ_FUZZ_MAX_SECONDS:-10800}
  budget=${ATTNVIZ_FUZZ_RUNS:-10000000}
else
  secs=${1:-60}
  [ $# -gt 0 ] && shift
fi
targets=${*:-embeddings safetensors tokenizer binding model_files attention_file sentencepiece gguf image}
build=${ATTNVIZ_FUZZ_BUILD:-build-fuzz}

cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNVIZ_FUZZ=ON -DATTNVIZ_OPENMP=OFF \
  -DATTNVIZ_BUILD_TESTS=OFF > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" > "$build.build.log" 2>&1 || { tail -50 "$build.build.log"; exit 1; }

max_len() {
  case "$1" in
    model_files|attention_file|safetensors|gguf) echo 131072 ;;
    image) echo 65536 ;;
    *) echo 16384 ;;
  esac
}

workers=${ATTNVIZ_FUZZ_WORKERS:-$(nproc)}
runs_each=-1  # libFuzzer's "no limit"
[ "$long" = 1 ] && runs_each=$(( (budget + workers - 1) / workers ))
for t in $targets; do
  work=$(mktemp -d)
  cp "fuzz/corpus/$t/"* "$work/"
  pids=()
  start=$(date +%s)
  rm -f "$build"/fuzz_"${t}"_*.log
  for w in $(seq 1 "$workers"); do
    "$build/fuzz/fuzz_$t" "$work" -max_total_time="$secs" -runs="$runs_each" -max_len="$(max_len "$t")" \
      -print_final_stats=1 -artifact_prefix="$build/crash-$t-" \
      > "$build/fuzz_${t}_$w.log" 2>&1 &
    pids+=($!)
  done
  failed=0
  for w in $(seq 1 "$workers"); do
    if ! wait "${pids[$((w - 1))]}"; then
      tail -40 "$build/fuzz_${t}_$w.log"
      failed=1
    fi
  done
  if [ "$failed" = 1 ]; then
    echo "fuzz_$t: FAILED (input saved as $build/crash-$t-*)"
    exit 1
  fi
  runs=$(cat "$build"/fuzz_"${t}"_*.log | grep -o 'stat::number_of_executed_units: *[0-9]*' |
         grep -o '[0-9]*$' | awk '{ s += $1 } END { print s }')
  took=$(( $(date +%s) - start ))
  echo "fuzz_$t: $runs executions in $took s ($workers workers), no crash"
  if [ "$long" = 1 ] && [ "$runs" -lt "$budget" ]; then
    echo "fuzz_$t: stopped by the time cap (${secs} s) after $runs of $budget executions"
    exit 1
  fi
  if [ "$long" = 1 ]; then
    before=$(ls "fuzz/corpus/$t" | wc -l)
    "$build/fuzz/fuzz_$t" -merge=1 -max_len="$(max_len "$t")" "fuzz/corpus/$t" "$work" \
      > "$build/merge_$t.log" 2>&1
    echo "fuzz_$t: corpus $before -> $(ls "fuzz/corpus/$t" | wc -l) inputs (fuzz/corpus/$t)"
  fi
  rm -rf "$work"
done
