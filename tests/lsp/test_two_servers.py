"""Two real servers on one vault and one cache: the second says it is read-only, and takes over
writing when the first is killed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.helpers.lsp_client import StdioClient, initialize_params
from tests.helpers.vault import TWO_NOTES, write_notes


def _vault_status(client: StdioClient) -> dict[str, Any]:
    vaults: list[dict[str, Any]] = client.request("memlsp/status")["vaults"]
    return vaults[0]


def _found(client: StdioClient, query: str) -> list[str]:
    answer = client.request("memlsp/search", {"query": query, "mode": "keyword"})
    return [hit["path"] for hit in answer["results"]]


def test_a_second_server_is_read_only_and_takes_over_from_a_killed_writer(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", TWO_NOTES)
    cache = str(tmp_path / "cache")
    writer, reader = StdioClient(), StdioClient()
    try:
        writer.initialize(initialize_params(vault, cache_dir=cache))
        reader.initialize(initialize_params(vault, cache_dir=cache))
        assert _vault_status(writer)["read_only"] is False
        status = _vault_status(reader)
        assert status["read_only"] is True and "read-only" in status["message"]

        writer.kill()  # kill -9: the OS frees the writer's lock
        deadline = time.monotonic() + 30
        while _vault_status(reader)["read_only"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _vault_status(reader)["read_only"] is False

        (vault / "later.md").write_text("# Later\n\ntakenovertoken\n", encoding="utf-8")
        deadline = time.monotonic() + 30
        while not _found(reader, "takenovertoken") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _found(reader, "takenovertoken") == ["later.md"]
    finally:
        writer.kill()
        reader.kill()
