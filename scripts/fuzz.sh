#!/usr/bin/env bash
# Fuzz the built-in readers (fuzz/fuzz_targets/readers.rs says what is checked) for
# SECONDS seconds (default 600). Needs cargo-fuzz (installed if missing) and libFuzzer's
# nightly flags, which RUSTC_BOOTSTRAP allows on the stable toolchain. A failing input is
# saved under fuzz/artifacts/readers/; `bash scripts/fuzz.sh 0 <file>` runs just it.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
export RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/batchloader/target-fuzz}"
if [[ $# -ge 2 ]]; then
    exec cargo fuzz run readers "$2"
fi
mkdir -p corpus/readers
cargo fuzz run readers corpus/readers seeds/readers -- -dict=readers.dict \
    -max_total_time="${1:-600}" -max_len=2048 -timeout=10 -rss_limit_mb=4096
