"""The one-time int8 conversion of an ONNX model, run in a process of its own.

`python -m memlsp.embed.quantize MODEL OUT` writes OUT whole or not at all. Converting needs the
float graph, the `onnx` package and the quantizer in memory at once: ~450 MB at its peak and
~150 MB that stayed resident afterwards when it ran inside the server (`onnx.integer_model` says
why the conversion is worth it). Exit status 3: the `onnx` package is not installed.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

NO_QUANTIZER = 3


def convert(model: Path, out: Path) -> None:
    import onnxruntime
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(dir=out.parent) as work:
        optimized = Path(work) / "float.onnx"
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = str(optimized)
        onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        quantized = Path(work) / "int8.onnx"
        with _quiet_quantizer():
            quantize_dynamic(optimized, quantized, weight_type=QuantType.QInt8, per_channel=True)
        os.replace(quantized, out)  # whole or not at all: another process may read it


@contextmanager
def _quiet_quantizer() -> Iterator[None]:
    """The quantizer talks on the root logger, a line per tensor and advice to pre-process the
    model (it has been): none of it is for a memlsp user."""
    root = logging.getLogger()
    previous = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(previous)


def main(argv: Sequence[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write("usage: python -m memlsp.embed.quantize MODEL OUT\n")
        return 2
    try:
        import onnx  # noqa: F401
        import onnxruntime.quantization  # noqa: F401
    except ImportError as error:
        sys.stderr.write(f"{error}\n")
        return NO_QUANTIZER
    convert(Path(argv[0]), Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
