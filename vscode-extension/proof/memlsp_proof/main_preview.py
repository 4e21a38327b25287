"""The main run's Markdown preview checks (wikilinks shown as links to where the server resolves
them) and completion of a wikilink."""

from __future__ import annotations

import re
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Page

from .setup import FIXTURE_VAULT, TARGET_TAB, Paths
from .workbench import (
    Results,
    active_tab_title,
    focus_editor,
    open_note,
    poll,
    screenshot,
    status_bar_texts,
    wait_active_tab,
)

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
