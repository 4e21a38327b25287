#!/usr/bin/env python3
"""End-to-end proof that the memlsp VS Code extension works in a real editor.

Installs code-server (from npm, run by Node 24 from npm) and Debian Chromium, installs the
extension's .vsix, opens a copy of fixtures/vault and drives the editor with Playwright:

  server      the memlsp status bar item reports the server up and the vault indexed
  hover       hovering a [[hybrid-search|...]] link shows the target's title and its neighbours
  definition  F12 on that link opens the target note
  search      "memlsp: Search Vault" lists kyoto-2023 for a query sharing no word with it

Screenshots go to vscode-extension/proof/build/screenshots/. One PASS/FAIL line per check;
the exit status is 1 if any check (or a setup step) fails.

    python vscode-extension/proof/run_proof.py [--python /path/to/python-with-memlsp]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from playwright.sync_api import Page

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
    tools: Path = field(init=False)
    data: Path = field(init=False)
    vault: Path = field(init=False)
    screenshots: Path = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tools", self.build / "tools")
        object.__setattr__(self, "data", self.build / "code-server")
        object.__setattr__(self, "vault", self.build / "vault")
        object.__setattr__(self, "screenshots", self.build / "screenshots")

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


def build_vsix() -> Path:
    vsix = vsix_path()
    if not vsix.exists():
        run(["npm", "ci"], cwd=EXTENSION_DIR)
        run(["npm", "run", "build"], cwd=EXTENSION_DIR)
        run(["npm", "run", "package"], cwd=EXTENSION_DIR)
    if not vsix.exists():
        raise ProofError(f"no {vsix.name} after `npm run package`")
    return vsix


def prepare_vault(paths: Paths) -> None:
    if paths.vault.exists():
        shutil.rmtree(paths.vault)
    shutil.copytree(FIXTURE_VAULT, paths.vault)


def write_user_settings(paths: Paths, python: str) -> None:
    settings = {
        "memlsp.pythonPath": python,
        "memlsp.cache_dir": str(paths.build / "cache"),
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
    # code-server is a remote window: machine-scoped settings (memlsp.pythonPath) are read from
    # Machine/settings.json, the others from User/settings.json. Write both.
    for scope in ("User", "Machine"):
        settings_file = paths.user_data / scope / "settings.json"
        settings_file.parent.mkdir(parents=True, exist_ok=True)
        settings_file.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


def reset_code_server_data(paths: Paths) -> None:
    """A fresh profile and index each run: the checks see a first start."""
    for folder in (paths.data, paths.build / "cache", paths.screenshots):
        if folder.exists():
            shutil.rmtree(folder)
    paths.screenshots.mkdir(parents=True)


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
def code_server(paths: Paths, port: int) -> Iterator[str]:
    """Runs code-server in its own process group; kills the group on exit."""
    command = [
        str(paths.code_server),
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
        env=node_env(paths),
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
    page.locator(".quick-input-list .monaco-list-row", has_text=name).first.wait_for(timeout=15_000)
    page.keyboard.press("Enter")
    return wait_active_tab(page, name, timeout=15)


def active_tab_title(page: Page) -> str:
    tab = page.locator(".tabs-container .tab.active").first
    # The label and its extension render in separate elements: drop the whitespace between them.
    return "".join(tab.inner_text().split()) if tab.count() else ""


def wait_active_tab(page: Page, name: str, timeout: float) -> bool:
    return bool(poll(lambda: name in active_tab_title(page), timeout, 0.5))


def memlsp_status_text(page: Page) -> tuple[str, str]:
    """(text, codicon classes) of the memlsp status bar item, or ("", "")."""
    text, icon = page.evaluate(
        """() => {
            for (const item of document.querySelectorAll('.statusbar-item')) {
                const text = (item.textContent || '').trim();
                if (/^memlsp\\b/.test(text) || /\\bmemlsp:/.test(text) || text === 'memlsp') {
                    const icon = item.querySelector('.codicon');
                    return [text, icon ? icon.className : ''];
                }
            }
            return ['', ''];
        }"""
    )
    return str(text), str(icon)


def check_server(page: Page, paths: Paths, results: Results) -> bool:
    def ready() -> tuple[str, str] | None:
        text, icon = memlsp_status_text(page)
        return (text, icon) if "codicon-check" in icon or "codicon-sparkle" in icon else None

    found = poll(ready, timeout=120, interval=1)
    screenshot(page, paths, "02-server-ready")
    text, icon = found or memlsp_status_text(page)
    detail = f"status bar item {text!r} ({icon or 'no item'})"
    return results.record("server", bool(found), detail)


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


def run_checks(url: str, paths: Paths, results: Results) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(30_000)
            open_workbench(page, url, paths)
            screenshot(page, paths, "00-workbench")
            opened = open_note(page, "index.md")
            screenshot(page, paths, "01-index")
            if not results.record("open", opened, f"active tab: {active_tab_title(page)!r}"):
                return
            check_server(page, paths, results)
            check_hover(page, paths, results)
            check_definition(page, paths, results)
            check_search(page, paths, results)
        except Exception as error:  # any browser error is a failed run
            with suppress(Exception):
                screenshot(page, paths, "99-error")
            results.record("browser", False, f"{type(error).__name__}: {error}")
        finally:
            browser.close()


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
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    paths = Paths(args.build_dir.resolve())
    results = Results()
    try:
        if not args.skip_install:
            install_all(paths)
        vsix = build_vsix()
        reset_code_server_data(paths)
        prepare_vault(paths)
        write_user_settings(paths, args.python)
        install_vsix(paths, vsix)
        with code_server(paths, args.port or free_port()) as url:
            run_checks(url, paths, results)
    except ProofError as error:
        results.record("setup", False, str(error))
    log(f"screenshots in {paths.screenshots}")
    log(f"{len(results.passed)} passed, {len(results.failed)} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
