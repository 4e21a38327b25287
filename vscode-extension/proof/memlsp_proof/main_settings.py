"""The main run's Settings editor checks, Restart Server, and the Settings editor's helpers the
newcomer run uses too."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

from .setup import Paths
from .workbench import Results, notification_toasts, poll, run_command, screenshot, wait_ready

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
