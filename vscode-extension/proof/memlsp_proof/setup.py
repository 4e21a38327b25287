"""What every run stands on: the paths of the build folder, the tools installed (Node, code-server,
Chromium, Playwright), the .vsix built from the sources as they are, the vault copied, the user
settings written and code-server started in its own process group."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROOF_DIR = Path(__file__).resolve().parent.parent  # this package sits in proof/
EXTENSION_DIR = PROOF_DIR.parent
REPO_DIR = EXTENSION_DIR.parent
FIXTURE_VAULT = REPO_DIR / "fixtures" / "vault"

NODE_PACKAGE = "node@24"
CODE_SERVER_PACKAGE = "code-server@4.139.1"
APT_PACKAGES = {"chromium": "/usr/bin/chromium", "fonts-noto-cjk": None, "libkrb5-dev": None}
CHROMIUM = "/usr/bin/chromium"

LINK_TEXT = "hybrid-search"  # in index.md: [[hybrid-search|混合检索]]
TARGET_TITLE = "Hybrid search"  # title of search/hybrid-search.md
TARGET_TAB = "hybrid-search.md"
SEARCH_QUERY = "visiting shrines of former imperial capitals"
SEARCH_HIT = "Kyoto"  # travel/kyoto-2023.md: "Kyoto, November 2023"


@dataclass(frozen=True)
class Paths:
    build: Path
    # A second run (the newcomer's) keeps its profile apart but its screenshots with the others.
    shots: Path | None = None
    tools: Path = field(init=False)
    data: Path = field(init=False)
    vault: Path = field(init=False)
    screenshots: Path = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tools", self.build / "tools")
        object.__setattr__(self, "data", self.build / "code-server")
        object.__setattr__(self, "vault", self.build / "vault")
        object.__setattr__(self, "screenshots", self.shots or self.build / "screenshots")

    @property
    def node_bin(self) -> Path:
        return self.tools / "node_modules" / "node" / "bin"

    @property
    def code_server(self) -> Path:
        return self.tools / "node_modules" / ".bin" / "code-server"

    @property
    def extensions(self) -> Path:
        return self.data / "ext"

    @property
    def user_data(self) -> Path:
        return self.data / "user"


class ProofError(Exception):
    """A setup step failed; the checks cannot run."""


# --- Small helpers -------------------------------------------------------------------------


def log(message: str) -> None:
    print(f"[proof] {message}", flush=True)


def run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    log("$ " + " ".join(command))
    result = subprocess.run(command, cwd=cwd, env=env)
    if result.returncode != 0:
        raise ProofError(f"command failed ({result.returncode}): {' '.join(command)}")


def node_env(paths: Paths) -> dict[str, str]:
    """The environment with Node 24 first on PATH (code-server's scripts run `node`)."""
    env = dict(os.environ)
    env["PATH"] = f"{paths.node_bin}{os.pathsep}{env.get('PATH', '')}"
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- Install -------------------------------------------------------------------------------


def install_apt_packages() -> None:
    missing = [name for name in APT_PACKAGES if not apt_installed(name)]
    if not missing:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run([*sudo, "apt-get", "install", "-y", *missing], env=env)


def apt_installed(name: str) -> bool:
    result = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True
    )
    return result.returncode == 0 and "install ok installed" in result.stdout


def npm_install(paths: Paths, package: str, env: dict[str, str] | None = None) -> None:
    run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(paths.tools), package],
        env=env,
    )


def install_node_tools(paths: Paths) -> None:
    paths.tools.mkdir(parents=True, exist_ok=True)
    if not (paths.node_bin / "node").exists():
        npm_install(paths, NODE_PACKAGE)
    if not paths.code_server.exists():
        # Run npm under Node 24 too: code-server's install scripts check the Node version.
        npm_install(paths, CODE_SERVER_PACKAGE, env=node_env(paths))


def install_playwright() -> None:
    if importlib.util.find_spec("playwright") is None:
        # Only the Python package: the browser is Debian's chromium, not `playwright install`.
        run([sys.executable, "-m", "pip", "install", "playwright"])


def install_all(paths: Paths) -> None:
    install_apt_packages()
    install_node_tools(paths)
    install_playwright()


# --- Build and prepare ---------------------------------------------------------------------


def vsix_path() -> Path:
    manifest = json.loads((EXTENSION_DIR / "package.json").read_text(encoding="utf-8"))
    return EXTENSION_DIR / f"{manifest['name']}-{manifest['version']}.vsix"


# What goes into the .vsix: a change to any of these means the .vsix on disk is stale.
VSIX_SOURCES = (
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.webview.json",
    "README.md",
    "LICENSE",
    ".vscodeignore",
)


def vsix_sources_digest() -> str:
    digest = hashlib.sha256()
    files = [EXTENSION_DIR / name for name in VSIX_SOURCES]
    files += sorted((EXTENSION_DIR / "src").rglob("*.ts"))
    # media/graph and media/vendor are built from src and node_modules (see package.json's build).
    built = [EXTENSION_DIR / "media" / "graph", EXTENSION_DIR / "media" / "vendor"]
    files += sorted(
        file
        for file in (EXTENSION_DIR / "media").rglob("*")
        if not any(file.is_relative_to(folder) for folder in built)
    )
    for file in files:
        if file.is_file():
            digest.update(str(file.relative_to(EXTENSION_DIR)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def build_vsix(paths: Paths) -> Path:
    """The .vsix of the sources as they are now: rebuilt unless it was built from these very sources."""
    vsix = vsix_path()
    stamp = paths.build / "vsix-sources.sha256"
    digest = vsix_sources_digest()
    built_from = stamp.read_text(encoding="utf-8").strip() if stamp.exists() else ""
    if vsix.exists() and built_from == digest:
        log(f"{vsix.name} is up to date with the sources")
        return vsix
    lock = EXTENSION_DIR / "package-lock.json"
    modules = EXTENSION_DIR / "node_modules" / ".package-lock.json"
    if not modules.exists() or modules.stat().st_mtime < lock.stat().st_mtime:
        run(["npm", "ci"], cwd=EXTENSION_DIR)
    vsix.unlink(missing_ok=True)
    run(["npm", "run", "build"], cwd=EXTENSION_DIR)
    run(["npm", "run", "package"], cwd=EXTENSION_DIR)
    if not vsix.exists():
        raise ProofError(f"no {vsix.name} after `npm run package`")
    paths.build.mkdir(parents=True, exist_ok=True)
    stamp.write_text(digest + "\n", encoding="utf-8")
    return vsix


def prepare_vault(paths: Paths, extra: dict[str, str] | None = None) -> None:
    """The fixture vault copied, with `extra` notes (vault path -> text) added to the copy only:
    tests elsewhere count the fixture's own notes."""
    if paths.vault.exists():
        shutil.rmtree(paths.vault)
    shutil.copytree(FIXTURE_VAULT, paths.vault)
    for name, text in (extra or {}).items():
        note = paths.vault / name
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(text, encoding="utf-8")


EDITOR_SETTINGS: dict[str, Any] = {
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": False,
    "workbench.tips.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "git.openRepositoryInParentFolders": "never",
    "chat.disableAIFeatures": True,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
}


def write_user_settings(paths: Paths, memlsp: dict[str, Any]) -> None:
    """User settings only: code-server is a remote window, and the memlsp settings that name a
    program must work from there (they did not while they were machine-scoped)."""
    settings_file = paths.user_data / "User" / "settings.json"
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings = {**EDITOR_SETTINGS, **memlsp}
    settings_file.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


def main_settings(paths: Paths, python: str) -> dict[str, Any]:
    return {
        "memlsp.pythonPath": python,
        "memlsp.cache_dir": str(paths.build / "cache"),
        # A link clicked in the Markdown preview opens in the text editor, where the check can read
        # the line it opened at (VS Code's default, "inPreview", shows the note's preview there).
        "markdown.preview.openMarkdownLinks": "inEditor",
    }


def reset_code_server_data(paths: Paths) -> None:
    """A fresh profile and index each run: the checks see a first start."""
    for folder in (paths.data, paths.build / "cache"):
        if folder.exists():
            shutil.rmtree(folder)
    paths.screenshots.mkdir(parents=True, exist_ok=True)


def install_vsix(paths: Paths, vsix: Path) -> None:
    run(
        [
            str(paths.code_server),
            "--extensions-dir",
            str(paths.extensions),
            "--user-data-dir",
            str(paths.user_data),
            "--install-extension",
            str(vsix),
            "--force",
        ],
        env=node_env(paths),
    )


# --- code-server ---------------------------------------------------------------------------


@contextmanager
def code_server(
    paths: Paths, port: int, env: dict[str, str] | None = None, options: tuple[str, ...] = ()
) -> Iterator[str]:
    """Runs code-server (with `options` added) in its own process group; kills the group on exit."""
    command = [
        str(paths.code_server),
        *options,
        "--auth",
        "none",
        "--bind-addr",
        f"127.0.0.1:{port}",
        "--disable-telemetry",
        "--disable-update-check",
        "--disable-workspace-trust",
        "--extensions-dir",
        str(paths.extensions),
        "--user-data-dir",
        str(paths.user_data),
        str(paths.vault),
    ]
    log_file = (paths.build / "code-server.log").open("w", encoding="utf-8")
    log("$ " + " ".join(command) + f"  (log: {log_file.name})")
    process = subprocess.Popen(
        command,
        env=env or node_env(paths),
        stdout=log_file,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_http(f"{url}/healthz", process, timeout=60)
        yield url
    finally:
        stop_process_group(process)
        log_file.close()


def wait_for_http(url: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ProofError(f"code-server exited with {process.returncode}; see code-server.log")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise ProofError(f"code-server did not answer {url} within {timeout:.0f} s")


def stop_process_group(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    except ProcessLookupError:
        pass
