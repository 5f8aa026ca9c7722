#!/usr/bin/env bash
# Set up everything (optimised build) and run the main job: python -m batchloader demo.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BATCHLOADER_PROFILE=release bash scripts/setup.sh
exec "$ROOT/.venv/bin/python" -m batchloader demo "$@"
