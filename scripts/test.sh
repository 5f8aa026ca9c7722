#!/usr/bin/env bash
# Set up everything (see setup.sh) and run every check and test: rustfmt, clippy, cargo test,
# ruff, mypy, pytest (and the Spark tests again on PySpark 3.5). Fails on the first failure.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
export PATH="$ROOT/.venv/bin:$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/batchloader/target}"

echo "== cargo fmt"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets -- -D warnings
cargo clippy --features python --lib -- -D warnings
echo "== cargo test"
cargo test
echo "== ruff"
ruff check python tests benches
ruff format --check python tests benches
echo "== mypy (the package; _core.pyi against the built module)"
python -m mypy
python -m mypy.stubtest --mypy-config-file pyproject.toml batchloader._core
echo "== pytest"
set +e
python -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
[ "$status" -eq 0 ] || exit "$status"
# The whole suite (no pytest arguments) also runs the Spark tests on PySpark 3.5, which
# `read` and `Session` support too (BATCHLOADER_SKIP_SPARK35=1 leaves them out).
if [ "$#" -eq 0 ] && [ "${BATCHLOADER_SKIP_SPARK35:-0}" != 1 ]; then
  echo "== pytest on PySpark 3.5 (the Spark tests)"
  bash scripts/test_spark35.sh -q
fi
# ... and the tests that need neither Spark nor Python 3.11 on the oldest Python and pyarrow
# pyproject.toml allows (BATCHLOADER_SKIP_FLOOR=1 leaves them out).
if [ "$#" -eq 0 ] && [ "${BATCHLOADER_SKIP_FLOOR:-0}" != 1 ]; then
  echo "== pytest on Python 3.10 with pyarrow 19.0.1 (the floor)"
  bash scripts/test_floor.sh -q
fi
