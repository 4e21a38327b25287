"""The main run's "memlsp: Why isn't this note found?": Search Vault's last query, asked about a
note it does not find, answers with the server's verdict in plain words."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

from .setup import SEARCH_QUERY, Paths
from .workbench import Results, notification_toasts, open_note, poll, run_command, screenshot

COMMAND = "memlsp: Why isn't this note found?"
# Not among the results for SEARCH_QUERY (Kyoto's shrines): it has none of the query's words and
# is about ranking functions, far from it in meaning, with any number of results asked for.
WHY_NOTE = "search/bm25.md"
# The words each verdict but "shown" is told with (VERDICT_WORDS in src/explain.ts).
NOT_FOUND_WORDS = {
    "Not a note",
    "Not indexed yet",
    "Left out by the filters",
    "No match",
    "Too weak a match",
    "Past the limit",
    "Cut by the token budget",
    "Merged into another result",
    "Only as a linked note",
}
MESSAGE = re.compile(rf"memlsp: {re.escape(WHY_NOTE)}: (?P<words>[^.]+)\. (?P<sentence>.+)")


def verdict_toast(page: Page) -> str:
    for toast in notification_toasts(page):
        # The verdict, or the messages of a server too old to explain or failing.
        if f"memlsp: {WHY_NOTE}:" in toast or "explain" in toast or "ask why" in toast:
            return toast
    return ""


def _own_input(value: str) -> str:
    return "" if value.startswith(">") else value


def check_why_not_found(page: Page, paths: Paths, results: Results) -> bool:
    open_note(page, "bm25.md")
    run_command(page, COMMAND)
    query_box = page.locator(".quick-input-widget input")
    query_box.wait_for(state="visible", timeout=15_000)
    # The same widget held the command palette's ">memlsp: ..." a moment ago: wait for the
    # command's own input box.
    offered = str(poll(lambda: _own_input(query_box.input_value()), timeout=15, interval=0.2) or "")
    if offered != SEARCH_QUERY:
        query_box.fill(SEARCH_QUERY)
    page.keyboard.press("Enter")
    toast = str(poll(lambda: verdict_toast(page), timeout=60, interval=0.5) or "")
    screenshot(page, paths, "25-why-not-found")
    match = MESSAGE.search(toast)
    words = match["words"] if match else ""
    sentence = match["sentence"] if match else ""
    ok = (
        offered == SEARCH_QUERY
        and words in NOT_FOUND_WORDS
        and len(sentence.split()) >= 4
        and "Open note" in toast
    )
    detail = (
        f"query offered {offered!r} (Search Vault's last: {SEARCH_QUERY!r}); "
        f"message {toast[:300]!r}"
        if toast
        else f"query offered {offered!r}; no message; toasts {notification_toasts(page)}"
    )
    run_command(page, "Notifications: Clear All Notifications")
    return results.record("why-not-found", ok, detail)
