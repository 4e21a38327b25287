"""A model held only while it is used: built on first use, dropped once unused for a while, and
built again by the next text that needs it.

A server keeps a vault open for hours, but embeds only when notes change and when a question is
asked: the models (~200 MB for the default embedder) would otherwise stay resident all that time.
Building one again gives the same model, so its vectors are the same.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence

from memlsp.embed.base import Embedder, EmbedderError, Vectors, knows_word

log = logging.getLogger(__name__)

Clock = Callable[[], float]


class LazyEmbedder:
    """An embedder built on first use, so its model loads only when a text needs it, and dropped
    by `unload_if_idle` once nobody has used it for a while."""

    def __init__(
        self,
        build: Callable[[], Embedder],
        dimension: int,
        *,
        loaded: Embedder | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        """`loaded`: the model already built (the one-model embedders build it at once, so that
        a model that cannot load says so when the embedder is made)."""
        self._build = build
        self._dimension = dimension
        self._clock = clock
        # `_model` and `_users` change under the lock; it is held while a model is built, so
        # two threads that need it at once build it once.
        self._lock = threading.Lock()
        self._model = loaded
        self._id = loaded.id if loaded is not None else ""
        self._users = 0
        self._last_used = clock()
        self.builds = 0  # how often it was built here: more than once after an unload

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def get(self) -> Embedder:
        """The model, built if it is not. A caller that keeps it past its call may find it
        unloaded meanwhile: the model still works for that caller, but its memory stays in use
        until it lets go. Use `using` around anything longer than one call."""
        with self._lock:
            model = self._load()
            self._last_used = self._clock()
            return model

    @contextlib.contextmanager
    def using(self) -> Iterator[Embedder]:
        """The model, which is not unloaded until the block ends; its end counts as its last use."""
        with self._lock:
            model = self._load()
            self._users += 1
        try:
            yield model
        finally:
            with self._lock:
                self._users -= 1
                self._last_used = self._clock()

    def _load(self) -> Embedder:
        if self._model is not None:
            return self._model
        started = time.perf_counter()
        model = self._build()
        self.builds += 1
        if model.dimension != self._dimension:
            raise ValueError(f"{model.id} has dimension {model.dimension}")
        if self._id and model.id != self._id:
            # Its vectors are stored under the old id: the vector side must connect anew.
            raise EmbedderError(
                f"the model changed since it was loaded: {model.id}, not {self._id}"
            )
        if self._id:
            log.info("%s loaded again in %.2f s", model.id, time.perf_counter() - started)
        self._model, self._id = model, model.id
        self._last_used = self._clock()
        return model

    def unused_for(self) -> float | None:
        """Seconds since its last use; 0.0 while in use or being built; None when it is not
        loaded. Never waits, as `unload_if_idle`."""
        if not self._lock.acquire(blocking=False):
            return 0.0
        try:
            if self._model is None:
                return None
            return 0.0 if self._users else max(0.0, self._clock() - self._last_used)
        finally:
            self._lock.release()

    def unload_if_idle(self, seconds: float) -> str | None:
        """Drop the model when it is loaded, not in use and was last used `seconds` ago or
        more; the id of the model dropped, else None. Never waits: a model being built now is
        in use."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            model = self._model
            if model is None or self._users or self._clock() - self._last_used < seconds:
                return None
            self._model = None  # the last reference, unless a caller of `get` still holds it
        finally:
            self._lock.release()
        return model.id


def until_unload(models: Sequence[LazyEmbedder], seconds: float) -> float | None:
    """Seconds until none of `models` will have been used for `seconds` (0.0: none has been),
    counted from the last use of any of them; None when none is loaded."""
    unused = [idle for model in models if (idle := model.unused_for()) is not None]
    return max(0.0, seconds - min(unused)) if unused else None


def unload_together(models: Sequence[LazyEmbedder], seconds: float) -> tuple[str, ...]:
    """Unload the loaded ones of `models` once none was used for `seconds`: the models of one
    embedder serve the same texts, so they go (and are told of) together. The ids unloaded."""
    if until_unload(models, seconds) != 0.0:
        return ()
    # Each looks again under its own lock: one used meanwhile stays.
    gone = (model.unload_if_idle(seconds) for model in models)
    return tuple(name for name in gone if name is not None)


class OneModel:
    """A one-model embedder (`minilm`, `use`, a model folder) whose model may be unloaded when
    idle. Its id and dimension are the first model's: building it again must give the same."""

    def __init__(self, model: LazyEmbedder, id: str) -> None:
        self._model = model
        self.id = id
        self.dimension = model.dimension

    @property
    def model(self) -> LazyEmbedder:
        return self._model

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        with self._model.using() as model:
            return model.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        with self._model.using() as model:
            return model.embed_query(text)

    def knows_word(self, word: str) -> bool | None:
        with self._model.using() as model:
            return knows_word(model, word)

    def unload_idle(self, seconds: float) -> tuple[str, ...]:
        return unload_together((self._model,), seconds)

    def until_unload(self, seconds: float) -> float | None:
        return until_unload((self._model,), seconds)
