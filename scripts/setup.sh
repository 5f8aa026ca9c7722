#!/usr/bin/env bash
# Set up a development environment from scratch: a virtualenv in .venv with the Python
# dependencies, and the Rust extension built into it. Idempotent; re-runs are incremental.
#   BATCHLOADER_PROFILE=release  build the extension optimised (default: dev, with checks)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: cargo not found; install Rust (https://rustup.rs) first" >&2
    exit 1
  fi
fi

# Keep cargo's build cache outside the checkout so fresh clones on this machine build
# incrementally (CI runs on a new clone each time).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/batchloader/target}"

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
VENV_PY="$ROOT/.venv/bin/python"
"$VENV_PY" -m pip install --quiet --upgrade pip
"$VENV_PY" -m pip install --quiet "maturin>=1.7,<2" -r requirements-dev.txt

PROFILE_FLAG=()
if [ "${BATCHLOADER_PROFILE:-dev}" = "release" ]; then
  PROFILE_FLAG=(--release)
fi
# maturin installs the package editable into the virtualenv it runs from.
VIRTUAL_ENV="$ROOT/.venv" PATH="$ROOT/.venv/bin:$PATH" \
  "$ROOT/.venv/bin/maturin" develop --quiet "${PROFILE_FLAG[@]}"
