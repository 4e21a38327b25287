"""The main run's first checks: the server reaches Ready with one status item, hover and F12 on a
wikilink, and Search Vault finding a note by meaning."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from playwright.sync_api import Page

from .setup import LINK_TEXT, SEARCH_HIT, SEARCH_QUERY, TARGET_TAB, TARGET_TITLE, Paths
from .workbench import (
    Results,
    active_tab_title,
    all_quick_pick_rows,
    memlsp_status_text,
    poll,
    quick_pick_rows,
    run_command,
    screenshot,
    server_progress,
    status_bar_texts,
    wait_active_tab,
)


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
