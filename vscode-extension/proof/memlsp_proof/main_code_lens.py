"""The main run's code lens check: the counts on a note's first line, from the vault copy, and the
links picker a click opens."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

from .setup import Paths
from .vault_links import LinkAt, links_in, links_to, resolve_link, vault_texts
from .workbench import Results, open_note, poll, screenshot

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
