#!/usr/bin/env python3
"""End-to-end proof that the memlsp VS Code extension works in a real editor.

Installs code-server (from npm, run by Node 24 from npm) and Debian Chromium, installs the
extension's .vsix (rebuilt whenever its sources changed), opens a copy of fixtures/vault and
drives the editor with Playwright. Three runs, each in a fresh profile (graph and graph10k only when named with --only):

main (memlsp.pythonPath in User settings only, as a remote window reads them)
  server      the memlsp status bar item reaches Ready
  one-status-item  no second progress item (the server's $/progress) while it opens
  settings-ui the Settings editor lists memlsp.pythonPath under User (not "No Settings Found")
  settings-fusion  it lists memlsp.fusion with its two rules, evidence and rrf
  outline     the Outline view lists each heading of index.md once, with no provider group
  quick-outline  Ctrl+Shift+O lists each heading once
  references  Shift+F12 on [[bm25]] lists the link under the cursor once
  workspace-symbols  Ctrl+T "Fusion" lists no heading twice
  hover       hovering a [[hybrid-search|...]] link shows the target's title and its neighbours
  definition  F12 on that link opens the target note
  preview-wikilinks  the Markdown preview shows wikilinks as links to the notes the server resolves;
              clicking one opens its note at the heading
  completion  `[[kyo` + Enter writes `[[kyoto-2023]]`; undone, the vault copy is unchanged
  search      "memlsp: Search Vault" lists kyoto-2023 for a query sharing no word with it
  restart     Restart Server says what it started
  code-lens   the lens on bm25.md's first line counts its links as the vault copy has them; a click
              lists them in the links picker
  explorer-rename  search/tantivy.md renamed in the Explorer (F2): every link to it follows
              (workspace/willRenameFiles), F12 on one opens the renamed note
  rename-symbol  F2 on [[zettelkasten]]: the note is renamed and every link to it follows
  related-view  the Explorer's Related notes view lists notes close to bm25.md
  insert-link  a row's Insert link button writes [[…]] at the cursor in bm25.md (then undone)
  link-all    the "N unlinked" lens of a note, then "Link all": the note that mentioned its name
              as plain text now links to it, nothing else in it changed
  graph       "memlsp: Show Graph" on bm25.md draws its graph beside the editor; a click on a
              neighbour opens that note, and the graph follows it

graph (the main run's setup, only the server and graph checks)

graph10k (a 10,000-note synthetic vault, benchmarks/synthetic_vault.py, built once into the build
folder)
  graph10k    the graph at depth 2 around its hub (linked from 5,000 notes) draws its first frame
              within 1 s of the answer reaching the page; the figures are reported

newcomer (no memlsp settings at all; memlsp installed only in <vault>/.venv; not on PATH)
  venv, server-from-venv, ready, outline, references, embedding-1, embedding-2,
  relative-pythonPath (.venv/bin/python in User settings), restart, output-clean

mcp (no extension; the README's .vscode/mcp.json in the vault, memlsp on code-server's PATH)
  listed      MCP: List Servers shows memlsp from .vscode/mcp.json, stopped
  server      started from that list, VS Code's output channel "MCP: memlsp" says it discovered
              5 tools, and its tools/list answer names search, read, links, related, recent

Screenshots go to vscode-extension/proof/build/screenshots/. One PASS/FAIL line per check;
the exit status is 1 if any check (or a setup step) fails.

    python vscode-extension/proof/run_proof.py [--python /path/to/python-with-memlsp] [--only main]
        [--only mcp] [--only graph10k]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import posixpath
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator, Page, Position

PROOF_DIR = Path(__file__).resolve().parent
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


# --- Checks --------------------------------------------------------------------------------


@dataclass
class Results:
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def record(self, name: str, ok: bool, detail: str) -> bool:
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
        (self.passed if ok else self.failed).append(name)
        return ok


def poll(predicate: Callable[[], Any], timeout: float, interval: float = 1.0) -> Any:
    """Calls predicate until it returns something truthy or the time is up; returns the last value."""
    deadline = time.monotonic() + timeout
    value = predicate()
    while not value and time.monotonic() < deadline:
        time.sleep(interval)
        value = predicate()
    return value


def screenshot(page: Page, paths: Paths, name: str) -> None:
    target = paths.screenshots / f"{name}.png"
    page.screenshot(path=str(target))
    log(f"screenshot {target}")


def open_workbench(page: Page, url: str, paths: Paths) -> None:
    page.goto(f"{url}/?folder={paths.vault}", wait_until="domcontentloaded")
    page.locator(".monaco-workbench").wait_for(state="visible", timeout=60_000)
    page.locator(".explorer-folders-view, .monaco-workbench .part.sidebar").first.wait_for(
        timeout=60_000
    )
    time.sleep(2)  # let the workbench settle before sending keys


def open_note(page: Page, name: str) -> bool:
    page.keyboard.press("Escape")
    page.locator(".monaco-workbench").click(position={"x": 600, "y": 300}, force=True)
    page.keyboard.press("Control+P")
    quick_input = page.locator(".quick-input-widget input")
    quick_input.wait_for(state="visible", timeout=15_000)
    quick_input.fill(name)
    # Enter opens the first row: wait until it is the note, not a recently opened one still listed
    # before the typed name filters the list.
    first = page.locator('.quick-input-list .monaco-list-row[aria-posinset="1"]', has_text=name)
    first.wait_for(timeout=15_000)
    page.keyboard.press("Enter")
    return wait_active_tab(page, name, timeout=15)


def active_tab_title(page: Page) -> str:
    tab = page.locator(".tabs-container .tab.active").first
    # The label and its extension render in separate elements: drop the whitespace between them.
    return "".join(tab.inner_text().split()) if tab.count() else ""


def wait_active_tab(page: Page, name: str, timeout: float) -> bool:
    return bool(poll(lambda: name in active_tab_title(page), timeout, 0.5))


def memlsp_status_items(page: Page) -> list[tuple[str, str]]:
    """(text, codicon classes) of each memlsp status bar item (one per vault when there are several)."""
    items = page.evaluate(
        """() => {
            const out = [];
            for (const item of document.querySelectorAll('.statusbar-item')) {
                const text = (item.textContent || '').trim();
                const ours = /memlsp\\.status\\./.test(item.id || '') ||
                    /^memlsp\\b/.test(text) || /\\bmemlsp:/.test(text) || text === 'memlsp';
                if (ours) {
                    const icon = item.querySelector('.codicon');
                    out.push([text, icon ? icon.className : '']);
                }
            }
            return out;
        }"""
    )
    return [(str(text), str(icon)) for text, icon in items]


def memlsp_status_text(page: Page) -> tuple[str, str]:
    """(text, codicon classes) of the first memlsp status bar item, or ("", "")."""
    items = memlsp_status_items(page)
    return items[0] if items else ("", "")


def wait_ready(page: Page, timeout: float, expect: str = "Ready") -> tuple[str, str] | None:
    """Waits for the status bar to show the ready check with `expect` in its text."""

    def ready() -> tuple[str, str] | None:
        text, icon = memlsp_status_text(page)
        return (text, icon) if "codicon-check" in icon and expect in text else None

    return cast("tuple[str, str] | None", poll(ready, timeout=timeout, interval=1))


def status_bar_texts(page: Page) -> list[str]:
    texts = page.evaluate(
        """() => [...document.querySelectorAll('.statusbar-item')]
            .map((item) => (item.textContent || '').replace(/\\s+/g, ' ').trim())"""
    )
    return [str(text) for text in texts]


def server_progress(texts: list[str]) -> list[str]:
    """Status bar entries of the server's own `$/progress` ("Indexing vault", "Finding meaning in
    vault"), which VS Code would show next to the extension's item for the same work."""
    return [t for t in texts if re.search(r"Finding meaning in |Indexing vault|Embedding ", t)]


def check_server(page: Page, paths: Paths, results: Results, prefix: str = "") -> bool:
    seen: set[str] = set()

    def ready() -> tuple[str, str] | None:
        seen.update(server_progress(status_bar_texts(page)))
        text, icon = memlsp_status_text(page)
        return (text, icon) if "codicon-check" in icon and "Ready" in text else None

    found = cast("tuple[str, str] | None", poll(ready, timeout=180, interval=0.25))
    screenshot(page, paths, f"{prefix}02-server-ready")
    text, icon = found or memlsp_status_text(page)
    detail = f"status bar item {text!r} ({icon or 'no item'})"
    ok = results.record(f"{prefix}server", bool(found), detail)
    results.record(
        f"{prefix}one-status-item",
        not seen,
        f"second progress items while opening: {sorted(seen) or 'none'}",
    )
    return ok


def text_position(page: Page, needle: str) -> dict[str, float] | None:
    """Screen centre of the first rendered occurrence of needle in an editor line."""
    found = page.evaluate(
        """(needle) => {
            for (const line of document.querySelectorAll('.monaco-editor .view-lines .view-line')) {
                const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
                let node;
                while ((node = walker.nextNode())) {
                    const at = node.textContent.indexOf(needle);
                    if (at >= 0) {
                        const range = document.createRange();
                        range.setStart(node, at);
                        range.setEnd(node, at + needle.length);
                        const box = range.getBoundingClientRect();
                        return {x: box.x + box.width / 2, y: box.y + box.height / 2};
                    }
                }
            }
            return null;
        }""",
        needle,
    )
    return cast("dict[str, float] | None", found)


def visible_hover_text(page: Page) -> str:
    hovers = page.locator(".monaco-hover:visible")
    return "\n".join(hovers.nth(i).inner_text() for i in range(hovers.count()))


def check_hover(page: Page, paths: Paths, results: Results) -> bool:
    position = text_position(page, LINK_TEXT)
    if position is None:
        screenshot(page, paths, "03-hover")
        return results.record("hover", False, f"no {LINK_TEXT!r} text in the editor")

    def hover_ready() -> str:
        page.mouse.move(position["x"] - 3, position["y"])
        page.mouse.move(position["x"], position["y"])
        text = visible_hover_text(page)
        return text if TARGET_TITLE in text and "inlinks" in text and "outlinks" in text else ""

    text = poll(hover_ready, timeout=30, interval=2) or visible_hover_text(page)
    screenshot(page, paths, "03-hover")
    show_hover_end(page, paths)
    ok = TARGET_TITLE in text and "inlinks" in text and "outlinks" in text
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    neighbours = [line for line in lines if line.startswith(("outlinks", "inlinks"))]
    summary = " | ".join(lines[:1] + neighbours)
    return results.record("hover", ok, f"hover shows: {summary!r}" if text else "no hover appeared")


def show_hover_end(page: Page, paths: Paths) -> None:
    """Screenshot the end of the hover (the neighbour lists): scroll it with the mouse over it."""
    hover = page.locator(".monaco-hover:visible").first
    if not hover.count():
        return
    box = hover.bounding_box()
    if box:
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        for _ in range(6):
            page.mouse.wheel(0, 600)
            time.sleep(0.2)
        time.sleep(0.3)
    screenshot(page, paths, "03-hover-neighbours")


def check_definition(page: Page, paths: Paths, results: Results) -> bool:
    page.keyboard.press("Escape")
    position = text_position(page, LINK_TEXT)
    if position is None:
        screenshot(page, paths, "04-definition")
        return results.record("definition", False, f"no {LINK_TEXT!r} text in the editor")
    page.mouse.click(position["x"], position["y"])
    page.keyboard.press("F12")
    ok = wait_active_tab(page, TARGET_TAB, timeout=20)
    time.sleep(1)
    screenshot(page, paths, "04-definition")
    return results.record("definition", ok, f"active tab after F12: {active_tab_title(page)!r}")


def run_command(page: Page, title: str) -> None:
    page.keyboard.press("F1")
    quick_input = page.locator(".quick-input-widget input")
    quick_input.wait_for(state="visible", timeout=15_000)
    quick_input.fill(f">{title}")
    page.locator(".quick-input-list .monaco-list-row", has_text=title).first.wait_for(
        timeout=15_000
    )
    page.keyboard.press("Enter")


def quick_pick_rows(page: Page) -> dict[int, str]:
    """The rendered rows of the quick pick by position (1-based); the list is virtualised."""
    rows = page.evaluate(
        """() => {
            const rows = {};
            for (const row of document.querySelectorAll('.quick-input-widget .quick-input-list .monaco-list-row')) {
                const at = Number(row.getAttribute('aria-posinset') || 0);
                if (at > 0) rows[at] = (row.innerText || '').replace(/\\s+/g, ' ').trim();
            }
            return rows;
        }"""
    )
    return {int(at): str(text) for at, text in rows.items()}


def all_quick_pick_rows(page: Page, limit: int = 60) -> dict[int, str]:
    """Every row of the quick pick: move the focus down the list (it renders only what shows)."""
    rows = quick_pick_rows(page)
    for step in range(1, limit):
        page.keyboard.press("ArrowDown")
        if step % 4 == 0:
            time.sleep(0.1)
            before = len(rows)
            rows.update(quick_pick_rows(page))
            if len(rows) == before and step >= len(rows):
                break
    return rows


def semantic_hit(rows: dict[int, str]) -> tuple[int, str] | None:
    """The first row naming the expected note that only the semantic side found."""
    for at in sorted(rows):
        row = rows[at]
        if SEARCH_HIT in row and "semantic" in row and "keyword" not in row:
            return at, row
    return None


def search_results(page: Page) -> dict[int, str]:
    rows = poll(lambda: quick_pick_rows(page), timeout=10, interval=1) or {}
    return all_quick_pick_rows(page) if rows else {}


def focus_row(page: Page, position: int) -> None:
    """For the screenshot: search again (the focus goes back to row 1), then walk down to the row."""
    page.mouse.move(700, 880)  # off the list: a row's tooltip would hide the focused row
    quick_input = page.locator(".quick-input-widget input")
    quick_input.fill("")
    time.sleep(0.3)
    quick_input.fill(SEARCH_QUERY)
    poll(lambda: len(quick_pick_rows(page)) > 1, timeout=10, interval=0.5)
    time.sleep(1)
    for _ in range(position - 1):
        page.keyboard.press("ArrowDown")
    time.sleep(0.5)


def check_search(page: Page, paths: Paths, results: Results) -> bool:
    run_command(page, "memlsp: Search Vault")
    quick_input = page.locator(".quick-input-widget input")
    page.locator(".quick-input-widget input[placeholder*='Search the vault']").wait_for(
        timeout=15_000
    )
    quick_input.fill(SEARCH_QUERY)
    deadline = time.monotonic() + 120
    rows: dict[int, str] = {}
    hit = None
    while time.monotonic() < deadline:
        rows = search_results(page)
        hit = semantic_hit(rows)
        if hit:
            break
        # Vectors may still be embedding: ask again (the picker only searches on a change).
        quick_input.fill("")
        time.sleep(0.3)
        quick_input.fill(SEARCH_QUERY)
        time.sleep(5)
    if hit:
        focus_row(page, hit[0])
    screenshot(page, paths, "05-search")
    if hit:
        detail = f"row {hit[0]} of {len(rows)} for {SEARCH_QUERY!r}: {hit[1][:120]!r}"
    else:
        shown = "; ".join(rows[at][:60] for at in sorted(rows)[:12]) or "no rows"
        detail = f"no semantic {SEARCH_HIT!r} row for {SEARCH_QUERY!r} in {len(rows)} rows: {shown}"
    return results.record("search", hit is not None, detail)


# --- The Markdown preview's wikilinks and completion -------------------------------------------

# index.md's wikilinks by the text the preview shows, and where each leads as the server resolves
# it: a file relative to the note (each name percent-encoded) and a heading's slug as VS Code's
# preview names it. `ideas` is ambiguous (the server opens travel/ideas.md), `Chengdu food` an alias.
PREVIEW_NOTE = "index.md"
PREVIEW_LINKS = {
    "bm25": "search/bm25.md",
    "混合检索": "search/hybrid-search.md",
    "hybrid-search#Fusion#Reciprocal Rank Fusion": "search/hybrid-search.md#reciprocal-rank-fusion",
    "向量检索#向量检索：ANN 算法": urllib.parse.quote("search/向量检索.md")
    + "#"
    + urllib.parse.quote("向量检索ann-算法", safe=""),
    "ideas": "travel/ideas.md",
    "#Notes on notes": "#notes-on-notes",
    "reading-list": "inbox/reading-list.md",
    "Chengdu food": urllib.parse.quote("travel/成都美食.md"),
}
PREVIEW_CLASSES = {"ideas": "memlsp-ambiguous", "reading-list": "memlsp-embed"}
PREVIEW_CLICK = "hybrid-search#Fusion#Reciprocal Rank Fusion"
PREVIEW_HEADING = "### Reciprocal Rank Fusion"  # in search/hybrid-search.md
# daily/2024-03-01.md: a link to a note not written yet, and one from a subfolder.
UNRESOLVED_NOTE = "2024-03-01.md"
UNRESOLVED_LABEL = "Learning to Rank"
UNRESOLVED_RELATIVE = ("bm25", "../search/bm25.md")
WIKILINK = re.compile(r"!?\[\[[^\[\]\n]+\]\]")  # the server's pattern

PREVIEW_LINKS_JS = """() => [...document.querySelectorAll('a.memlsp-wikilink')].map((a) =>
    [a.textContent, a.getAttribute('href'), a.getAttribute('data-href'), a.className, a.title])"""

# Each link's text, href, data-href, class and title.
PreviewLink = tuple[str, str | None, str | None, str, str]


def preview_links(page: Page, expect: str) -> tuple[Frame | None, list[PreviewLink]]:
    """The wikilinks in the preview's webview (an iframe in an iframe) that shows a link as `expect`
    (another preview's webview may still be there)."""
    for frame in page.frames:
        with suppress(Exception):  # a frame may go away while it is asked
            rows = [cast("PreviewLink", tuple(row)) for row in frame.evaluate(PREVIEW_LINKS_JS)]
            if any(row[0] == expect for row in rows):
                return frame, rows
    return None, []


def settled_preview(
    page: Page, expect: str, timeout: float
) -> tuple[Frame | None, list[PreviewLink]]:
    """Waits for a preview showing a link as `expect`, with every link looked up."""

    def settled() -> tuple[Frame | None, list[PreviewLink]] | None:
        frame, rows = preview_links(page, expect)
        pending = any("memlsp-pending" in row[3] for row in rows)
        return (frame, rows) if frame is not None and not pending else None

    found = poll(settled, timeout=timeout, interval=0.5)
    return (
        cast("tuple[Frame | None, list[PreviewLink]]", found)
        if found
        else preview_links(page, expect)
    )


def run_exact_command(page: Page, title: str) -> None:
    """Like run_command, for a title that begins others ("Markdown: Open Preview" and "… to the
    Side"): the row with exactly that title is clicked."""
    page.keyboard.press("F1")
    quick_input = page.locator(".quick-input-widget input")
    quick_input.wait_for(state="visible", timeout=15_000)
    quick_input.fill(f">{title}")
    label = page.locator(".label-name", has_text=re.compile(f"^{re.escape(title)}$"))
    row = page.locator(".quick-input-list .monaco-list-row").filter(has=label).first
    row.wait_for(timeout=15_000)
    row.click()


def open_preview(page: Page, note: str) -> bool:
    """`markdown.showPreview` on a note: its preview in a tab of its own, "Preview <note>"."""
    open_note(page, note)
    run_exact_command(page, "Markdown: Open Preview")
    return wait_active_tab(page, f"Preview{note}", timeout=15)


def close_active_editor(page: Page) -> None:
    # The palette answers F1 even while the keyboard focus is in a webview.
    run_exact_command(page, "View: Close Editor")


def cursor_line(page: Page) -> int | None:
    """The active editor's cursor line (1-based), as the status bar says it ("Ln 13, Col 1")."""
    for text in status_bar_texts(page):
        found = re.match(r"Ln (\d+), Col \d+", text)
        if found:
            return int(found.group(1))
    return None


def check_preview_wikilinks(page: Page, paths: Paths, results: Results) -> bool:
    # A note with a link to a note not written yet: shown as such, with nowhere to go.
    previewed = open_preview(page, UNRESOLVED_NOTE)
    _, rows = settled_preview(page, UNRESOLVED_LABEL, timeout=60)
    screenshot(page, paths, "14-preview-unresolved")
    by_text = {row[0]: row for row in reversed(rows)}
    missing = by_text.get(UNRESOLVED_LABEL)
    unresolved_ok = (
        missing is not None
        and "memlsp-unresolved" in missing[3]
        and missing[1] is None
        and missing[4] == f"not found: {UNRESOLVED_LABEL}"
    )
    relative = by_text.get(UNRESOLVED_RELATIVE[0])
    relative_ok = relative is not None and relative[1] == UNRESOLVED_RELATIVE[1]
    close_active_editor(page)

    # index.md: every wikilink a link to where the server resolves it.
    started = time.monotonic()
    previewed = open_preview(page, PREVIEW_NOTE) and previewed
    frame, rows = settled_preview(page, PREVIEW_CLICK, timeout=60)
    seconds = time.monotonic() - started
    screenshot(page, paths, "14-preview")
    written = len(WIKILINK.findall((FIXTURE_VAULT / PREVIEW_NOTE).read_text(encoding="utf-8")))
    by_text = {row[0]: row for row in reversed(rows)}
    wrong = {
        text: by_text[text][1] if text in by_text else "no such link"
        for text, href in PREVIEW_LINKS.items()
        if text not in by_text or by_text[text][1] != href or by_text[text][2] != href
    }
    wrong.update(
        {
            text: by_text[text][3] if text in by_text else "no such link"
            for text, name in PREVIEW_CLASSES.items()
            if text not in by_text or name not in by_text[text][3].split()
        }
    )
    raw = bool(frame and "[[" in str(frame.evaluate("() => document.body.innerText")))
    no_href = [row[0] for row in rows if row[1] is None]

    # A click on a link with a heading opens its note at that heading (in the text editor: the main
    # run sets markdown.preview.openMarkdownLinks to "inEditor"; VS Code's default shows the note's
    # preview instead, resolving the link the same way).
    opened = False
    line = None
    heading_line = 1 + (FIXTURE_VAULT / "search" / TARGET_TAB).read_text(
        encoding="utf-8"
    ).splitlines().index(PREVIEW_HEADING)
    if frame is not None:
        frame.locator("a.memlsp-wikilink", has_text=PREVIEW_CLICK).first.click()
        opened = bool(poll(lambda: active_tab_title(page) == TARGET_TAB, timeout=20, interval=0.3))
        line = poll(lambda: cursor_line(page) == heading_line and heading_line, 10, 0.3)
        line = line or cursor_line(page)
    screenshot(page, paths, "15-preview-click")
    tab = active_tab_title(page)
    run_exact_command(page, "View: Close All Editors")
    ok = (
        len(rows) == written
        and not wrong
        and not raw
        and no_href == []
        and unresolved_ok
        and relative_ok
        and previewed
        and opened
        and line == heading_line
    )
    shown = {text: by_text[text][1] for text in PREVIEW_LINKS if text in by_text}
    detail = (
        f"{PREVIEW_NOTE}: {len(rows)} of {written} wikilinks are links after {seconds:.1f} s, "
        f"wrong: {wrong or 'none'}, raw [[ left: {raw}, without href: {no_href or 'none'}; {shown}; "
        f"{UNRESOLVED_NOTE}: {missing[:1] + missing[3:] if missing else 'no such link'} "
        f"(href {missing[1] if missing else None!r}), {UNRESOLVED_RELATIVE[0]} -> "
        f"{relative[1] if relative else None!r}; click on {PREVIEW_CLICK!r}: active tab {tab!r}, "
        f"cursor on line {line} ({PREVIEW_HEADING!r} is line {heading_line})"
    )
    return results.record("preview-wikilinks", ok, detail)


COMPLETION_OPEN = "[["
COMPLETION_TYPED = "kyo"
COMPLETION_NAME = "kyoto-2023"  # travel/kyoto-2023.md: its shortest unambiguous name

EDITOR_LINES_JS = """() => {
    const editor = document.querySelector('.editor-group-container.active .monaco-editor');
    if (!editor) return [];
    const lines = [...editor.querySelectorAll('.view-lines .view-line')];
    lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
    return lines.map((line) => line.textContent.replace(/\\u00a0/g, ' '));
}"""


def last_line(page: Page) -> str | None:
    lines = page.evaluate(EDITOR_LINES_JS)
    return str(lines[-1]) if lines else None


def suggest_rows(page: Page) -> list[str]:
    rows = page.evaluate(
        """() => [...document.querySelectorAll('.suggest-widget.visible .monaco-list-row')]
            .map((row) => row.getAttribute('aria-label') || '')"""
    )
    return [str(row) for row in rows]


def active_tab_dirty(page: Page) -> bool:
    return bool(page.locator(".tabs-container .tab.active.dirty").count())


def check_completion(page: Page, paths: Paths, results: Results) -> bool:
    """`[[` and a few letters on the note's last (empty) line, the first suggestion accepted with
    Enter: the server writes the note's name and closes the link. Undone afterwards; code-server
    saves after a delay, so the check waits until the file is the fixture's again."""
    open_note(page, PREVIEW_NOTE)
    focus_editor(page)
    page.keyboard.press("Control+End")
    before = last_line(page)
    started = time.monotonic()
    # `[[` first, and the rest once its suggestions are there: the server reads the note's text when
    # it answers, so letters typed while it works would be read as typed before the cursor.
    page.keyboard.type(COMPLETION_OPEN)
    poll(lambda: suggest_rows(page), timeout=15, interval=0.2)
    page.keyboard.type(COMPLETION_TYPED)
    rows = poll(
        lambda: [row for row in suggest_rows(page)[:1] if row.startswith(COMPLETION_NAME)],
        timeout=15,
        interval=0.2,
    )
    seconds = time.monotonic() - started
    shown = suggest_rows(page)
    screenshot(page, paths, "16-completion")
    page.keyboard.press("Enter")
    expected = f"[[{COMPLETION_NAME}]]"
    accepted = poll(lambda: last_line(page) == expected, timeout=5, interval=0.2)
    line = expected if accepted else last_line(page)
    screenshot(page, paths, "16-completion-accepted")
    undone = 0

    def changed_from(shown: str | None) -> Callable[[], bool]:
        return lambda: last_line(page) != shown

    while last_line(page) != before and undone < 10:
        shown_before = last_line(page)
        page.keyboard.press("Control+Z")
        undone += 1
        # The next undo as soon as this one shows: each edit cancels what the editor asked the
        # server about the text before it.
        poll(changed_from(shown_before), timeout=2, interval=0.05)
    original = (FIXTURE_VAULT / PREVIEW_NOTE).read_bytes()
    restored = bool(
        poll(
            lambda: (
                not active_tab_dirty(page) and (paths.vault / PREVIEW_NOTE).read_bytes() == original
            ),
            timeout=15,
            interval=0.5,
        )
    )
    ok = bool(rows) and line == expected and restored
    detail = (
        f"typed {COMPLETION_OPEN + COMPLETION_TYPED!r} on the empty last line of {PREVIEW_NOTE}: "
        f"first suggestion {shown[:1] or 'none'} of {len(shown)} after {seconds:.1f} s; "
        f"Enter -> {line!r}; {undone} undo(s), the file is the fixture's again: {restored}"
    )
    if not restored:
        on_disk = (paths.vault / PREVIEW_NOTE).read_text(encoding="utf-8").splitlines()[-2:]
        detail += f" (tab dirty: {active_tab_dirty(page)}; the file ends {on_disk})"
    return results.record("completion", ok, detail)


# --- The code lens, and renaming notes (last: a rename changes the vault copy) -------------------

# A note's wikilinks ([[target#anchor|label]], the target without its anchor) and Markdown links'
# destinations (<...> or up to a space or `)`).
LINK_TARGET = re.compile(
    r"!?\[\[(?P<wiki>[^\[\]|#\n]*)[^\[\]\n]*\]\]|\]\(\s*(?:<(?P<angle>[^>\n]*)>|(?P<md>[^)\s]+))"
)
URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class LinkAt:
    line: int
    start: int  # columns of the target as written: a wikilink's before its `#`, a Markdown
    end: int  # destination's whole (with its `<>` and `#anchor`)
    target: str  # a Markdown destination's without its anchor, percent-decoded
    wiki: bool
    anchor: str  # a Markdown destination's (a wikilink's stays on the line)
    written: str  # line[start:end]


def links_in(text: str) -> list[LinkAt]:
    """Each wikilink and local Markdown link of a note (not URLs, not `#heading` alone)."""
    found = []
    for number, line in enumerate(text.splitlines()):
        for match in LINK_TARGET.finditer(line):
            if match.group("wiki") is not None:
                start, end = match.span("wiki")
                target, anchor = match.group("wiki"), ""
            else:
                group = "angle" if match.group("angle") is not None else "md"
                start, end = match.span(group)
                if group == "angle":
                    start, end = start - 1, end + 1
                target, _, anchor = match.group(group).partition("#")
                target = urllib.parse.unquote(target)
            if target.strip() and not URL_SCHEME.match(target):
                wiki = match.group("wiki") is not None
                written = line[start:end]
                found.append(LinkAt(number, start, end, target.strip(), wiki, anchor, written))
    return found


def resolve_link(files: set[str], source: str, target: str) -> str | None:
    """The vault file a link leads to, as Obsidian finds it: the path relative to the note, else a
    vault path or a file name (a note's without `.md`), whatever the case; None when none."""
    key = target.lower()
    relative = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    for wanted in (relative.lower(), key.removeprefix("/")):
        hits = sorted(f for f in files if f.lower() in (wanted, wanted + ".md"))
        if hits:
            return hits[0]
    hits = sorted(f for f in files if f.lower().endswith(("/" + key, "/" + key + ".md")))
    return hits[0] if hits else None


def vault_texts(vault: Path) -> dict[str, bytes]:
    """Every file of the vault copy by its vault-relative path."""
    return {
        path.relative_to(vault).as_posix(): path.read_bytes()
        for path in sorted(vault.rglob("*"))
        if path.is_file() and ".obsidian" not in path.parts
    }


def links_to(texts: dict[str, bytes], target: str) -> dict[str, list[LinkAt]]:
    """The links into `target` by the note they are in (itself left out)."""
    files = set(texts)
    found: dict[str, list[LinkAt]] = {}
    for path, data in texts.items():
        if path.endswith(".md") and path != target:
            links = [
                link
                for link in links_in(data.decode("utf-8"))
                if resolve_link(files, path, link.target) == target
            ]
            if links:
                found[path] = links
    return found


LENS_NOTE = "search/bm25.md"
LENS_TEXT = re.compile(r"^(\d+) inlinks? · (\d+) outlinks?(?: · (\d+) unresolved)?$")


def expected_counts(vault: Path, note: str) -> tuple[int, int, int, dict[str, list[LinkAt]]]:
    """(inlinks, outlinks, unresolved, the links into it by note) as the fixture has them: notes
    that link here; notes and files it links to; names it links to that nothing has."""
    texts = vault_texts(vault)
    inlinks = links_to(texts, note)
    targets: set[str] = set()
    missing: set[str] = set()
    for link in links_in(texts[note].decode("utf-8")):
        found = resolve_link(set(texts), note, link.target)
        if found is None:
            missing.add(link.target.lower())
        elif found != note:
            targets.add(found)
    return len(inlinks), len(targets), len(missing), inlinks


def code_lenses(page: Page) -> list[str]:
    texts = page.evaluate(
        """() => [...document.querySelectorAll(
            '.editor-group-container.active .monaco-editor .codelens-decoration a')]
            .map((a) => (a.textContent || '').replace(/\\u00a0/g, ' ').trim())"""
    )
    return [str(text) for text in texts]


def quick_pick_items(page: Page) -> dict[int, tuple[str, str]]:
    """(aria-label, label) of each rendered quick pick row by position; a row's aria-label starts
    with its icon's name (memlsp's links picker: arrow-right for outlinks, arrow-left for inlinks)."""
    rows = page.evaluate(
        """() => {
            const rows = {};
            for (const row of document.querySelectorAll('.quick-input-widget .quick-input-list .monaco-list-row')) {
                const at = Number(row.getAttribute('aria-posinset') || 0);
                const label = row.querySelector('.label-name');
                if (at > 0) rows[at] = [row.getAttribute('aria-label') || '', label ? label.innerText.trim() : ''];
            }
            return rows;
        }"""
    )
    return {int(at): (str(aria), str(label)) for at, (aria, label) in rows.items()}


def all_quick_pick_items(page: Page, limit: int = 80) -> dict[int, tuple[str, str]]:
    """Every row of the (virtualised) quick pick: the focus moves down until each of the rows its
    aria-setsize counts has shown."""
    rows = quick_pick_items(page)
    row = page.locator(".quick-input-widget .quick-input-list .monaco-list-row[aria-setsize]")
    total = int(row.first.get_attribute("aria-setsize") or 0) if row.count() else 0
    for _ in range(limit):
        if len(rows) >= total:
            break
        page.keyboard.press("ArrowDown")
        poll(lambda: len(quick_pick_items(page).keys() - rows.keys()), timeout=0.5, interval=0.05)
        rows.update(quick_pick_items(page))
    return rows


def check_code_lens(page: Page, paths: Paths, results: Results) -> bool:
    """The lens on a note's first line counts its links as the fixture has them; a click on it lists
    them in the links picker."""
    inlinks, outlinks, unresolved, sources = expected_counts(paths.vault, LENS_NOTE)
    expected = (inlinks, outlinks, unresolved)
    note = LENS_NOTE.rsplit("/", 1)[-1]
    open_note(page, note)

    def counted() -> str:
        for text in code_lenses(page):
            found = LENS_TEXT.match(text)
            if found and tuple(int(n or 0) for n in found.groups()) == expected:
                return text
        return ""

    lens = poll(counted, timeout=30, interval=0.5)
    shown = lens or "; ".join(code_lenses(page)) or "no code lens"
    screenshot(page, paths, "17-code-lens")
    title, inlink_rows, separator = "", [], None
    if lens:
        decoration = ".editor-group-container.active .monaco-editor .codelens-decoration a"
        page.locator(decoration, has_text=lens).first.click()
        heading = page.locator(".quick-input-widget .quick-input-title")
        poll(
            lambda: heading.is_visible() and heading.inner_text().strip(), timeout=15, interval=0.3
        )
        poll(lambda: quick_pick_items(page), timeout=10, interval=0.3)
        title = heading.inner_text().strip() if heading.is_visible() else ""
        screenshot(page, paths, "17-code-lens-links")
        rows = all_quick_pick_items(page)
        inlink_rows = [label for aria, label in rows.values() if aria.startswith("arrow-left")]
        found = re.search(r"inlinks \((\d+)\)", " ".join(aria for aria, _ in rows.values()))
        separator = int(found.group(1)) if found else None
        page.keyboard.press("Escape")
    closed = bool(poll(lambda: not page.locator(".quick-input-widget").is_visible(), 5, 0.2))
    links = sum(len(found) for found in sources.values())
    ok = (
        bool(lens)
        and title.startswith(f"Links of {LENS_NOTE}")
        and sorted(set(inlink_rows)) == sorted(sources)
        and len(inlink_rows) == links == separator
        and closed
    )
    detail = (
        f"{note}: lens {shown!r} (the fixture: {inlinks} inlinks from {links} links, {outlinks} "
        f"outlinks, {unresolved} unresolved); click -> quick pick {title!r} with {len(inlink_rows)} "
        f"inlink rows (separator says {separator}) from {sorted(set(inlink_rows))}; closed: {closed}"
    )
    return results.record("code-lens", ok, detail)


def modal_dialog(page: Page) -> Locator | None:
    dialog = page.locator(".monaco-dialog-box")
    return dialog.first if dialog.count() and dialog.first.is_visible() else None


def answer_dialogs(
    page: Page, paths: Paths, shot: str, done: Callable[[], bool], timeout: float
) -> tuple[bool, list[str]]:
    """Waits until done(); VS Code asks (a modal) before it applies the edits an extension returns
    for a file move: OK, the button a user presses (its default). Any other dialog is closed
    unanswered. Returns whether done() came true and the dialogs' texts."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        dialog = modal_dialog(page)
        if dialog is not None:
            parts = dialog.locator(".dialog-message-text, .dialog-message-detail").all_inner_texts()
            buttons = dialog.locator(".dialog-buttons .monaco-button").all_inner_texts()
            text = " ".join(" ".join(parts).split())
            seen.append(f"{text} [{' | '.join(button.strip() for button in buttons)}]")
            screenshot(page, paths, shot)
            if "wants to make refactoring changes" in text:
                dialog.locator(".monaco-button", has_text=re.compile(r"^OK$")).click()
            else:
                page.keyboard.press("Escape")
            poll(lambda: modal_dialog(page) is None, timeout=5, interval=0.2)
            continue
        if done():
            return True, seen
        time.sleep(0.3)
    return bool(done()), seen


def relink_problems(
    before: dict[str, bytes], after: dict[str, bytes], old: str, new: str, title: bool = False
) -> list[str]:
    """What is wrong with the vault after `old` was renamed to `new`: the file is not moved as it
    was (with `title`, its first H1 may have become the new name), a file changed that has no link
    to it, a link to it not rewritten, or something else on a link's line changed. A wikilink keeps
    its shape: `[[folder/name]]` gets the new name after the same folders, `[[name]]` the new name."""
    problems = []
    if old in after:
        problems.append(f"{old} is still there")
    if new not in after:
        return [*problems, f"no {new}"]
    was = before[old].decode("utf-8").splitlines()
    now = after[new].decode("utf-8").splitlines()
    h1 = next((n for n, line in enumerate(was) if line.startswith("# ")), None)
    if title and h1 is not None and h1 < len(now) and now[h1] == "# " + new_stem(new):
        now[h1] = was[h1]
    if now != was:
        changed = [line for line in now if line not in was]
        problems.append(f"{new} is not {old} as it was: {changed[:3]}")
    linking = links_to(before, old)
    for path in sorted((set(before) | set(after)) - {old, new}):
        if path in linking:
            problems += line_problems(
                path, before[path], after.get(path, b""), linking[path], set(after), new
            )
        elif before.get(path) != after.get(path):
            problems.append(f"{path} changed (it has no link to {old})")
    return problems


def targets_by_note(links: dict[str, list[LinkAt]]) -> dict[str, list[str]]:
    """For a report: each note's link targets as written."""
    return {path: sorted({link.written for link in found}) for path, found in sorted(links.items())}


def new_stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def line_problems(
    path: str, before: bytes, after: bytes, links: list[LinkAt], files: set[str], new: str
) -> list[str]:
    """What is wrong on a note's lines: only the lines with `links` may change, and on them only
    these links' targets, each now leading to `new`."""
    old_lines, new_lines = before.decode("utf-8").splitlines(), after.decode("utf-8").splitlines()
    if len(old_lines) != len(new_lines):
        return [f"{path} has {len(new_lines)} lines, had {len(old_lines)}"]
    problems = []
    for number, (was, now) in enumerate(zip(old_lines, new_lines, strict=True)):
        olds = [link for link in links if link.line == number]
        if not olds:
            if was != now:
                problems.append(f"{path}:{number + 1} changed: {now!r}")
            continue
        news = [link for link in links_in(now) if resolve_link(files, path, link.target) == new]
        same = len(news) == len(olds) and blanked(was, olds) == blanked(now, news)
        if not same or any(a.anchor != b.anchor for a, b in zip(olds, news, strict=True)):
            problems.append(f"{path}:{number + 1} is {now!r} (was {was!r})")
            continue
        for was_link, now_link in zip(olds, news, strict=True):
            folders = was_link.target.rpartition("/")[0]
            suffix = ".md" if was_link.target.lower().endswith(".md") else ""
            shape = (folders + "/" if folders else "") + new_stem(new) + suffix
            if was_link.wiki and now_link.target != shape:
                problems.append(
                    f"{path}:{number + 1}: [[{was_link.target}]] became [[{now_link.target}]]"
                )
    return problems


def blanked(line: str, links: list[LinkAt]) -> str:
    """The line with these links' targets taken out: what must not change."""
    for link in sorted(links, key=lambda link: link.start, reverse=True):
        line = line[: link.start] + "\x00" + line[link.end :]
    return line


def link_position(page: Page, target: str) -> dict[str, float] | None:
    """Where a link's target shows in the editor (the editor renders spaces as no-break spaces)."""
    return text_position(page, target.replace(" ", "\u00a0"))


def go_to_line(page: Page, line: int) -> None:
    """Ctrl+G: the line (1-based) in the middle of the active editor, the cursor on it."""
    focus_editor(page)
    page.keyboard.press("Control+G")
    quick_input = page.locator(".quick-input-widget input")
    quick_input.wait_for(state="visible", timeout=15_000)
    quick_input.fill(f":{line}")
    page.keyboard.press("Enter")
    poll(lambda: cursor_line(page) == line, timeout=5, interval=0.2)


def dirty_tabs(page: Page) -> list[str]:
    tabs = page.locator(".tabs-container .tab.dirty")
    return ["".join(tabs.nth(i).inner_text().split()) for i in range(tabs.count())]


def settle_rename(
    page: Page, paths: Paths, check: Callable[[], list[str]]
) -> tuple[list[str], str]:
    """Waits until the vault copy passes `check` with no editor left dirty (code-server saves on
    its own: `files.autoSave` is `afterDelay` in a browser); if it does not, File: Save All and
    waits again. Returns the problems left and how the edits were saved."""

    def settled() -> bool:
        return not dirty_tabs(page) and not check()

    if poll(settled, timeout=15, interval=0.5):
        return [], "saved by auto save"
    dirty = dirty_tabs(page)
    if dirty:
        run_command(page, "File: Save All")
        if poll(settled, timeout=10, interval=0.5):
            return [], f"saved by File: Save All ({dirty} were dirty)"
    return check(), f"dirty tabs: {dirty_tabs(page) or 'none'}"


# Linked to as [[tantivy]] (bm25.md), [[search/tantivy]] (index.md), [Tantivy](./tantivy.md).
RENAMED = "search/tantivy.md"
RENAMED_TO = "tantivy engine.md"


def explorer_row(page: Page, name: str, level: int) -> Locator:
    return page.locator(
        f'.explorer-folders-view .monaco-list-row[aria-level="{level}"][aria-label="{name}"]'
    )


def check_explorer_rename(page: Page, paths: Paths, results: Results) -> bool:
    """A note others link to renamed in the Explorer as a user does it (select, F2, the new name,
    Enter): VS Code asks memlsp (workspace/willRenameFiles) for the edits that keep the links, asks
    the user about them, applies them; a rewritten link then leads to the renamed note."""
    before = vault_texts(paths.vault)
    folder, name = RENAMED.rsplit("/", 1)
    new = f"{folder}/{RENAMED_TO}"
    linking = links_to(before, RENAMED)
    # A note that links to it open in an editor: its buffer is edited, not only the file.
    open_note(page, PREVIEW_NOTE)
    run_command(page, "View: Show Explorer")
    row = explorer_row(page, name, folder.count("/") + 2)
    if not row.count():
        explorer_row(page, folder, folder.count("/") + 1).click()
    row.click()
    page.keyboard.press("F2")
    box = page.locator(".explorer-folders-view .monaco-inputbox input")
    box.wait_for(state="visible", timeout=15_000)
    proposed = box.input_value()
    box.fill(RENAMED_TO)
    screenshot(page, paths, "18-explorer-rename")
    box.press("Enter")
    moved, dialogs = answer_dialogs(
        page,
        paths,
        "18-explorer-rename-dialog",
        lambda: not (paths.vault / RENAMED).exists() and (paths.vault / new).exists(),
        30,
    )
    problems, saved = settle_rename(
        page, paths, lambda: relink_problems(before, vault_texts(paths.vault), RENAMED, new)
    )
    toasts = notification_toasts(page)
    screenshot(page, paths, "18-explorer-renamed")
    run_command(page, "View: Close Primary Side Bar")

    # Back in the editor: F12 on a rewritten link opens the renamed note.
    source = PREVIEW_NOTE if PREVIEW_NOTE in linking or not linking else sorted(linking)[0]
    written = links_in((paths.vault / source).read_text(encoding="utf-8"))
    targets = [link for link in written if link.wiki and new_stem(new) in link.target]
    opened, tab = False, ""
    open_note(page, source)
    if targets:
        go_to_line(page, targets[0].line + 1)
    position = link_position(page, targets[0].target) if targets else None
    if position is not None:
        page.mouse.click(position["x"], position["y"])
        page.keyboard.press("F12")
        opened = wait_active_tab(page, "".join(RENAMED_TO.split()), timeout=20)
        tab = active_tab_title(page)
    screenshot(page, paths, "18-explorer-rename-definition")
    rewritten = targets_by_note(links_to(vault_texts(paths.vault), new))
    ok = (
        moved
        and not problems
        and len(dialogs) <= 1
        and all("memlsp" in d for d in dialogs)
        and opened
    )
    detail = (
        f"{RENAMED} -> {RENAMED_TO} in the Explorer (F2 proposed {proposed!r}); dialogs: "
        f"{dialogs or 'none'} (answered OK); moved: {moved}; {saved}; "
        f"links before {targets_by_note(linking)}, after {rewritten}; "
        f"problems: {problems or 'none'}; notifications: {toasts or 'none'}; "
        f"F12 on [[{targets[0].target if targets else '?'}]] in {source}: active tab {tab!r}"
    )
    return results.record("explorer-rename", ok, detail)


SYMBOL_SOURCE = "index.md"
# [[zettelkasten]] in index.md: pkm/zettelkasten.md, linked to from 4 notes, once with a heading.
SYMBOL_LINK = "zettelkasten"
SYMBOL_NEW_NAME = "zettelkasten method"


def check_rename_symbol(page: Page, paths: Paths, results: Results) -> bool:
    """F2 on a wikilink, the note's new name, Enter: memlsp's textDocument/rename edits every link
    and renames the file (a RenameFile VS Code applies, after the text edits)."""
    before = vault_texts(paths.vault)
    old = resolve_link(set(before), SYMBOL_SOURCE, SYMBOL_LINK) or SYMBOL_LINK
    new = old.rpartition("/")[0] + "/" + SYMBOL_NEW_NAME + ".md"
    linking = links_to(before, old)
    line = next(
        link.line
        for link in links_in(before[SYMBOL_SOURCE].decode("utf-8"))
        if link.target == SYMBOL_LINK
    )
    open_note(page, SYMBOL_SOURCE)
    go_to_line(page, line + 1)
    position = link_position(page, SYMBOL_LINK)
    if position is None:
        return results.record("rename-symbol", False, f"no [[{SYMBOL_LINK}]] in the editor")
    page.mouse.click(position["x"], position["y"])
    page.keyboard.press("F2")
    box = page.locator(".rename-box input.rename-input")
    box.wait_for(state="visible", timeout=15_000)
    proposed = poll(lambda: box.input_value(), timeout=10, interval=0.2)
    box.fill(SYMBOL_NEW_NAME)
    screenshot(page, paths, "19-rename-symbol")
    box.press("Enter")
    moved, dialogs = answer_dialogs(
        page,
        paths,
        "19-rename-symbol-dialog",
        lambda: not (paths.vault / old).exists() and (paths.vault / new).exists(),
        30,
    )
    problems, saved = settle_rename(
        page, paths, lambda: relink_problems(before, vault_texts(paths.vault), old, new, title=True)
    )
    screenshot(page, paths, "19-rename-symbol-done")
    after = vault_texts(paths.vault)
    rewritten = targets_by_note(links_to(after, new))
    ok = moved and not problems and proposed == SYMBOL_LINK
    detail = (
        f"F2 on [[{SYMBOL_LINK}]] in {SYMBOL_SOURCE} (proposed {proposed!r}) -> {SYMBOL_NEW_NAME!r}: "
        f"{old} -> {new} moved: {moved}; dialogs: {dialogs or 'none'} (answered OK); {saved}; "
        f"{len(linking)} notes linked to it, links now {rewritten}; problems: {problems or 'none'}"
    )
    return results.record("rename-symbol", ok, detail)


# --- Related notes and unlinked mentions ----------------------------------------------------

RELATED_NOTE = "search/bm25.md"
RELATED_VIEW = "Related notes"
# Added to the main run's vault copy: a note whose name another note writes as plain text.
MENTIONED = "ml/word2vec.md"
MENTIONED_NAME = "word2vec"
MENTIONING = "inbox/word-vectors.md"
MENTION_NOTES = {
    MENTIONED: "# word2vec\n\nA shallow network that learns a vector per word from the words around it.\n",
    MENTIONING: (
        "# Word vectors\n\n"
        "Read the word2vec paper again before comparing it with [[embeddings]].\n\n"
        "- does word2vec handle Chinese text without segmenting it first?\n"
    ),
}
UNLINKED_LENS = re.compile(r"^(\d+) unlinked\b")

RELATED_PANE_JS = """(name) => {
    for (const pane of document.querySelectorAll('.pane')) {
        const header = pane.querySelector('.pane-header');
        if (header && (header.innerText || '').trim().toLowerCase().startsWith(name.toLowerCase())) {
            const rows = [...pane.querySelectorAll('.monaco-list-row')].map((row) => {
                const label = row.querySelector('.label-name');
                const description = row.querySelector('.label-description');
                return [label ? label.innerText.trim() : '', description ? description.innerText.trim() : ''];
            });
            const message = pane.querySelector('.message');
            return {found: true, rows, message: message ? (message.innerText || '').trim() : ''};
        }
    }
    return {found: false, rows: [], message: ''};
}"""


def related_pane(page: Page) -> tuple[bool, list[tuple[str, str]], str]:
    """Whether the Explorer shows the Related notes pane, its rows (label, description), its message."""
    found = page.evaluate(RELATED_PANE_JS, RELATED_VIEW)
    rows = [(str(label), str(description)) for label, description in found["rows"]]
    return bool(found["found"]), rows, str(found["message"])


def show_related_view(page: Page) -> None:
    # VS Code's own command for every view: "<container>: Focus on <view name> View".
    run_command(page, f"Explorer: Focus on {RELATED_VIEW} View")


def check_related_view(page: Page, paths: Paths, results: Results) -> bool:
    """With a note open, the Explorer's Related notes view lists the notes closest to it."""
    note = RELATED_NOTE.rsplit("/", 1)[-1]
    open_note(page, note)
    show_related_view(page)
    # Vectors are made by now (the search check waited for them); allow a first answer's time.
    shown = poll(lambda: related_pane(page)[1], timeout=60, interval=1)
    found, rows, message = related_pane(page)
    screenshot(page, paths, "20-related-view")
    ok = found and bool(shown) and bool(rows)
    detail = (
        f"{RELATED_NOTE}: pane shown: {found}; {len(rows)} rows {rows[:6]}; "
        f"message {message or 'none'!r}"
    )
    return results.record("related-view", ok, detail)


def note_title(text: str, path: str) -> str:
    """A note's title as the server gives it, near enough: its frontmatter title, else its first
    H1, else its file name."""
    found = re.search(r"^title:\s*(.+)$", text, re.MULTILINE) or re.search(
        r"^# (.+)$", text, re.MULTILINE
    )
    return found.group(1).strip().strip("\"'") if found else new_stem(path)


def check_insert_link(page: Page, paths: Paths, results: Results) -> bool:
    """A row's inline Insert link button writes `[[…]]` at the cursor of the note the view is
    about (here on bm25.md's empty last line); the link leads to the row's note. Undone after."""
    note = RELATED_NOTE.rsplit("/", 1)[-1]
    open_note(page, note)
    focus_editor(page)
    page.keyboard.press("Control+End")
    before_line = last_line(page)
    original = (paths.vault / RELATED_NOTE).read_bytes()
    show_related_view(page)
    poll(lambda: related_pane(page)[1], timeout=30, interval=1)
    _, rows, _ = related_pane(page)
    label = rows[0][0] if rows else ""
    row = page.locator(
        ".pane", has=page.locator(".pane-header", has_text=re.compile(RELATED_VIEW, re.I))
    )
    row = row.locator(".monaco-list-row").first
    clicked = False
    if rows:
        row.hover()
        button = row.locator('.action-label[aria-label="Insert link"]')
        button.wait_for(state="visible", timeout=10_000)
        button.click()
        clicked = True
    written = poll(
        lambda: (
            (line := last_line(page)) != before_line and WIKILINK.fullmatch(line or "") and line
        ),
        timeout=10,
        interval=0.3,
    )
    line = last_line(page) or ""
    tab = active_tab_title(page)
    screenshot(page, paths, "21-insert-link")
    texts = vault_texts(paths.vault)
    target = line[2:-2].split("|")[0] if written else ""
    leads_to = resolve_link(set(texts), RELATED_NOTE, target) if target else None
    title = note_title(texts[leads_to].decode("utf-8"), leads_to) if leads_to else ""
    # Undo: the note is the vault copy's again (code-server saves after a delay).
    focus_editor(page)
    undone = 0
    while last_line(page) != before_line and undone < 5:
        page.keyboard.press("Control+Z")
        undone += 1
        time.sleep(0.3)
    restored = bool(
        poll(
            lambda: (
                not active_tab_dirty(page) and (paths.vault / RELATED_NOTE).read_bytes() == original
            ),
            timeout=15,
            interval=0.5,
        )
    )
    ok = clicked and bool(written) and leads_to is not None and title == label and tab == note
    detail = (
        f"Insert link on row {label!r} with the cursor on {note}'s last line {before_line!r}: "
        f"the line is now {line!r} (active tab {tab!r}), leading to {leads_to} titled {title!r}; "
        f"{undone} undo(s), the file is as before: {restored}"
    )
    return results.record("insert-link", ok, detail)


def check_link_all(page: Page, paths: Paths, results: Results) -> bool:
    """The `N unlinked` lens on a note's first line opens its unlinked mentions; the first row,
    Link all, makes every mention a link: the mentioning note now links to it, nothing else in it
    changed."""
    before = (paths.vault / MENTIONING).read_text(encoding="utf-8")
    plain = before.count(MENTIONED_NAME)
    open_note(page, MENTIONED.rsplit("/", 1)[-1])

    def lens() -> str:
        return next((text for text in code_lenses(page) if UNLINKED_LENS.match(text)), "")

    shown = poll(lens, timeout=30, interval=0.5)
    lenses = code_lenses(page)
    screenshot(page, paths, "22-unlinked-lens")
    if shown:
        decoration = ".editor-group-container.active .monaco-editor .codelens-decoration a"
        page.locator(decoration, has_text=shown).first.click()
    else:
        run_command(page, "memlsp: Show Unlinked Mentions")
    heading = page.locator(".quick-input-widget .quick-input-title")
    poll(lambda: heading.is_visible() and heading.inner_text().strip(), timeout=15, interval=0.3)
    items = poll(lambda: quick_pick_items(page), timeout=10, interval=0.3) or {}
    title = heading.inner_text().strip() if heading.is_visible() else ""
    screenshot(page, paths, "22-unlinked-picker")
    first = items.get(1, ("", ""))[1]
    if first.startswith("Link all"):
        page.keyboard.press("Enter")
    else:
        page.keyboard.press("Escape")
    linked = f"[[{MENTIONED_NAME}]]"

    def done() -> bool:
        after = (paths.vault / MENTIONING).read_text(encoding="utf-8")
        return linked in after and after.replace(linked, MENTIONED_NAME) == before

    saved = "saved by VS Code"
    if not poll(done, timeout=15, interval=0.5):
        run_command(page, "File: Save All")
        saved = f"saved by File: Save All (dirty tabs: {dirty_tabs(page) or 'none'})"
        poll(done, timeout=10, interval=0.5)
    after = (paths.vault / MENTIONING).read_text(encoding="utf-8")
    screenshot(page, paths, "22-link-all")
    ok = first.startswith("Link all") and done()
    detail = (
        f"{MENTIONED}: lenses {lenses}; picker {title!r}, first row {first!r}; {MENTIONING} "
        f"had {plain} plain {MENTIONED_NAME!r}, now {after.count(linked)} {linked} ({saved}); "
        f"only those changed: {after.replace(linked, MENTIONED_NAME) == before}"
    )
    return results.record("link-all", ok, detail)


# --- Nothing doubled next to the built-in Markdown features ---------------------------------

INDEX_HEADINGS = ("Home", "This week", "Search engines", "Notes on notes", "Kitchen & travel")
REFERENCE_NEEDLE = "bm25"  # first in index.md on line 14: "- Re-read [[bm25]] and compare it ..."
REFERENCE_LINE = "Re-read [[bm25]]"
SYMBOL_QUERY = "Fusion"  # search/hybrid-search.md: "## Fusion", "### Reciprocal Rank Fusion"


def heading_text(label: str) -> str:
    """A heading as either side names it: "## Fusion" (built-in), "Hybrid search › Fusion" (memlsp).
    VS Code marks a row whose section has problems (memlsp's diagnostics) with an icon (a private-use
    codicon character) or their count after the name: neither is part of the heading."""
    label = re.sub(r"[\ue000-\uf8ff]", "", label).strip()
    label = re.sub(r"\s+\d+$", "", label)
    return re.sub(r"^#+\s*", "", label.split(" › ")[-1]).strip()


def heading_counts(labels: list[str]) -> dict[str, int]:
    return {
        heading: sum(heading_text(label) == heading for label in labels)
        for heading in INDEX_HEADINGS
    }


def focus_editor(page: Page) -> None:
    page.keyboard.press("Escape")
    page.locator(".monaco-editor .view-lines").first.click()


def touch_document(page: Page) -> None:
    """Type a space at the end and take it back: VS Code keeps a note's symbols until it changes, and
    a provider that answered while the vault was still opening would otherwise never be asked again."""
    focus_editor(page)
    page.keyboard.press("Control+End")
    page.keyboard.type(" ")
    page.keyboard.press("Backspace")
    time.sleep(2)


def outline_rows(page: Page) -> list[str]:
    rows = page.evaluate(
        """() => {
            for (const pane of document.querySelectorAll('.pane')) {
                const header = pane.querySelector('.pane-header');
                if (header && /^\\s*outline/i.test(header.innerText || '')) {
                    return [...pane.querySelectorAll('.monaco-list-row')].map(
                        (row) => (row.innerText || '').replace(/\\s+/g, ' ').trim());
                }
            }
            return [];
        }"""
    )
    return [str(row) for row in rows]


def check_outline(page: Page, paths: Paths, results: Results, prefix: str = "") -> bool:
    open_note(page, "index.md")
    touch_document(page)
    run_command(page, "Explorer: Focus on Outline View")

    def settled() -> list[str]:
        rows = outline_rows(page)
        return rows if all(heading_counts(rows).values()) else []

    rows = poll(settled, timeout=20, interval=1) or outline_rows(page)
    time.sleep(1)  # a second provider's answer would have arrived by now
    rows = outline_rows(page)
    screenshot(page, paths, f"{prefix}06-outline")
    counts = heading_counts(rows)
    groups = [row for row in rows if row in ("memlsp", "Markdown Language Features")]
    ok = all(n == 1 for n in counts.values()) and not groups
    run_command(page, "View: Close Primary Side Bar")
    return results.record(
        f"{prefix}outline", ok, f"{len(rows)} rows {rows}; provider groups: {groups or 'none'}"
    )


def quick_pick_labels(page: Page) -> dict[int, tuple[str, str]]:
    """(label, description) of each rendered quick pick row, by position."""
    rows = page.evaluate(
        """() => {
            const rows = {};
            for (const row of document.querySelectorAll('.quick-input-widget .quick-input-list .monaco-list-row')) {
                const at = Number(row.getAttribute('aria-posinset') || 0);
                const label = row.querySelector('.label-name');
                const description = row.querySelector('.label-description');
                if (at > 0) rows[at] = [label ? label.innerText.trim() : '', description ? description.innerText.trim() : ''];
            }
            return rows;
        }"""
    )
    return {int(at): (str(label), str(description)) for at, (label, description) in rows.items()}


def check_quick_outline(page: Page, paths: Paths, results: Results) -> bool:
    open_note(page, "index.md")
    touch_document(page)
    page.keyboard.press("Control+Shift+O")
    rows = poll(lambda: quick_pick_labels(page), timeout=10, interval=0.5) or {}
    time.sleep(1.5)
    rows = quick_pick_labels(page)
    screenshot(page, paths, "07-quick-outline")
    labels = [label for label, _ in rows.values()]
    counts = heading_counts(labels)
    page.keyboard.press("Escape")
    ok = all(n == 1 for n in counts.values()) and len(labels) == len(INDEX_HEADINGS)
    return results.record("quick-outline", ok, f"Ctrl+Shift+O rows {labels}")


def peek_references(page: Page) -> tuple[str, list[tuple[int, str]]]:
    """The references peek: its title and its rows as (tree level, text)."""
    title, rows = page.evaluate(
        """() => {
            const widget = document.querySelector('.peekview-widget');
            if (!widget) return ['', []];
            const head = widget.querySelector('.peekview-title');
            const rows = [...widget.querySelectorAll('.monaco-list-row')].map((row) =>
                [Number(row.getAttribute('aria-level') || 0), (row.innerText || '').replace(/\\s+/g, ' ').trim()]);
            return [head ? head.innerText.replace(/\\s+/g, ' ').trim() : '', rows];
        }"""
    )
    return str(title), [(int(level), str(text)) for level, text in rows]


def check_references(page: Page, paths: Paths, results: Results, prefix: str = "") -> bool:
    open_note(page, "index.md")
    focus_editor(page)
    position = text_position(page, REFERENCE_NEEDLE)
    if position is None:
        return results.record(
            f"{prefix}references", False, f"no {REFERENCE_NEEDLE!r} in the editor"
        )
    page.mouse.click(position["x"], position["y"])
    page.keyboard.press("Shift+F12")
    poll(lambda: "References (" in peek_references(page)[0], timeout=20, interval=0.5)
    time.sleep(1)
    title, rows = peek_references(page)
    screenshot(page, paths, f"{prefix}08-references")
    page.keyboard.press("Escape")
    total = re.search(r"References \((\d+)\)", title)
    per_file = [
        int(m.group(1)) for level, text in rows if level == 1 and (m := re.search(r"(\d+)$", text))
    ]
    here = [text for level, text in rows if level == 2 and REFERENCE_LINE in text]
    ok = (
        bool(total)
        and len(here) == 1
        and total is not None
        and sum(per_file) == int(total.group(1))
    )
    return results.record(
        f"{prefix}references",
        ok,
        f"{title.split(' - ')[-1]!r}; the line under the cursor listed {len(here)} time(s); "
        f"files {[text for level, text in rows if level == 1]}",
    )


def check_workspace_symbols(page: Page, paths: Paths, results: Results) -> bool:
    focus_editor(page)
    page.keyboard.press("Control+T")
    quick_input = page.locator(".quick-input-widget input")
    quick_input.wait_for(state="visible", timeout=15_000)
    page.keyboard.type(SYMBOL_QUERY)
    poll(lambda: quick_pick_labels(page), timeout=15, interval=0.5)
    time.sleep(3)  # the slower provider's answer too
    rows = quick_pick_labels(page)
    screenshot(page, paths, "09-workspace-symbols")
    page.keyboard.press("Escape")
    # memlsp's rows say "path • container": the place is the file and the heading.
    places = [
        (heading_text(label), description.split(" • ")[0]) for label, description in rows.values()
    ]
    doubled = sorted({place for place in places if places.count(place) > 1})
    ok = bool(places) and not doubled
    shown = [f"{label} ({description})" for label, description in rows.values()]
    return results.record(
        "workspace-symbols", ok, f"Ctrl+T {SYMBOL_QUERY!r}: {shown}; twice: {doubled or 'none'}"
    )


# --- Settings, restart and the output channel ----------------------------------------------


def check_settings_ui(page: Page, paths: Paths, results: Results) -> bool:
    editor = open_user_setting(page, "memlsp.pythonPath")

    def listed() -> str:
        text = editor.inner_text()
        return text if "Python Path" in text else ""

    text = poll(listed, timeout=10, interval=0.5) or editor.inner_text()
    screenshot(page, paths, "10-settings-user")
    ok = "Python Path" in text and "No Settings Found" not in text
    close_settings(page, editor)
    return results.record(
        "settings-ui",
        ok,
        "User settings list memlsp.pythonPath" if ok else f"settings editor says {text[:200]!r}",
    )


def check_fusion_setting(page: Page, paths: Paths, results: Results) -> bool:
    """The fusion rule is a setting a user finds and picks from a list."""
    editor = open_user_setting(page, "memlsp.fusion")

    def listed() -> str:
        text = editor.inner_text()
        return text if "Fusion" in text and "evidence" in text else ""

    text = poll(listed, timeout=10, interval=0.5) or editor.inner_text()
    screenshot(page, paths, "10-settings-fusion")
    ok = "Fusion" in text and "evidence" in text and "rrf" in text
    close_settings(page, editor)
    return results.record(
        "settings-fusion",
        ok,
        "User settings list memlsp.fusion with its two rules, evidence and rrf"
        if ok
        else f"settings editor says {text[:300]!r}",
    )


def notification_toasts(page: Page) -> list[str]:
    toasts = page.evaluate(
        """() => [...document.querySelectorAll('.notifications-toasts .notification-toast')]
            .map((toast) => (toast.innerText || '').replace(/\\s+/g, ' ').trim())"""
    )
    return [str(toast) for toast in toasts]


def check_restart(page: Page, paths: Paths, results: Results, prefix: str = "") -> bool:
    run_command(page, "memlsp: Restart Server")
    said = poll(
        lambda: [t for t in notification_toasts(page) if "memlsp" in t and "running" in t],
        timeout=60,
        interval=0.5,
    )
    screenshot(page, paths, f"{prefix}11-restart")
    ready = wait_ready(page, timeout=120)
    detail = (
        f"message {said[0][:200]!r}" if said else f"no message; toasts {notification_toasts(page)}"
    )
    return results.record(
        f"{prefix}restart", bool(said) and bool(ready), f"{detail}; status {ready}"
    )


def memlsp_log(paths: Paths) -> str:
    """The memlsp output channel, as code-server writes it to disk (every restart included)."""
    logs = sorted(paths.user_data.glob("logs/*/exthost*/memlsp.memlsp/memlsp.log"))
    return "".join(log.read_text(encoding="utf-8", errors="replace") for log in logs)


def check_output_clean(paths: Paths, results: Results, prefix: str = "") -> bool:
    text = memlsp_log(paths)
    bad = [
        line
        for line in text.splitlines()
        if "[error]" in line or "Token is already registered" in line
    ]
    detail = f"{len(text.splitlines())} lines, " + (
        f"bad: {bad[:3]}" if bad else "no [error], no 'Token is already registered'"
    )
    return results.record(f"{prefix}output-clean", bool(text) and not bad, detail)


@contextmanager
def browser_page(paths: Paths, results: Results, prefix: str = "") -> Iterator[Page]:
    """A headless Chromium page; any browser error is a failed check, with a screenshot."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(30_000)
        try:
            yield page
        except Exception as error:  # any browser error is a failed run
            with suppress(Exception):
                screenshot(page, paths, f"{prefix}99-error")
            results.record(f"{prefix}browser", False, f"{type(error).__name__}: {error}")
        finally:
            browser.close()


def open_index(page: Page, url: str, paths: Paths, results: Results, prefix: str = "") -> bool:
    open_workbench(page, url, paths)
    screenshot(page, paths, f"{prefix}00-workbench")
    opened = open_note(page, "index.md")
    screenshot(page, paths, f"{prefix}01-index")
    return results.record(f"{prefix}open", opened, f"active tab: {active_tab_title(page)!r}")


def run_checks(url: str, paths: Paths, results: Results) -> None:
    with browser_page(paths, results) as page:
        if not open_index(page, url, paths, results):
            return
        check_server(page, paths, results)
        check_settings_ui(page, paths, results)
        check_fusion_setting(page, paths, results)
        check_outline(page, paths, results)
        check_quick_outline(page, paths, results)
        check_references(page, paths, results)
        check_workspace_symbols(page, paths, results)
        open_note(page, "index.md")
        check_hover(page, paths, results)
        check_definition(page, paths, results)
        check_preview_wikilinks(page, paths, results)
        check_completion(page, paths, results)
        check_search(page, paths, results)
        page.keyboard.press("Escape")
        check_restart(page, paths, results)
        # Last: the renames change the vault copy.
        check_code_lens(page, paths, results)
        check_explorer_rename(page, paths, results)
        check_rename_symbol(page, paths, results)
        check_related_view(page, paths, results)
        check_insert_link(page, paths, results)
        check_link_all(page, paths, results)
        check_graph(page, paths, results)
    check_output_clean(paths, results)


# --- The graph view ----------------------------------------------------------------------------

GRAPH_NOTE = "search/bm25.md"
GRAPH_CLICK = "search/inverted-index.md"  # bm25.md links to it and it links back
# What the extension logs when the page has drawn a graph's first frame (src/graph/frames.ts).
GRAPH_FRAME = re.compile(
    r"graph of (?P<note>.+?) at depth (?P<depth>\d): (?P<nodes>\d+) nodes, (?P<edges>\d+) edges; "
    r"answered in (?P<answer>\d+) ms, first frame drawn (?P<draw>\d+) ms after the answer reached "
    r"the page \((?P<total>\d+) ms after the question\)"
)
GRAPH_SETTLED = re.compile(
    r"graph of (?P<note>.+?): layout settled after (?P<ticks>\d+) ticks, (?P<ms>\d+) ms; "
    r"slowest frame (?P<slowest>\d+) ms"
)


def graph_frames(paths: Paths) -> list[dict[str, str]]:
    """Each first frame drawn so far, as the memlsp output channel tells it."""
    return [found.groupdict() for found in GRAPH_FRAME.finditer(memlsp_log(paths))]


def graph_settled(paths: Paths) -> list[dict[str, str]]:
    return [found.groupdict() for found in GRAPH_SETTLED.finditer(memlsp_log(paths))]


def graph_webview(page: Page) -> Frame | None:
    """The graph view's page (an iframe in an iframe, as every webview)."""
    for frame in page.frames:
        with suppress(Exception):  # a frame may go away while it is asked
            if frame.evaluate("() => typeof window.memlspGraphNodes === 'function'"):
                return frame
    return None


GraphNode = dict[str, Any]


def graph_nodes(frame: Frame) -> list[GraphNode]:
    """The nodes drawn: id, look, x, y (CSS pixels from the canvas's corner), radius."""
    return cast("list[GraphNode]", frame.evaluate("() => window.memlspGraphNodes()"))


def graph_tooltip(frame: Frame) -> str:
    return str(
        frame.evaluate(
            """() => [...document.querySelectorAll('.float-tooltip-kap')]
                .filter((tip) => tip.style.display !== 'none')
                .map((tip) => tip.innerText).join('\\n')"""
        )
    )


def frame_after(
    paths: Paths, seen: int, note: str, depth: int | None = None
) -> dict[str, str] | None:
    """The first frame logged after the first `seen` ones, of a graph of `note` (at `depth`)."""
    for frame in graph_frames(paths)[seen:]:
        if frame["note"] == note and (depth is None or int(frame["depth"]) == depth):
            return frame
    return None


def check_graph(page: Page, paths: Paths, results: Results) -> bool:
    """memlsp: Show Graph on bm25.md: its graph is drawn beside the editor, the note in the middle;
    hovering a neighbour names it, a click opens it in the editor and the graph follows it."""
    seen = len(graph_frames(paths))
    open_note(page, GRAPH_NOTE.rsplit("/", 1)[-1])
    run_command(page, "memlsp: Show Graph")
    drawn = poll(lambda: frame_after(paths, seen, GRAPH_NOTE), timeout=60, interval=0.5)
    frame = cast("Frame | None", poll(lambda: graph_webview(page), timeout=30, interval=0.5))
    settled = frame is not None and poll(
        lambda: frame.evaluate("() => document.body.dataset.settled === 'true'"), 30, 0.5
    )
    time.sleep(0.8)  # the view's last fit is animated
    screenshot(page, paths, "23-graph")
    nodes = graph_nodes(frame) if frame is not None else []
    centre = [node["id"] for node in nodes if node["look"] == "centre"]
    target = next((node for node in nodes if node["id"] == GRAPH_CLICK), None) or next(
        (node for node in nodes if node["look"] == "note"), None
    )
    tip, opened, followed = "", False, None
    if frame is not None and target is not None:
        canvas = frame.locator("#graph canvas").first
        at: Position = {"x": float(target["x"]), "y": float(target["y"])}
        # force-graph finds the node under the pointer on its next frame: hover, then click.
        canvas.hover(position=at)
        tip = str(poll(lambda: graph_tooltip(frame), timeout=5, interval=0.25) or "")
        screenshot(page, paths, "23-graph-hover")
        seen = len(graph_frames(paths))
        canvas.click(position=at)
        opened = wait_active_tab(page, str(target["id"]).rsplit("/", 1)[-1], timeout=15)
        followed = poll(
            lambda: frame_after(paths, seen, str(target["id"])), timeout=30, interval=0.5
        )
        time.sleep(1)
        screenshot(page, paths, "23-graph-click")
        # The page takes the theme's colours: the same graph in the dark theme, then back.
        run_command(page, "Preferences: Toggle between Light/Dark Themes")
        time.sleep(2)
        screenshot(page, paths, "23-graph-dark")
        run_command(page, "Preferences: Toggle between Light/Dark Themes")
    ok = bool(drawn) and centre == [GRAPH_NOTE] and target is not None and opened and bool(followed)
    ok = ok and str(target["id"] if target else "") in tip
    detail = (
        f"{GRAPH_NOTE}: {drawn or 'no first frame logged'}; settled: {bool(settled)}; "
        f"{len(nodes)} nodes drawn, centre {centre}; hover on {target['id'] if target else None}: "
        f"{tip.splitlines()[:3]}; after the click the active tab is {active_tab_title(page)!r}, "
        f"the graph followed: {followed or 'no'}"
    )
    return results.record("graph", ok, detail)


def run_graph(paths: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    """The main run's setup with the graph check alone (quicker, while working on the view)."""
    reset_code_server_data(paths)
    prepare_vault(paths)
    write_user_settings(paths, main_settings(paths, python))
    install_vsix(paths, vsix)
    with code_server(paths, port or free_port()) as url, browser_page(paths, results) as page:
        if not open_index(page, url, paths, results):
            return
        check_server(page, paths, results)
        check_graph(page, paths, results)
    check_output_clean(paths, results)


# The speed check: the graph around the hub of a 10,000-note synthetic vault.
SPEED_NOTES = 10_000
SPEED_HUB = "Hub.md"  # linked from 5,000 notes
SPEED_DEPTH = 2
SPEED_DRAW_MS = 1000


def speed_paths(main: Paths) -> Paths:
    build = main.build / "graph10k"
    build.mkdir(parents=True, exist_ok=True)
    tools = build / "tools"
    if not tools.exists():
        tools.symlink_to(main.tools)
    return Paths(build, shots=main.screenshots)


def prepare_speed_vault(paths: Paths, python: str) -> None:
    """The synthetic vault, written once (the same files every time: it is deterministic)."""
    if (paths.vault / SPEED_HUB).exists():
        return
    if paths.vault.exists():
        shutil.rmtree(paths.vault)
    generator = REPO_DIR / "benchmarks" / "synthetic_vault.py"
    run([python, str(generator), str(paths.vault), "--notes", str(SPEED_NOTES), "--seed", "1"])


def run_graph10k(main: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    paths = speed_paths(main)
    prepare_speed_vault(paths, python)
    if paths.data.exists():
        shutil.rmtree(paths.data)  # a fresh profile; the index in build/graph10k/cache is kept
    settings = {
        "memlsp.pythonPath": python,
        "memlsp.cache_dir": str(paths.build / "cache"),
        "memlsp.embedder": "none",  # the drawing is measured: no 10,000 notes to embed first
        "memlsp.code_lens": False,
    }
    write_user_settings(paths, settings)
    install_vsix(paths, vsix)
    with code_server(paths, port or free_port()) as url, browser_page(paths, results) as page:
        open_workbench(page, url, paths)
        if not results.record("graph10k-open", open_note(page, SPEED_HUB), active_tab_title(page)):
            return
        ready = wait_ready(page, timeout=600)
        results.record(
            "graph10k-server", bool(ready), f"status {ready or memlsp_status_text(page)}"
        )
        check_graph10k(page, paths, results)


def check_graph10k(page: Page, paths: Paths, results: Results) -> bool:
    seen = len(graph_frames(paths))
    run_command(page, "memlsp: Show Graph")
    first = poll(lambda: frame_after(paths, seen, SPEED_HUB), timeout=120, interval=0.5)
    frame = cast("Frame | None", poll(lambda: graph_webview(page), timeout=30, interval=0.5))
    deeper = None
    if frame is not None and first is not None:
        seen = len(graph_frames(paths))
        frame.select_option("#depth", str(SPEED_DEPTH))
        deeper = poll(
            lambda: frame_after(paths, seen, SPEED_HUB, SPEED_DEPTH), timeout=120, interval=0.5
        )
    if deeper is not None:
        poll(lambda: len(graph_settled(paths)) >= 2, timeout=30, interval=0.5)
    time.sleep(1)
    screenshot(page, paths, "24-graph10k")
    settled = graph_settled(paths)[-1:] if deeper else []
    ok = deeper is not None and int(deeper["draw"]) <= SPEED_DRAW_MS
    if deeper is None:
        detail = f"no graph at depth {SPEED_DEPTH} of {SPEED_HUB} drawn; first: {first}"
    else:
        detail = (
            f"{SPEED_HUB} at depth {SPEED_DEPTH}: {deeper['nodes']} nodes, {deeper['edges']} edges; "
            f"server answered in {deeper['answer']} ms; first frame drawn {deeper['draw']} ms after "
            f"the answer reached the page (limit {SPEED_DRAW_MS} ms), {deeper['total']} ms after the "
            f"question; layout: {settled[0] if settled else 'not settled'}"
        )
    return results.record("graph10k", ok, detail)


# --- The newcomer's run: no settings, memlsp only in the folder's .venv ---------------------

NEWCOMER = "newcomer-"
PACKAGE_FILES = ("pyproject.toml", "README.md", "memlsp")


def newcomer_paths(main: Paths) -> Paths:
    build = main.build / "newcomer"
    build.mkdir(parents=True, exist_ok=True)
    tools = build / "tools"
    if not tools.exists():
        tools.symlink_to(main.tools)
    return Paths(build, shots=main.screenshots)


def install_into_vault_venv(paths: Paths, python: str) -> Path:
    """`python3 -m venv .venv && .venv/bin/pip install <checkout>` in the vault, as the README says.
    The checkout is a copy of the package's files: building in place would write to the repository."""
    checkout = paths.build / "memlsp-checkout"
    if checkout.exists():
        shutil.rmtree(checkout)
    checkout.mkdir()
    for name in PACKAGE_FILES:
        source = REPO_DIR / name
        if source.is_dir():
            shutil.copytree(source, checkout / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, checkout / name)
    venv = paths.vault / ".venv"
    run([python, "-m", "venv", str(venv)])
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    run([str(bin_dir / "pip"), "install", "--disable-pip-version-check", "-q", str(checkout)])
    return bin_dir / "python"


def path_without_memlsp(path: str) -> str:
    """PATH without the folders that hold a `memlsp` (the shell running this may have one)."""
    kept = [d for d in path.split(os.pathsep) if d and not (Path(d) / "memlsp").exists()]
    return os.pathsep.join(kept)


def newcomer_env(paths: Paths) -> dict[str, str]:
    env = node_env(paths)
    env["PATH"] = path_without_memlsp(env["PATH"])
    env.pop("VIRTUAL_ENV", None)
    # No memlsp.cache_dir setting: the index goes to the per-user cache, a fresh one here.
    env["XDG_CACHE_HOME"] = str(paths.build / "cache")
    return env


def login_shell_memlsp() -> str:
    """`memlsp` on the login shell's PATH, which the extension host may take its PATH from."""
    with suppress(OSError, subprocess.SubprocessError):
        found = subprocess.run(
            ["bash", "-lc", "command -v memlsp"], capture_output=True, text=True, timeout=20
        )
        return found.stdout.strip()
    return ""


def write_note(paths: Paths, number: int) -> Path:
    note = paths.vault / "inbox" / f"newcomer-{number}.md"
    note.write_text(
        f"# Written outside the editor, number {number}\n\n"
        f"A note the file watcher finds and the server indexes and embeds (run {number}).\n",
        encoding="utf-8",
    )
    return note


def notes_in_status(text: str) -> int | None:
    found = re.search(r"Ready: ([\d,]+) notes", text)
    return int(found.group(1).replace(",", "")) if found else None


def check_embedding_run(page: Page, paths: Paths, results: Results, number: int) -> bool:
    before = notes_in_status(memlsp_status_text(page)[0])
    write_note(paths, number)
    expect = f"Ready: {before + 1:,} notes" if before is not None else "Ready"
    seen_busy = poll(lambda: "sync~spin" in memlsp_status_text(page)[1], timeout=10, interval=0.2)
    ready = wait_ready(page, timeout=120, expect=expect)
    screenshot(page, paths, f"{NEWCOMER}12-embedding-{number}")
    detail = f"note {number} written; busy seen: {bool(seen_busy)}; status {ready or memlsp_status_text(page)}"
    return results.record(f"{NEWCOMER}embedding-{number}", bool(ready), detail)


def check_server_from_venv(page: Page, paths: Paths, results: Results, python: Path) -> bool:
    ready = wait_ready(page, timeout=240)
    screenshot(page, paths, f"{NEWCOMER}02-server-ready")
    started = f"starting {python} -m memlsp --stdio (from .venv in the workspace folder {paths.vault.name})"
    logged = started in memlsp_log(paths)
    results.record(f"{NEWCOMER}ready", bool(ready), f"status {ready or memlsp_status_text(page)}")
    lines = [line for line in memlsp_log(paths).splitlines() if "starting " in line]
    return results.record(f"{NEWCOMER}server-from-venv", logged, f"output: {lines[:2]}")


def open_user_setting(page: Page, name: str) -> Locator:
    """The Settings editor on its User tab, searched for one setting; returns the editor."""
    run_command(page, "Preferences: Open User Settings")
    editor = page.locator(".settings-editor")
    editor.wait_for(state="visible", timeout=15_000)
    time.sleep(1)
    page.keyboard.type(name)
    return editor


def close_settings(page: Page, editor: Locator) -> None:
    # VS Code 1.139 shows Settings as a modal: Escape clears the search, then closes it.
    for _ in range(4):
        if not editor.is_visible():
            return
        page.keyboard.press("Escape")
        time.sleep(0.5)
    if editor.is_visible():
        run_command(page, "View: Close Editor")


def check_relative_python_path(page: Page, paths: Paths, results: Results, python: Path) -> bool:
    """`.venv/bin/python` typed into memlsp.pythonPath on the User tab: the server restarts from it."""
    relative = python.relative_to(paths.vault).as_posix()
    editor = open_user_setting(page, "memlsp.pythonPath")
    field = editor.locator(".setting-item", has_text="Python Path").locator("input").first
    field.wait_for(state="visible", timeout=15_000)
    field.fill(relative)
    page.keyboard.press("Tab")
    started = (
        f"starting {python} -m memlsp --stdio (from the setting memlsp.pythonPath ({relative}))"
    )
    logged = poll(lambda: started in memlsp_log(paths), timeout=60, interval=1)
    screenshot(page, paths, f"{NEWCOMER}13-relative-pythonPath")
    close_settings(page, editor)
    ready = wait_ready(page, timeout=120)
    user_file = paths.user_data / "User" / "settings.json"
    in_user = relative in user_file.read_text(encoding="utf-8")
    errors = [line for line in memlsp_log(paths).splitlines() if "cannot import" in line]
    detail = (
        f"User settings.json has it: {in_user}; output has {started!r}: {bool(logged)}; "
        f"status {ready}; errors {errors[:2] or 'none'}"
    )
    return results.record(
        f"{NEWCOMER}relative-pythonPath", bool(logged) and bool(ready) and in_user, detail
    )


def run_newcomer(main: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    paths = newcomer_paths(main)
    reset_code_server_data(paths)
    prepare_vault(paths)
    started = time.monotonic()
    venv_python = install_into_vault_venv(paths, python)
    results.record(
        f"{NEWCOMER}venv",
        venv_python.exists(),
        f"memlsp installed into {venv_python.parent.parent} in {time.monotonic() - started:.0f} s",
    )
    write_user_settings(paths, {})
    install_vsix(paths, vsix)
    env = newcomer_env(paths)
    on_login_path = login_shell_memlsp()
    log(f"memlsp on code-server's PATH: none; on the login shell's PATH: {on_login_path or 'none'}")
    with (
        code_server(paths, port or free_port(), env=env) as url,
        browser_page(paths, results, NEWCOMER) as page,
    ):
        if not open_index(page, url, paths, results, NEWCOMER):
            return
        check_server_from_venv(page, paths, results, venv_python)
        check_outline(page, paths, results, NEWCOMER)
        check_references(page, paths, results, NEWCOMER)
        focus_editor(page)
        check_embedding_run(page, paths, results, 1)
        check_embedding_run(page, paths, results, 2)
        check_relative_python_path(page, paths, results, venv_python)
        check_restart(page, paths, results, NEWCOMER)
    check_output_clean(paths, results, NEWCOMER)


# --- The agents' set-up: VS Code's own MCP client starts `memlsp mcp` -----------------------

MCP = "mcp-"
MCP_TOOLS = ("search", "read", "links", "related", "recent")  # no `write` without --allow-writes
README_VSCODE_MCP = "**VS Code**: `.vscode/mcp.json`"  # the README's line above its JSON


def readme_vscode_mcp_json() -> str:
    """The `.vscode/mcp.json` the README gives for VS Code, as it is written there."""
    readme = (REPO_DIR / "README.md").read_text(encoding="utf-8")
    at = readme.find(README_VSCODE_MCP)
    found = re.compile(r"```json\n(.*?)\n```", re.DOTALL).search(readme, at) if at >= 0 else None
    if found is None:
        raise ProofError(f"README.md has no JSON block after {README_VSCODE_MCP!r}")
    return found.group(1) + "\n"


def mcp_paths(main: Paths) -> Paths:
    build = main.build / "mcp"
    build.mkdir(parents=True, exist_ok=True)
    tools = build / "tools"
    if not tools.exists():
        tools.symlink_to(main.tools)
    return Paths(build, shots=main.screenshots)


def mcp_env(paths: Paths, python: str) -> dict[str, str]:
    """code-server's environment with the Python's bin folder (its `memlsp`) first on PATH.

    VS Code normally replaces the PATH it was started with by a login shell's (on Debian
    /etc/profile resets PATH), so `memlsp` would be found only where the user's shell profile puts
    it; VSCODE_CLI=1 makes it keep code-server's PATH, as when it is started from a shell."""
    bin_dir = Path(os.path.abspath(python)).parent  # not resolved: a venv's python is a symlink
    if not (bin_dir / "memlsp").exists():
        raise ProofError(f"no memlsp in {bin_dir}: install memlsp into {python}")
    env = node_env(paths)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["VSCODE_CLI"] = "1"
    env.pop("VIRTUAL_ENV", None)
    # memlsp mcp indexes the vault into the per-user cache: a fresh one in the build folder.
    env["XDG_CACHE_HOME"] = str(paths.build / "cache")
    return env


def pick_row(page: Page, text: str) -> None:
    """Clicks the quick pick's first row holding `text`."""
    row = page.locator(".quick-input-list .monaco-list-row", has_text=text).first
    row.wait_for(timeout=15_000)
    row.click()


def mcp_server_row(page: Page) -> str:
    """The memlsp row of MCP: List Servers ("memlsp<state> <config file>"); the list stays open."""
    run_command(page, "MCP: List Servers")
    page.locator(".quick-input-list .monaco-list-row", has_text="memlsp").first.wait_for(
        timeout=15_000
    )
    time.sleep(0.5)
    rows = quick_pick_rows(page)
    return next((row for row in rows.values() if row.startswith("memlsp")), "")


def output_panel_text(page: Page) -> str:
    """The text of the output channel the panel shows, as rendered (the lines in view)."""
    text = page.evaluate(
        """() => {
            const editor = document.querySelector('.part.panel .monaco-editor');
            return editor ? editor.innerText.replace(/\u00a0/g, ' ') : '';
        }"""
    )
    return str(text)


def copy_output_channel(page: Page, url: str) -> str:
    """The whole output channel the panel shows: Select All and Copy in it, read from the
    clipboard (its long lines are wrapped and only the lines in view are rendered)."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page.evaluate("() => navigator.clipboard.writeText('')")
    box = page.locator(".part.panel .monaco-editor").first.bounding_box()
    if box is None:
        return ""
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.press("Control+A")
    page.keyboard.press("Control+C")
    text = poll(lambda: page.evaluate("() => navigator.clipboard.readText()"), 5, 0.3)
    return str(text or "")


def listed_tools(channel: str) -> list[str] | None:
    """The tool names in the server's answer to `tools/list`, as VS Code logs it at debug level
    ("[server -> editor] {...}"); None when it logged none."""
    for line in channel.splitlines():
        _, found, message = line.partition("[server -> editor] ")
        if not found:
            continue
        with suppress(ValueError):
            answer = json.loads(message)
            result = answer.get("result") if isinstance(answer, dict) else None
            tools = result.get("tools") if isinstance(result, dict) else None
            if isinstance(tools, list):
                return [str(tool.get("name")) for tool in tools if isinstance(tool, dict)]
    return None


def check_mcp(page: Page, url: str, paths: Paths, results: Results) -> bool:
    """The README's .vscode/mcp.json: VS Code lists the server, starts it from its own UI and
    reports its tools."""
    row = mcp_server_row(page)
    screenshot(page, paths, f"{MCP}01-servers")
    listed = "Stopped" in row and ".vscode/mcp.json" in row
    results.record(f"{MCP}listed", listed, f"MCP: List Servers shows {row or 'no memlsp row'!r}")
    if not row:
        page.keyboard.press("Escape")
        return results.record(f"{MCP}server", False, "no memlsp server to start")
    pick_row(page, "memlsp")
    pick_row(page, "Start Server")
    time.sleep(1)
    mcp_server_row(page)
    pick_row(page, "memlsp")
    pick_row(page, "Show Output")
    poll(lambda: re.search(r"Discovered \d+ tools", output_panel_text(page)), 120, 1)
    screenshot(page, paths, f"{MCP}02-output")
    channel = copy_output_channel(page, url)
    discovered = re.search(r"\[info\] Discovered (\d+) tools", channel)
    tools = listed_tools(channel)
    started = re.search(r"Server command line: (.*)", channel)
    row = mcp_server_row(page)
    screenshot(page, paths, f"{MCP}03-running")
    page.keyboard.press("Escape")
    count = int(discovered.group(1)) if discovered else None
    ok = (
        "Running" in row
        and count == len(MCP_TOOLS)
        and tools is not None
        and sorted(tools) == sorted(MCP_TOOLS)
    )
    detail = (
        f"server row {row!r}; output 'MCP: memlsp': command line "
        f"{started.group(1) if started else None!r}, 'Discovered {count} tools', tools/list "
        f"answered {tools}"
    )
    if not ok and not discovered:
        detail += f"; output ends {output_panel_text(page)[-400:]!r}"
    return results.record(f"{MCP}server", ok, detail)


def run_mcp(main: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    """No extension: only the README's .vscode/mcp.json in the vault copy."""
    paths = mcp_paths(main)
    reset_code_server_data(paths)
    prepare_vault(paths)
    config = paths.vault / ".vscode" / "mcp.json"
    config.parent.mkdir()
    config.write_text(readme_vscode_mcp_json(), encoding="utf-8")
    # VS Code shows no MCP command or server while AI features are off (the other runs' setting).
    write_user_settings(paths, {"chat.disableAIFeatures": False})
    env = mcp_env(paths, python)
    log(f".vscode/mcp.json: {config.read_text(encoding='utf-8').strip()}")
    # At debug level VS Code writes each MCP message to the server's output channel.
    options = ("--log", "debug")
    with (
        code_server(paths, port or free_port(), env=env, options=options) as url,
        browser_page(paths, results, MCP) as page,
    ):
        open_workbench(page, url, paths)
        screenshot(page, paths, f"{MCP}00-workbench")
        check_mcp(page, url, paths, results)


# --- Main ----------------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--python", default=sys.executable, help="Python with memlsp installed (default: this one)"
    )
    parser.add_argument(
        "--build-dir", type=Path, default=PROOF_DIR / "build", help="tools, profile, screenshots"
    )
    parser.add_argument(
        "--port", type=int, default=0, help="code-server port (default: a free one)"
    )
    parser.add_argument(
        "--skip-install", action="store_true", help="do not install apt/npm/pip packages"
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=("main", "newcomer", "mcp", "graph", "graph10k"),
        help="run only this run; repeat for several (default: main, newcomer, mcp; graph: the "
        "main run's graph check alone; graph10k: the graph's speed on a 10,000-note vault)",
    )
    return parser.parse_args(argv)


def run_main(paths: Paths, vsix: Path, python: str, port: int, results: Results) -> None:
    reset_code_server_data(paths)
    prepare_vault(paths, MENTION_NOTES)
    write_user_settings(paths, main_settings(paths, python))
    install_vsix(paths, vsix)
    with code_server(paths, port or free_port()) as url:
        run_checks(url, paths, results)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    paths = Paths(args.build_dir.resolve())
    results = Results()
    runs = {"main": run_main, "newcomer": run_newcomer, "mcp": run_mcp}
    asked_only = {"graph": run_graph, "graph10k": run_graph10k}  # run only when named
    try:
        if not args.skip_install:
            install_all(paths)
        vsix = build_vsix(paths)
        if paths.screenshots.exists():
            shutil.rmtree(paths.screenshots)
        for name, run_one in {**runs, **asked_only}.items():
            if (name in args.only) if args.only else (name in runs):
                try:
                    run_one(paths, vsix, args.python, args.port, results)
                except ProofError as error:
                    results.record(f"{name}-setup", False, str(error))
    except ProofError as error:
        results.record("setup", False, str(error))
    log(f"screenshots in {paths.screenshots}")
    log(f"{len(results.passed)} passed, {len(results.failed)} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
