#!/usr/bin/env bash
# Regenerates every scenario's golden file (scenarios/NAME.expected.json, for NAME.json and
# the Flink SQL scripts NAME.sql); `git diff scenarios/`
# then shows what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(ls scenarios/*.json scenarios/*.sql | grep -v '\.expected\.json$')
# shellcheck disable=SC2086
cargo run -q --release --bin joinlab -- bless $files
