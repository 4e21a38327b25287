"""A vault cannot make memlsp send data anywhere, read outside it, write into it, or run code.

A hostile vault's `.memlsp.toml` names a URL, a Chroma server and an environment variable holding a
secret: a local HTTP listener records every request, and the real CLI and the real server over
stdio must send it none. Cache folders that would land inside the vault are moved out (the vault's
files stay byte for byte the same), and a manifest planted in the vault or in the real cache never
runs. The user's own config file may set everything.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from memlsp.settings.schema import SetBy
from memlsp.settings.table import SETTINGS
from memlsp.vault.link_graph import LinkGraph
from tests.helpers import cli
from tests.helpers.engine import open_engine
from tests.helpers.paths import REPO
from tests.helpers.vault import write, write_notes
from tests.lsp.conftest import finish, start_session

SECRET_VARIABLE = "MEMLSP_TRUST_TEST_SECRET"
SECRET = "secret-value-7f3a"
DIARY = "# Diary\n\nmy private diary entry about zygomorphic flowers\n"


@dataclass
class Listener:
    """A local HTTP server standing in for the host a hostile vault names."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener("")

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            found.requests.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "headers": dict(self.headers),
                    "body": body,
                }
            )
            return body

        def do_POST(self) -> None:  # answers like an embeddings API, so a sender would go on
            try:
                texts = json.loads(self._record())["input"]
            except (ValueError, KeyError, TypeError):
                texts = []
            rows = [{"index": i, "embedding": [1.0, float(i), 0.5]} for i in range(len(texts))]
            self._answer(200, json.dumps({"data": rows}).encode())

        def do_GET(self) -> None:
            self._record()
            self._answer(404, b"{}")

        do_PUT = do_DELETE = do_PATCH = do_HEAD = do_GET

        def _answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    found.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield found
    server.shutdown()
    server.server_close()
    thread.join(5)


def hostile_settings(listener: Listener) -> str:
    return (
        'embedder = "endpoint"\n'
        f'embedder_url = "{listener.url}/v1"\n'
        'embedder_model = "x"\n'
        f'embedder_api_key_env = "{SECRET_VARIABLE}"\n'
        f'chroma_url = "{listener.url}"\n'
    )


def user_environment(tmp_path: Path) -> dict[str, str]:
    """The user's environment: an empty config folder, a cache root, and a secret to steal."""
    config = tmp_path / "user-config"
    config.mkdir(exist_ok=True)
    return {
        **os.environ,
        "XDG_CONFIG_HOME": str(config),
        "XDG_CACHE_HOME": str(tmp_path / "user-cache"),
        SECRET_VARIABLE: SECRET,
    }


def user_config(tmp_path: Path, text: str) -> None:
    write(tmp_path / "user-config", "memlsp/config.toml", text)


def memlsp(
    tmp_path: Path, *args: str | Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    result = cli.memlsp(*args, cwd=cwd, env=user_environment(tmp_path))
    assert result.returncode == 0, result.stderr
    return result


def tree(folder: Path) -> dict[str, str]:
    """Every entry under `folder`: folders, links with their targets, files with a content hash."""
    found = {}
    for where, folders, files in os.walk(folder):
        for name in folders + files:
            full = Path(where, name)
            key = full.relative_to(folder).as_posix()
            if full.is_symlink():
                found[key] = "link to " + os.readlink(full)
            elif full.is_dir():
                found[key] = "folder"
            else:
                found[key] = hashlib.sha256(full.read_bytes()).hexdigest()
    return found


def ignored_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "ignored" in line and "embedder" in line]


def found_paths(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [hit["path"] for hit in json.loads(result.stdout)["results"]]


# -- S1, S3: nothing is sent ---------------------------------------------------------------------


@pytest.mark.e2e  # the CLI or a server
def test_hostile_vault_sends_nothing_from_the_cli(tmp_path: Path, listener: Listener) -> None:
    vault = tmp_path / "evil"
    write(vault, "note.md", DIARY)
    write(vault, ".memlsp.toml", hostile_settings(listener))
    cache = tmp_path / "cache"
    indexed = memlsp(tmp_path, "index", vault, "--cache-dir", cache)
    searched = memlsp(tmp_path, "search", vault, "zygomorphic", "--json", "--cache-dir", cache)
    assert listener.requests == []
    assert found_paths(searched) == ["note.md"]
    # One message per run names every refused key and says how the user sets them.
    [message] = ignored_lines(indexed.stderr)
    for name in ("embedder = 'endpoint'", "embedder_url", "embedder_model", "chroma_url"):
        assert name in message
    assert "embedder_api_key_env" in message and "config.toml" in message
    assert SECRET not in indexed.stderr + indexed.stdout
    # The vault's choice was refused, not merely unreachable: the built-in default ran instead.
    assert "vectors: 1 chunks by " in indexed.stdout


@pytest.mark.e2e  # the CLI or a server
async def test_hostile_vault_sends_nothing_from_the_server(
    tmp_path: Path, listener: Listener
) -> None:
    files = {".memlsp.toml": hostile_settings(listener), "diary.md": DIARY}
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "memlsp", "--stdio"],
        server_env=user_environment(tmp_path),
    )
    client = cast(LanguageClient, await config.start())
    try:
        # The editor says `embedder: none` (start_session's default) and a cache folder.
        session = await start_session(client, tmp_path, "vscode", files=files)
        assert await session.search_paths("zygomorphic") == ["diary.md"]
        status = await session.request("memlsp/status", None)
        [vault] = status["vaults"]
        assert vault["vectors"]["state"] == "off"  # the editor's `none` held
        said = [m.message for m in client.log_messages]
        [message] = ignored_lines("\n".join(said))
        for name in ("embedder_url", "embedder_api_key_env", "chroma_url", ".memlsp.toml"):
            assert name in message
        assert [m.type for m in client.log_messages if m.message == message] == [
            types.MessageType.Warning
        ]
        assert listener.requests == []
    finally:
        await finish(client)
        await client.stop()


# -- S4: the cache never lands in the vault ------------------------------------------------------


def vault_with_settings(tmp_path: Path, settings: str = 'embedder = "none"\n') -> Path:
    """Two notes and a `.memlsp.toml` holding `settings`, in `tmp_path/vault`."""
    files = {
        "a.md": "# Apples\n\nApples grow on trees, see [[b]].\n",
        "b.md": "# Bananas\n\nBananas are yellow.\n",
        ".memlsp.toml": settings,
    }
    return write_notes(tmp_path / "vault", files)


@pytest.mark.e2e  # the CLI or a server
@pytest.mark.parametrize(
    "how",
    ["vault file, relative", "flag, relative", "flag, absolute", "user file, absolute"],
)
def test_a_cache_folder_inside_the_vault_is_never_used(tmp_path: Path, how: str) -> None:
    inside = ".mycache" if "relative" in how else str(tmp_path / "vault" / "inside-cache")
    setting = f'embedder = "none"\ncache_dir = "{inside}"\n' if how.startswith("vault") else None
    vault = vault_with_settings(tmp_path, *(() if setting is None else (setting,)))
    flags: tuple[str, ...] = ("--cache-dir", inside) if how.startswith("flag") else ()
    if how.startswith("user file"):
        user_config(tmp_path, f'cache_dir = "{inside}"\n')
    before = tree(vault)
    # Run from inside the vault, as `cd vault && memlsp index .` or an editor started there does.
    result = memlsp(tmp_path, "index", ".", *flags, cwd=vault)
    assert "2 notes" in result.stdout
    searched = memlsp(tmp_path, "search", ".", "bananas", "--json", *flags, cwd=vault)
    assert found_paths(searched)[0] == "b.md"
    assert tree(vault) == before
    assert list((tmp_path / "user-cache" / "memlsp").glob("vault-*/manifest.pickle"))
    if not how.startswith("vault"):  # the user asked for it: told once per run where it went
        told = [line for line in result.stderr.splitlines() if "inside the vault" in line]
        assert len(told) == 1 and str(tmp_path / "user-cache" / "memlsp") in told[0]


# -- S2: nothing read from a cache runs ----------------------------------------------------------


class Payload:
    """What an attacker pickles: loading it creates `marker`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return os.mkdir, (str(self.marker),)


def payload(marker: Path) -> bytes:
    return pickle.dumps({"format": 4, "fingerprint": "", "records": Payload(marker)})


def _cache_name(vault: Path) -> str:
    """The per-vault folder name, as an attacker who guessed the clone's path computes it."""
    resolved = vault.resolve()
    return f"{resolved.name}-{hashlib.sha1(str(resolved).encode()).hexdigest()[:12]}"


@pytest.mark.e2e  # the CLI or a server
@pytest.mark.parametrize("how", ["vault file", "flag"])
def test_a_manifest_shipped_in_the_vault_never_runs(tmp_path: Path, how: str) -> None:
    settings = 'embedder = "none"\n' + ('cache_dir = "shipped"\n' if how == "vault file" else "")
    vault = vault_with_settings(tmp_path, settings)
    marker = tmp_path / "marker"
    write(vault, f"shipped/{_cache_name(vault)}/manifest.pickle", "").write_bytes(payload(marker))
    flags = ("--cache-dir", "shipped") if how == "flag" else ()
    before = tree(vault)
    result = memlsp(tmp_path, "index", ".", *flags, cwd=vault)
    assert not marker.exists()
    assert "2 notes" in result.stdout and "2 added" in result.stdout
    assert tree(vault) == before


@pytest.mark.e2e  # the CLI or a server
@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed with the user's key"])
def test_a_tampered_manifest_in_the_real_cache_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signed: bool
) -> None:
    vault = vault_with_settings(tmp_path)
    cache = tmp_path / "cache"
    memlsp(tmp_path, "index", vault, "--cache-dir", cache)
    [manifest] = cache.glob("*/manifest.pickle")
    marker = tmp_path / "marker"
    planted = payload(marker)
    if signed:  # someone who could read the user's key still cannot make memlsp run code
        from memlsp.index.manifest import manifest_key, seal

        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-config"))
        planted = seal(planted, manifest_key())
    manifest.write_bytes(planted)
    result = memlsp(tmp_path, "search", vault, "bananas", "--json", "--cache-dir", cache)
    assert not marker.exists()
    assert found_paths(result)[0] == "b.md"
    told = [line for line in result.stderr.splitlines() if "manifest" in line]
    assert len(told) == 1 and "re-indexed" in told[0], result.stderr
    again = memlsp(tmp_path, "index", vault, "--cache-dir", cache)  # the new manifest is good
    assert "0 added" in again.stdout and "manifest" not in again.stderr


def test_a_warm_start_still_loads_the_saved_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What memlsp writes passes its own checks: the graph comes back without re-resolving."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-config"))
    vault = vault_with_settings(tmp_path)
    first = open_engine(vault, tmp_path / "cache")
    first.refresh()
    first.close()
    second = open_engine(vault, tmp_path / "cache")
    summary = second.refresh()
    assert (summary.added, summary.messages) == (0, ())
    assert isinstance(second._store.manifest.graph, LinkGraph) and second.read().graph.inlinks(
        "b.md"
    )
    second.close()


def test_the_signing_key_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memlsp.index.manifest import manifest_key

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-config"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    key = manifest_key()
    path = tmp_path / "user-config" / "memlsp" / "manifest.key"
    assert path.read_bytes() == key and len(key) == 32
    assert path.stat().st_mode & 0o777 == 0o600
    assert manifest_key() == key  # made once, then read
    path.chmod(0o644)  # others could read it, and sign with it: not used
    assert manifest_key() != key
    assert (
        tmp_path / "tmp" / f"memlsp-{os.geteuid()}" / "manifest.key"
    ).stat().st_mode & 0o077 == 0


# -- S5: a model folder is the user's choice -----------------------------------------------------


@pytest.mark.e2e  # the CLI or a server
def test_an_onnx_model_folder_named_by_the_vault_is_not_used(tmp_path: Path) -> None:
    outside = tmp_path / "outside-model"
    write(outside, "model.onnx", "not a model: opening it would fail loudly")
    write(outside, "tokenizer.json", "{}")
    vault = vault_with_settings(
        tmp_path, f'embedder = "onnx"\nembedder_model_dir = "{outside}"\nexpand_limit = 3\n'
    )
    user_config(tmp_path, 'embedder = "none"\n')  # the user's choice, which the vault cannot undo
    result = memlsp(tmp_path, "index", vault, "--cache-dir", tmp_path / "cache")
    assert "vectors: off (embedder = none)" in result.stdout
    [message] = ignored_lines(result.stderr)
    assert "embedder = 'onnx'" in message and "embedder_model_dir" in message
    assert "expand_limit" not in message  # a search setting the vault may tune


# -- the user's config file ----------------------------------------------------------------------


@pytest.mark.e2e  # the CLI or a server
def test_the_user_config_file_may_set_user_only_settings(
    tmp_path: Path, listener: Listener
) -> None:
    user_cache = tmp_path / "chosen-cache"
    user_config(
        tmp_path,
        f'cache_dir = "{user_cache}"\n'
        'embedder = "endpoint"\n'
        f'embedder_url = "{listener.url}/v1"\n'
        'embedder_model = "m"\n'
        f'embedder_api_key_env = "{SECRET_VARIABLE}"\n',
    )
    vault = vault_with_settings(tmp_path, "expand_limit = 3\n")
    result = memlsp(tmp_path, "index", vault)
    assert "vectors: 2 chunks by endpoint-m-3" in result.stdout, result.stdout + result.stderr
    assert ignored_lines(result.stderr) == []
    assert list(user_cache.glob("vault-*/manifest.pickle"))
    assert listener.requests
    assert all(r["headers"].get("Authorization") == f"Bearer {SECRET}" for r in listener.requests)
    assert any(b"Bananas are yellow" in r["body"] for r in listener.requests)


# -- VS Code's Restricted Mode -------------------------------------------------------------------


def test_vs_code_restricted_mode_ignores_a_workspace_s_user_only_settings() -> None:
    """A cloned folder's `.vscode/settings.json` is as untrusted as its `.memlsp.toml`, and it
    could also name the program to run: VS Code reads those settings from the user's only."""
    package = REPO / "vscode-extension" / "package.json"
    manifest = json.loads(package.read_text(encoding="utf-8"))
    trust = manifest["capabilities"]["untrustedWorkspaces"]
    assert trust["supported"] == "limited" and trust["description"]
    restricted = set(trust["restrictedConfigurations"])
    program = {"memlsp.server.command", "memlsp.server.args", "memlsp.pythonPath"}
    # A setting a vault may give only some values of is restricted too: VS Code has no finer rule.
    user_only = {
        f"memlsp.{name}"
        for name, declared in SETTINGS.items()
        if declared.set_by is SetBy.USER or declared.vault_choices is not None
    }
    assert restricted == program | user_only
    assert restricted <= set(manifest["contributes"]["configuration"]["properties"])
