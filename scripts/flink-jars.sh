# Sourced by the scripts that run real Apache Flink 2.3.0 (scripts/conformance.sh,
# scripts/bench-flink.sh): `flink_jars NAME` sets LIB to the directory holding Flink's jars,
# installing PyPI's apache-flink (which ships them) into
# ${XDG_CACHE_HOME:-$HOME/.cache}/joinlab-flink-venv (or $JOINLAB_FLINK_VENV) when they are
# missing, and checks that java and javac (and the tools NAME adds) are there. NAME prefixes
# the messages.

FLINK_VERSION=2.3.0
VENV="${JOINLAB_FLINK_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/joinlab-flink-venv}"

flink_lib_dir() { ls -d "$VENV"/lib/python3*/site-packages/pyflink/lib 2>/dev/null | head -n1; }

# flink_jars NAME [TOOL...]
flink_jars() {
  local who="$1"
  shift
  LIB="$(flink_lib_dir || true)"
  if [ -z "$LIB" ] || [ ! -f "$LIB/flink-dist-$FLINK_VERSION.jar" ]; then
    echo "$who: installing apache-flink==$FLINK_VERSION into $VENV (for its jars)"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "apache-flink==$FLINK_VERSION"
    LIB="$(flink_lib_dir)"
  fi
  if [ ! -f "$LIB/flink-dist-$FLINK_VERSION.jar" ]; then
    echo "$who: no flink-dist-$FLINK_VERSION.jar in $LIB" >&2
    exit 1
  fi
  local tool
  for tool in java javac "$@"; do
    command -v "$tool" >/dev/null || { echo "$who: $tool is needed" >&2; exit 1; }
  done
}
