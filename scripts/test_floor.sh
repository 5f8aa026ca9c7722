#!/usr/bin/env bash
# Run the tests that need neither Spark nor Python 3.11 on the oldest Python and pyarrow that
# pyproject.toml allows (Python 3.10, pyarrow 19.0.1), in a third virtualenv, .venv-floor.
# Without a Python 3.10 on the machine it says so and checks nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/batchloader/target}-floor"
export PATH="$HOME/.cargo/bin:$PATH"
PY310=""
for candidate in python3.10 "$(command -v pyenv >/dev/null && pyenv root)"/versions/3.10*/bin/python3.10; do
  if [ -n "$candidate" ] && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 10)' 2>/dev/null; then
    PY310="$candidate"
    break
  fi
done
if [ -z "$PY310" ]; then
  echo "test_floor: no Python 3.10 here; the floor (Python 3.10, pyarrow 19) is not checked"
  exit 0
fi
[ -x .venv-floor/bin/python ] || "$PY310" -m venv .venv-floor
.venv-floor/bin/python -m pip install --quiet "pyarrow==19.0.1" pytest hypothesis numpy \
  sqlglot "moto[server]>=5" "maturin>=1.7,<2"
VIRTUAL_ENV="$ROOT/.venv-floor" PATH="$ROOT/.venv-floor/bin:$PATH" \
  .venv-floor/bin/maturin develop --quiet
exec .venv-floor/bin/python -m pytest -p no:cacheprovider \
  tests/test_oracle.py tests/test_overflow.py tests/test_bulk.py tests/test_csv.py \
  tests/test_sparse.py tests/test_splits.py tests/test_types.py tests/test_lifecycle.py \
  tests/test_scan.py tests/test_ndjson.py tests/test_tracker.py tests/test_projection.py \
  tests/test_backfill_projection.py tests/test_pruning.py tests/test_remote.py \
  tests/test_read_ahead.py tests/test_small_files.py tests/test_multiline.py \
  tests/test_compression.py tests/test_hive_partitions.py tests/test_file_filters.py \
  tests/test_json_syntax.py tests/test_corrupt_files.py tests/test_csv_float_texts.py \
  tests/test_csv_fields.py tests/test_csv_enforce_schema.py tests/test_line_ends.py \
  tests/test_charsets.py \
  -k "not spark" "$@"
