"""Remote vectors: the engine against a real `chroma run` server that goes away and comes back."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.settings.table import Settings
from tests.helpers.engine import ask, embed_all
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import write

CHROMA = Path(sys.executable).parent / "chroma"
RETRY = 0.2  # vector_retry_seconds of the engine under test

pytestmark = [
    pytest.mark.e2e,  # a Chroma server
    pytest.mark.skipif(
        not CHROMA.is_file(), reason=f"the chroma CLI is not installed next to Python ({CHROMA})"
    ),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ChromaServer:
    """`chroma run` on a fixed folder and port, which a test can stop and start again."""

    def __init__(self, folder: Path, log: Path) -> None:
        self.folder = folder
        self.log = log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def _alive(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=1) as answer:
                return bool(answer.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def start(self, timeout: float = 60.0) -> None:
        assert self.process is None
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [
                    str(CHROMA),
                    "run",
                    "--path",
                    str(self.folder),
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._alive():
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        output = self.log.read_text(errors="replace")[-2000:]
        self.stop()
        pytest.fail(f"chroma run did not answer on {self.url}:\n{output}")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            except ProcessLookupError:
                pass
        # The port must be free before the server may start again on it.
        deadline = time.monotonic() + 10
        while self._alive() and time.monotonic() < deadline:
            time.sleep(0.05)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ChromaServer]:
    running = ChromaServer(tmp_path / "chroma-data", tmp_path / "chroma.log")
    try:
        running.start()
        yield running
    finally:
        running.stop()


def test_remote_store_degrades_when_the_server_stops_and_recovers(
    server: ChromaServer, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    write(vault, "garden.md", "# Garden\n\nTomatoes and basil grow in the sunny garden bed.\n")
    write(vault, "vehicles.md", "# Vehicles\n\nMy car needs new tyres before the winter trip.\n")
    write(vault, "music.md", "# Music\n\nThe violin and the cello play a slow duet.\n")
    settings = Settings(
        chroma_url=server.url, cache_dir=tmp_path / "cache", vector_retry_seconds=RETRY
    )
    embedder = FakeEmbedder()
    engine = Engine.open(vault, settings, embedder)
    try:
        engine.refresh()
        assert embed_all(engine) == 3
        assert engine.vector_side.store is not None and engine.vector_side.store.remote
        assert engine.vector_side.store.count() == 3
        assert not (settings.cache_dir / "vectors").exists()  # type: ignore[operator]
        response = ask(engine, "tomatoes garden", limit=20)
        assert response.counts.hybrid is True and response.warnings == ()
        first = response.hits[0]
        assert first.chunk.path == "garden.md"
        assert first.keyword_rank == 1 and first.vector_rank == 1
        # A scope goes to the server as a `where` on path: the nearest among those notes alone.
        store = engine.vector_side.store
        nearest = store.query(embedder.embed_query("tomatoes garden")[0], 1, {"music.md"})
        assert [hit.path for hit in nearest] == ["music.md"]
        scoped = ask(engine, "garden violin", mode="vector", paths=("music.md",))
        assert [hit.chunk.path for hit in scoped.hits] == ["music.md"] and not scoped.warnings

        server.stop()
        response = ask(engine, "tomatoes garden", limit=20)  # no exception
        assert [hit.chunk.path for hit in response.hits][:1] == ["garden.md"]
        assert response.counts.hybrid is False and response.counts.vector == 0
        assert any("unavailable" in warning for warning in response.warnings)
        status = engine.read().vectors.status
        assert status.state == "unavailable" and status.problem
        assert engine.embed_step(16) == 0  # does not raise either

        server.start()
        time.sleep(RETRY + 0.1)
        assert engine.embed_step(16) == 0  # reconnected; the server kept every vector
        status = engine.read().vectors.status
        assert status.state == "ready" and status.stored == 3 and status.pending == 0
        response = ask(engine, "tomatoes garden", limit=20)
        assert response.counts.hybrid is True and response.warnings == ()
        assert response.hits[0].chunk.path == "garden.md"
        assert response.hits[0].vector_rank == 1
        assert embedder.calls == 3
    finally:
        engine.close()
