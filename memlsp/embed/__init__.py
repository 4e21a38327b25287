"""Embedders: text to vectors, offline from models that ship in PyPI wheels, or a model folder
or an endpoint the user names.

`Embedder` (base.py) is what the vector side asks of one; `build_embedder` (factory.py) makes
the one the settings name. `BilingualEmbedder` (bilingual.py, the default) reads English with
MiniLM (onnx.py) and Chinese with multilingual USE (use.py). An offline model is held by a
`LazyEmbedder` (lazy.py): loaded when a text needs it, unloaded once idle.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.embed.base import Embedder as Embedder
    from memlsp.embed.base import EmbedderError as EmbedderError
    from memlsp.embed.bilingual import BilingualEmbedder as BilingualEmbedder
    from memlsp.embed.factory import build_embedder as build_embedder
    from memlsp.embed.lazy import LazyEmbedder as LazyEmbedder
    from memlsp.embed.lazy import OneModel as OneModel
    from memlsp.embed.onnx import OnnxEmbedder as OnnxEmbedder
    from memlsp.embed.remote import EndpointEmbedder as EndpointEmbedder
    from memlsp.embed.use import UseEmbedder as UseEmbedder

__getattr__ = exports(
    __name__,
    {
        "Embedder": "base",
        "EmbedderError": "base",
        "BilingualEmbedder": "bilingual",
        "build_embedder": "factory",
        "LazyEmbedder": "lazy",
        "OneModel": "lazy",
        "OnnxEmbedder": "onnx",
        "EndpointEmbedder": "remote",
        "UseEmbedder": "use",
    },
)
