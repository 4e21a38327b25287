"""Where the checkout is, for the tests that read its files (README, docs, the extension, the
benchmarks' data), wherever in tests/ they sit."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
