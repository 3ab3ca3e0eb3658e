#!/usr/bin/env bash
# The project's one test command (the README's, and what .ci/run calls): formatting, lints,
# the engine's tests (golden scenarios, unit, property and robustness tests), the gallery on
# real Apache Flink 2.3.0 (conformance), the wasm build and the browser tests in headless
# Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test

echo "== cargo fmt"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets -- -D warnings
# The wasm bindings only compile for wasm32: lint the page's module, the exporter's, the SQL
# reader's, the SQL operators' engine and the benchmark build too.
for features in "" "--features export-module" "--features sql-module" "--features ops-module" "--features bench"; do
  # shellcheck disable=SC2086
  cargo clippy -p joinlab --lib --target wasm32-unknown-unknown $features -- -D warnings
done
echo "== cargo test"
cargo test --lib --bins --tests
echo "== fuzz smoke run (crate/tests/fuzz.rs, overflow checks on; long runs: docs/FUZZING.md)"
cargo test --test fuzz -- --include-ignored
echo "== golden scenarios through the CLI"
files=$(ls scenarios/*.json scenarios/*.sql | grep -v '\.expected\.json$')
# shellcheck disable=SC2086
cargo run -q --release --bin joinlab -- check $files
echo "== conformance: every gallery scenario on real Apache Flink 2.3.0"
bash scripts/conformance.sh
echo "== web type check (tsc --noEmit over the page, with the engine's generated types)"
npm run -s typecheck

echo "== web build and browser tests"
npm run test:browser
