"""Driving the VS Code workbench in Chromium, for every run: the results' PASS/FAIL lines, polling,
screenshots, opening the folder and a note, the memlsp status bar item, the command palette and
the quick pick, the memlsp output channel's log."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from playwright.sync_api import Page

from .setup import CHROMIUM, Paths, log

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


def focus_editor(page: Page) -> None:
    page.keyboard.press("Escape")
    page.locator(".monaco-editor .view-lines").first.click()


def notification_toasts(page: Page) -> list[str]:
    toasts = page.evaluate(
        """() => [...document.querySelectorAll('.notifications-toasts .notification-toast')]
            .map((toast) => (toast.innerText || '').replace(/\\s+/g, ' ').trim())"""
    )
    return [str(toast) for toast in toasts]


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
