#!/usr/bin/env python3
"""Bad-input proof for the memlsp VS Code extension, in a real code-server driven by Playwright.

Reuses the proof's install / code-server / browser helpers (memlsp_proof/). Each check runs in
its own fresh user-data dir and code-server instance (under build/bad/<check>/):

  no-memlsp        pythonPath without memlsp, empty server.command: exactly one error
                   notification naming memlsp and what was tried; Quick Open still works
  crash-on-start   server.command /bin/false: an error notification, and after 30 s the
                   notification count stays small (bounded restarts); the editor still opens files
  not-found        no memlsp settings, no .venv, memlsp not on PATH: one error naming each way
                   tried with Open Settings and How to Install, which shows the real commands (a
                   venv and pip install of a checkout); Restart Server shows the error again
  no-markdown      a folder with only a .txt file: no memlsp error within 20 s, status bar not error
  multi-root       a .code-workspace with two copies of fixtures/vault: server ready and
                   Search Vault "tantivy" lists results from both roots

Screenshots: build/screenshots/bad-*.png. One PASS/FAIL line per check; exit 1 on any failure.

    python vscode-extension/proof/run_bad_input.py --skip-install --python /path/to/python
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_proof
from memlsp_proof import main_navigation, newcomer, setup, workbench

if TYPE_CHECKING:
    from playwright.sync_api import Page

NO_MEMLSP_PYTHON = "/usr/bin/python3"
ROOT_A = "vault-alpha"
ROOT_B = "vault-beta"


# --- Per-check setup -----------------------------------------------------------------------


def check_paths(main: setup.Paths, name: str) -> setup.Paths:
    """A fresh build dir for one check; its tools/ is a link to the shared tools."""
    build = main.build / "bad" / name
    if build.exists():
        shutil.rmtree(build)
    build.mkdir(parents=True)
    (build / "tools").symlink_to(main.tools)
    paths = setup.Paths(build)
    paths.screenshots.mkdir(parents=True)
    return paths


def write_settings(paths: setup.Paths, python: str, extra: dict[str, Any]) -> None:
    setup.write_user_settings(paths, {**setup.main_settings(paths, python), **extra})


def shot(page: Page, main: setup.Paths, name: str) -> None:
    main.screenshots.mkdir(parents=True, exist_ok=True)
    target = main.screenshots / f"bad-{name}.png"
    page.screenshot(path=str(target))
    setup.log(f"screenshot {target}")


def open_url(page: Page, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded")
    page.locator(".monaco-workbench").wait_for(state="visible", timeout=60_000)
    page.locator(".explorer-folders-view, .monaco-workbench .part.sidebar").first.wait_for(
        timeout=60_000
    )
    time.sleep(2)


def notifications(page: Page) -> list[tuple[str, str]]:
    """(severity, message) of every notification, read from the notification center."""
    with suppress(Exception):
        page.keyboard.press("Escape")
        workbench.run_command(page, "Notifications: Show Notifications")
        time.sleep(1)
    items = page.evaluate(
        """() => {
            const out = [];
            for (const item of document.querySelectorAll('.notifications-center .notification-list-item')) {
                const icon = item.querySelector('.notification-list-item-icon');
                const cls = icon ? icon.className : '';
                const sev = /error/.test(cls) ? 'error' : /warning/.test(cls) ? 'warning' : 'info';
                const msg = item.querySelector('.notification-list-item-message');
                out.push([sev, ((msg || item).innerText || '').replace(/\\s+/g, ' ').trim()]);
            }
            return out;
        }"""
    )
    return [(str(s), str(m)) for s, m in items]


def hide_notifications(page: Page) -> None:
    with suppress(Exception):
        page.keyboard.press("Escape")
        workbench.run_command(page, "Notifications: Hide Notifications")
        time.sleep(0.5)


def memlsp_errors(page: Page) -> list[str]:
    return [m for s, m in notifications(page) if s == "error" and "memlsp" in m.lower()]


def with_browser(
    url_path: str,
    paths: setup.Paths,
    body: Callable[[Page, str], tuple[bool, str]],
    main: setup.Paths,
    name: str,
    env: dict[str, str] | None = None,
) -> tuple[bool, str]:
    from playwright.sync_api import sync_playwright

    with setup.code_server(paths, setup.free_port(), env) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=setup.CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(30_000)
        try:
            open_url(page, url + url_path)
            return body(page, url)
        except Exception as error:
            with suppress(Exception):
                shot(page, main, f"{name}-error")
            return False, f"{type(error).__name__}: {error}"
        finally:
            browser.close()


# --- Checks --------------------------------------------------------------------------------


def check_no_memlsp(main: setup.Paths, vsix: Path, python: str) -> tuple[bool, str]:
    name = "no-memlsp"
    paths = check_paths(main, name)
    setup.prepare_vault(paths)
    write_settings(
        paths, python, {"memlsp.pythonPath": NO_MEMLSP_PYTHON, "memlsp.server.command": ""}
    )
    setup.install_vsix(paths, vsix)

    def body(page: Page, _url: str) -> tuple[bool, str]:
        opened = workbench.open_note(page, "index.md")
        errors = workbench.poll(lambda: memlsp_errors(page), timeout=40, interval=2) or []
        time.sleep(8)  # any second notification would arrive by now
        errors = memlsp_errors(page)
        shot(page, main, name)
        hide_notifications(page)
        opened_after = workbench.open_note(page, "tantivy.md")
        status = workbench.memlsp_status_text(page)
        mentions_tried = bool(errors) and (
            NO_MEMLSP_PYTHON in errors[0] or "tried" in errors[0].lower()
        )
        ok = len(errors) == 1 and mentions_tried and opened and opened_after
        return ok, (
            f"{len(errors)} memlsp error(s) {[e[:200] for e in errors]}; names what was tried: "
            f"{mentions_tried}; Quick Open index.md: {opened}, tantivy.md after: {opened_after}; "
            f"status {status}"
        )

    return with_browser(f"/?folder={paths.vault}", paths, body, main, name)


def check_not_found(main: setup.Paths, vsix: Path, _python: str) -> tuple[bool, str]:
    name = "not-found"
    paths = check_paths(main, name)
    setup.prepare_vault(paths)
    setup.write_user_settings(paths, {})
    setup.install_vsix(paths, vsix)

    def error_toasts(page: Page) -> list[str]:
        return [t for t in workbench.notification_toasts(page) if "cannot find the memlsp" in t]

    def body(page: Page, _url: str) -> tuple[bool, str]:
        workbench.open_note(page, "index.md")
        first = workbench.poll(lambda: error_toasts(page), timeout=40, interval=1) or []
        toast = page.locator(".notifications-toasts .notification-toast", has_text="cannot find")
        buttons = [b.strip() for b in toast.locator(".monaco-button").all_inner_texts()]
        shot(page, main, name)
        toast.locator(".monaco-button", has_text="How to Install").first.click()
        dialog = page.locator(".monaco-dialog-box")
        dialog.wait_for(state="visible", timeout=10_000)
        steps = dialog.inner_text()
        shot(page, main, f"{name}-how-to-install")
        page.keyboard.press("Escape")
        time.sleep(1)
        workbench.run_command(page, "memlsp: Restart Server")
        again = workbench.poll(lambda: error_toasts(page), timeout=40, interval=1) or []
        shot(page, main, f"{name}-restart")
        from_pypi = " ".join(["pip", "install", "memlsp"])
        shows_commands = (
            "-m venv .venv" in steps and "pip install <path of the memlsp checkout>" in steps
        )
        ok = (
            len(first) == 1
            and "Tried:" in first[0]
            and ".venv or venv in" in first[0]
            and buttons[:2] == ["Open Settings", "How to Install"]
            and shows_commands
            and from_pypi not in steps + first[0]
            and len(again) == 1
        )
        return ok, (
            f"error {first[0][:260] if first else None!r}; buttons {buttons}; How to Install shows "
            f"the commands: {shows_commands} ({' / '.join(steps.splitlines()[:4])!r}); after Restart "
            f"Server: {len(again)} error toast(s)"
        )

    return with_browser(
        f"/?folder={paths.vault}", paths, body, main, name, newcomer.newcomer_env(paths)
    )


def check_crash(main: setup.Paths, vsix: Path, python: str) -> tuple[bool, str]:
    name = "crash-on-start"
    paths = check_paths(main, name)
    setup.prepare_vault(paths)
    write_settings(paths, python, {"memlsp.server.command": "/bin/false", "memlsp.server.args": []})
    setup.install_vsix(paths, vsix)

    def body(page: Page, _url: str) -> tuple[bool, str]:
        opened = workbench.open_note(page, "index.md")
        first = workbench.poll(lambda: memlsp_errors(page), timeout=40, interval=2) or []
        hide_notifications(page)
        time.sleep(30)
        allnotes = notifications(page)
        errors = [m for s, m in allnotes if s == "error" and "memlsp" in m.lower()]
        shot(page, main, name)
        hide_notifications(page)
        opened_after = workbench.open_note(page, "tantivy.md")
        starts = count_starts(paths)
        status = workbench.memlsp_status_text(page)
        ok = bool(first) and 0 < len(allnotes) <= 5 and opened and opened_after
        return ok, (
            f"first error: {first[0][:160] if first else None!r}; after 30 s {len(allnotes)} "
            f"notification(s), {len(errors)} memlsp errors {[e[:120] for e in errors]}; "
            f"'starting' lines in output log: {starts}; opens files: {opened}/{opened_after}; status {status}"
        )

    return with_browser(f"/?folder={paths.vault}", paths, body, main, name)


def count_starts(paths: setup.Paths) -> int | str:
    """Server starts logged in the memlsp output channel (code-server's log files), if found."""
    total = 0
    found = False
    for log in paths.user_data.rglob("*memlsp*.log"):
        found = True
        total += log.read_text(encoding="utf-8", errors="replace").count("starting ")
    return total if found else "n/a"


def check_no_markdown(main: setup.Paths, vsix: Path, python: str) -> tuple[bool, str]:
    name = "no-markdown"
    paths = check_paths(main, name)
    paths.vault.mkdir(parents=True)
    (paths.vault / "notes.txt").write_text("just text, no markdown here\n", encoding="utf-8")
    write_settings(paths, python, {})
    setup.install_vsix(paths, vsix)

    def body(page: Page, _url: str) -> tuple[bool, str]:
        time.sleep(20)
        allnotes = notifications(page)
        errors = [m for s, m in allnotes if s == "error" and "memlsp" in m.lower()]
        hide_notifications(page)
        text, icon = workbench.memlsp_status_text(page)
        shot(page, main, name)
        status_error = "codicon-error" in icon or "codicon-circle-slash" in icon
        ok = not errors and not status_error
        return ok, (
            f"{len(errors)} memlsp error(s) {[e[:160] for e in errors]} in 20 s; "
            f"status bar {text!r} ({icon or 'no item'})"
        )

    return with_browser(f"/?folder={paths.vault}", paths, body, main, name)


def check_multi_root(main: setup.Paths, vsix: Path, python: str) -> tuple[bool, str]:
    name = "multi-root"
    paths = check_paths(main, name)
    paths.vault.mkdir(parents=True)
    for root in (ROOT_A, ROOT_B):
        shutil.copytree(setup.FIXTURE_VAULT, paths.vault / root)
    workspace = paths.vault / "two.code-workspace"
    workspace.write_text(
        json.dumps({"folders": [{"path": ROOT_A}, {"path": ROOT_B}], "settings": {}}, indent=2),
        encoding="utf-8",
    )
    write_settings(paths, python, {})
    setup.install_vsix(paths, vsix)

    def body(page: Page, _url: str) -> tuple[bool, str]:
        opened = workbench.open_note(page, "index.md")

        def ready() -> list[tuple[str, str]] | None:
            # One status bar item per vault, each named by its folder.
            items = workbench.memlsp_status_items(page)
            done = [
                icon for _, icon in items if "codicon-check" in icon or "codicon-warning" in icon
            ]
            return items if len(items) == 2 and len(done) == 2 else None

        found = workbench.poll(ready, timeout=180, interval=1)
        status = found or workbench.memlsp_status_items(page)
        errors = memlsp_errors(page)
        hide_notifications(page)
        if not found:
            shot(page, main, name)
            return (
                False,
                f"server not ready: status {status}; opened index.md {opened}; errors {errors[:2]}",
            )
        workbench.run_command(page, "memlsp: Search Vault")
        quick_input = page.locator(".quick-input-widget input")
        page.locator(".quick-input-widget input[placeholder*='Search the vault']").wait_for(
            timeout=15_000
        )
        rows: dict[int, str] = {}
        deadline = time.monotonic() + 40
        verdict = False
        while time.monotonic() < deadline:
            quick_input.fill("")
            time.sleep(0.3)
            quick_input.fill("tantivy")
            time.sleep(3)
            rows = main_navigation.search_results(page)
            verdict = both_roots(rows)
            if verdict:
                break
        quick_input.fill("")
        time.sleep(0.3)
        quick_input.fill("tantivy")
        time.sleep(3)
        shot(page, main, name)
        texts = [rows[at] for at in sorted(rows)]
        return verdict, (
            f"status {status}; {len(rows)} rows for 'tantivy'; {ROOT_A} in rows: "
            f"{any(ROOT_A in t for t in texts)}, {ROOT_B}: {any(ROOT_B in t for t in texts)}; "
            f"first rows: {[t[:90] for t in texts[:6]]}"
        )

    return with_browser(f"/?workspace={workspace}", paths, body, main, name)


def both_roots(rows: dict[int, str]) -> bool:
    texts = list(rows.values())
    if any(ROOT_A in t for t in texts) and any(ROOT_B in t for t in texts):
        return True
    # Same note listed twice (once per root) counts too.
    labels = [t.split("  ")[0] for t in texts]
    return any(labels.count(label) >= 2 for label in labels if "antivy" in label.lower())


CHECKS = {
    "no-memlsp": check_no_memlsp,
    "not-found": check_not_found,
    "crash-on-start": check_crash,
    "no-markdown": check_no_markdown,
    "multi-root": check_multi_root,
}


def main(argv: list[str]) -> int:
    args_list = list(argv)
    only: list[str] = []
    while "--only" in args_list:
        at = args_list.index("--only")
        only.append(args_list[at + 1])
        del args_list[at : at + 2]
    args = run_proof.parse_args(args_list)
    main_paths = setup.Paths(args.build_dir.resolve())
    results = workbench.Results()
    try:
        if not args.skip_install:
            setup.install_all(main_paths)
        vsix = setup.build_vsix(main_paths)
    except setup.ProofError as error:
        results.record("setup", False, str(error))
        return 1
    main_paths.screenshots.mkdir(parents=True, exist_ok=True)
    for old in main_paths.screenshots.glob("bad-*.png"):
        old.unlink()
    for name, check in CHECKS.items():
        if only and name not in only:
            continue
        try:
            ok, detail = check(main_paths, vsix, args.python)
        except setup.ProofError as error:
            ok, detail = False, f"setup: {error}"
        results.record(name, ok, detail)
    setup.log(f"screenshots in {main_paths.screenshots} (bad-*.png)")
    setup.log(f"{len(results.passed)} passed, {len(results.failed)} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
