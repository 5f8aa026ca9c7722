#!/usr/bin/env bash
# Run the Spark tests on PySpark 3.5 (CI runs PySpark 4): a second virtualenv, .venv-spark35,
# with the extension built into it. Tests of Spark 4's Python data sources are skipped there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ -x .venv/bin/python ] || bash scripts/setup.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/batchloader/target}"
export PATH="$HOME/.cargo/bin:$PATH"
BASE_PY="$(.venv/bin/python -c 'import sys; print(sys._base_executable)')"
[ -x .venv-spark35/bin/python ] || "$BASE_PY" -m venv .venv-spark35
.venv-spark35/bin/python -m pip install --quiet "pyspark>=3.5,<3.6" "pandas>=2.2,<3" \
  pyarrow pytest hypothesis sqlglot "moto[server]>=5" "maturin>=1.7,<2"
VIRTUAL_ENV="$ROOT/.venv-spark35" PATH="$ROOT/.venv-spark35/bin:$PATH" \
  .venv-spark35/bin/maturin develop --quiet
exec .venv-spark35/bin/python -m pytest -p no:cacheprovider \
  tests/test_spark.py tests/test_spark_types.py tests/test_session.py tests/test_demo.py \
  tests/test_remote.py tests/test_hive_partitions.py tests/test_file_filters.py \
  tests/test_json_syntax.py tests/test_corrupt_files.py tests/test_csv_float_texts.py \
  tests/test_csv_fields.py tests/test_csv_enforce_schema.py tests/test_line_ends.py \
  tests/test_charsets.py "$@"
