"""An OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, a local Ollama, llama.cpp, vLLM...).

The only embedder that uses the network, and only because the user configured its URL. The API key,
if any, comes from the environment variable the settings name, never from a settings file."""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence

import numpy as np

from memlsp.embed.base import EmbedderError, Vectors, unit_rows

BATCH = 64
TIMEOUT = 30.0


class EndpointEmbedder:
    def __init__(
        self, url: str, model: str, api_key_env: str = "", timeout: float = TIMEOUT
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise EmbedderError(f"embedder_url {url!r} is not an http(s) URL")
        if not model:
            raise EmbedderError("embedder_model must name the endpoint's model")
        base = url.rstrip("/")
        self._url = base if base.endswith("/embeddings") else f"{base}/embeddings"
        self._model = model
        self._key = os.environ.get(api_key_env, "") if api_key_env else ""
        self._timeout = timeout
        # The dimension is whatever the model returns: ask once, at start.
        self.dimension = int(self._post(["dimension probe"]).shape[1])
        self.id = f"endpoint-{model}-{self.dimension}"

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.concatenate(
            [self._post(list(texts[i : i + BATCH])) for i in range(0, len(texts), BATCH)]
        )

    def embed_query(self, text: str) -> Vectors:
        return self._post([text])

    def _post(self, texts: list[str]) -> Vectors:
        body = json.dumps({"model": self._model, "input": texts}).encode()
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(self._url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                answer = json.loads(response.read())
            rows = sorted(answer["data"], key=lambda item: item["index"])
            vectors = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (
            urllib.error.URLError,
            http.client.HTTPException,
            OSError,
            ValueError,
            KeyError,
            TypeError,
        ) as error:
            raise EmbedderError(f"embedding endpoint {self._url} failed: {error}") from error
        expected = getattr(self, "dimension", None)  # unknown until the first answer
        if (
            vectors.ndim != 2
            or len(vectors) != len(texts)
            or vectors.shape[1] == 0
            or (expected is not None and vectors.shape[1] != expected)
        ):
            raise EmbedderError(
                f"embedding endpoint {self._url} returned vectors of shape {vectors.shape} "
                f"for {len(texts)} texts" + (f" of dimension {expected}" if expected else "")
            )
        return unit_rows(vectors)
