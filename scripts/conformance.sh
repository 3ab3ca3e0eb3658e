#!/usr/bin/env bash
# Conformance suite: run every scenario (and optionally N random ones) on real Apache Flink 2.3.0
# and on the engine, and compare. Usage:
#
#   bash scripts/conformance.sh [--random N] [--seed S] [--operator NAME] [--no-gallery] [--report] [--only FILE...]
#
# Installs Flink's jars when missing (PyPI's apache-flink ships them) into
# ${XDG_CACHE_HOME:-$HOME/.cache}/joinlab-flink-venv, builds the CLI, and runs conformance/run.py.
# Needs Java 17 (javac, java) and python3. See CONFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/flink-jars.sh
flink_jars conformance python3

cargo build --release --quiet --bin joinlab
exec python3 conformance/run.py --joinlab "$PWD/target/release/joinlab" --lib "$LIB" "$@"
