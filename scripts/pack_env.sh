#!/usr/bin/env bash
# Pack a virtualenv holding batchloader (and what it needs) for Spark executors:
#   bash scripts/pack_env.sh OUT.tar.gz
# builds the wheel (BATCHLOADER_PROFILE=release by default; dev for a quick build), installs
# it into a fresh virtualenv on the same Python as .venv, and packs that with venv-pack. Ship
# it with spark.archives=OUT.tar.gz#environment and PYSPARK_PYTHON=./environment/bin/python.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(realpath -m "$1")"
PROFILE="${BATCHLOADER_PROFILE:-release}"
[ -x "$ROOT/.venv/bin/maturin" ] || bash "$ROOT/scripts/setup.sh"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/batchloader/target}"
export PATH="$ROOT/.venv/bin:$HOME/.cargo/bin:$PATH"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
(cd "$ROOT" && maturin build --quiet --profile "$PROFILE" --out "$WORK/dist")
BASE_PY="$("$ROOT/.venv/bin/python" -c 'import sys; print(sys._base_executable)')"
"$BASE_PY" -m venv "$WORK/env"
"$WORK/env/bin/python" -m pip install --quiet "$WORK"/dist/*.whl venv-pack
"$WORK/env/bin/venv-pack" --quiet -p "$WORK/env" -o "$OUT" --force
echo "packed $OUT"
