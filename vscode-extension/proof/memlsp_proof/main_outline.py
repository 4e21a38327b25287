"""The main run's checks that memlsp doubles nothing next to the built-in Markdown features: the
Outline, Go to Symbol, references and workspace symbols."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

from .main_navigation import text_position
from .setup import Paths
from .workbench import Results, focus_editor, open_note, poll, run_command, screenshot

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
