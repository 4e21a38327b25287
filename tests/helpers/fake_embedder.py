"""A deterministic embedder for tests: hashed bags of lower-cased words and CJK characters.

Texts sharing words get close vectors, so tests can reason about which chunk is nearest without a
model. `fail` makes every call raise, to test degrading; `calls` counts embedded texts."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

from memlsp.embed.base import PLAIN_COSINE, EmbedderError, SimilarityScale, Vectors, unit_rows

_TOKEN = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]", re.IGNORECASE)


class FakeEmbedder:
    def __init__(self, dimension: int = 64, name: str = "fake") -> None:
        self.dimension = dimension
        self.id = f"{name}-{dimension}"
        self.fail = False
        self.calls = 0
        self.synonyms: dict[str, str] = {}  # word -> word it should embed as
        self.vocabulary: set[str] | None = None  # the words it "reads"; None: it cannot tell
        self.scale = PLAIN_COSINE  # what its similarities mean (embed.base.SimilarityScale)

    def _vector(self, text: str) -> np.ndarray:
        row = np.zeros(self.dimension, dtype=np.float32)
        for token in _TOKEN.findall(text.lower()):
            token = self.synonyms.get(token, token)
            digest = hashlib.md5(token.encode(), usedforsecurity=False).digest()
            row[int.from_bytes(digest[:4], "little") % self.dimension] += 1.0
        return row

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if self.fail:
            raise EmbedderError("fake embedder told to fail")
        self.calls += len(texts)
        return unit_rows(np.array([self._vector(t) for t in texts]).reshape(len(texts), -1))

    def embed_query(self, text: str) -> Vectors:
        if self.fail:
            raise EmbedderError("fake embedder told to fail")
        return unit_rows(self._vector(text).reshape(1, -1))

    def similarity_scales(self, query: str) -> tuple[SimilarityScale, ...]:
        return (self.scale,)

    def knows_word(self, word: str) -> bool | None:
        return None if self.vocabulary is None else word.lower() in self.vocabulary


def embeddings_answer(
    model: str, texts: Sequence[str], dimension: int, *, reverse: bool = False
) -> bytes:
    """The body an OpenAI-compatible `/v1/embeddings` gives for `texts`, embedded by the fake
    embedder (`reverse`: in the opposite order, as a server may answer)."""
    vectors = FakeEmbedder(dimension).embed_documents(texts)
    data = [
        {"object": "embedding", "index": i, "embedding": vector.tolist()}
        for i, vector in enumerate(vectors)
    ]
    if reverse:
        data.reverse()
    return json.dumps({"object": "list", "model": model, "data": data}).encode()


def send_json(handler: BaseHTTPRequestHandler, answer: bytes) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(answer)))
    handler.end_headers()
    handler.wfile.write(answer)


class Hold:
    """Keeps an endpoint's answers back until `release()`: an embedding API slow to answer, so
    that a vault's embedding thread is in the middle of a batch for as long as a test wants."""

    LONGEST = 60.0  # a test that forgets to release must not hang its server for good

    def __init__(self) -> None:
        self.released = threading.Event()
        self._asked = 0
        self._changed = threading.Condition()

    def wait(self) -> None:
        with self._changed:
            self._asked += 1
            self._changed.notify_all()
        self.released.wait(self.LONGEST)

    def asked(self, count: int, timeout: float) -> bool:
        """Whether `count` requests have come in (waiting up to `timeout` seconds for them)."""
        with self._changed:
            return self._changed.wait_for(lambda: self._asked >= count, timeout)

    def release(self) -> None:
        self.released.set()


@contextlib.contextmanager
def embedding_endpoint(dimension: int, hold: Hold | None = None) -> Iterator[str]:
    """An OpenAI-compatible embedding server (a thread) with the deterministic embedder of this
    dimension behind it; its base URL. With `hold`, each request waits until it is released."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if hold is not None:
                hold.wait()
            send_json(self, embeddings_answer(body["model"], body["input"], dimension))

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        if hold is not None:
            hold.release()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def user_config_for(url: str, folder: Path, dimension: int) -> Path:
    """A user config folder (for XDG_CONFIG_HOME) whose memlsp uses the test embedder at `url`."""
    config = folder / "memlsp" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'embedder = "endpoint"\nembedder_url = "{url}"\nembedder_model = "fake-{dimension}"\n',
        encoding="utf-8",
    )
    return folder
