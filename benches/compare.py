"""End-to-end comparison harness; same as ``python -m batchloader bench``."""

import sys

from batchloader.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
