#!/usr/bin/env bash
# Engine benchmarks (native, release build): every operator on generated workloads and the
# reference workloads W1–W4 of BENCH-WORKLOADS.md with checksums and the ratio to Flink 2.3.
#
#   scripts/bench.sh                 # everything (~15–30 min on 2 cores)
#   scripts/bench.sh --quick         # 10k/100k operators, W1–W4 at 1M, one run each
#   scripts/bench.sh --sections reference --reference-sizes 1000000,5000000
#   (all options: see crate/benches/engine.rs)
#
# Writes report.md (machine + tables), engine.md and engine.jsonl (one JSON record per
# measured case) into target/bench, or into the directory given with --out.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$PWD/target/bench"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ "${args[$i]}" == "--out" && $((i + 1)) -lt ${#args[@]} ]]; then
    out="$(realpath -m "${args[$((i + 1))]}")"
  fi
done
mkdir -p "$out"

# The release profile has panic = "abort" and benches are always built with unwinding, so
# cargo would build (and LTO) the library twice, once per strategy (and while the crate had
# a cdylib type, both builds shared one file name: cargo issue 6313, link errors). One panic
# strategy for every unit of the bench build; cargo warns that it is "ignored" for the bench
# profile, but it applies to the units built for the benchmark binary.
export CARGO_PROFILE_BENCH_PANIC=unwind

{
  echo "## Run of $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- machine: $(nproc) vCPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.1f GB", $2/1048576}' /proc/meminfo) RAM, $(uname -sr)"
  echo "- toolchain: $(rustc --version)"
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "- load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- command: scripts/bench.sh $*"
  echo
} > "$out/report.md"

cargo bench --bench engine -- "$@" --out "$out"

{
  cat "$out/engine.md"
  echo "- load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
} >> "$out/report.md"
echo "wrote $out/report.md"
