#!/usr/bin/env bash
# Coverage-guided fuzzing of the text parser and verifier on stable Rust: libFuzzer
# (libfuzzer-sys) with the coverage instrumentation cargo-fuzz uses, without a sanitizer.
#
#   scripts/fuzz.sh [SECONDS]     # default 60; CI runs it through scripts/test.sh
#
# Seeds: every .mlir file of the repository (fixtures, canonical cases, bad inputs). New
# inputs that reach new code go to target/fuzz/corpus (kept between runs); a crash is
# written to target/fuzz/artifacts and fails the run, with its input printed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
export PATH="$HOME/.cargo/bin:$PATH"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
# An explicit --target keeps the instrumentation out of build scripts and proc macros.
host="$(rustc -vV | sed -n 's/^host: //p')"
cargo build --release --manifest-path fuzz/Cargo.toml --target-dir target/fuzz/build \
  --target "$host" --bin parse_verify
seeds=target/fuzz/seeds
rm -rf "$seeds" && mkdir -p "$seeds" target/fuzz/corpus target/fuzz/artifacts
i=0
while IFS= read -r f; do
  cp "$f" "$seeds/$i.mlir"
  i=$((i + 1))
done < <(git ls-files '*.mlir')
echo "fuzz.sh: parse_verify for ${seconds} s from $i seed files"
"target/fuzz/build/$host/release/parse_verify" target/fuzz/corpus "$seeds" \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix=target/fuzz/artifacts/ -print_final_stats=1 2>&1 | tail -25
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "fuzz.sh: parse_verify failed (status $status); the input is in target/fuzz/artifacts/" >&2
  exit "$status"
fi
