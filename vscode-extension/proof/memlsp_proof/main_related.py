"""The main run's Related notes view, its Insert link button, and Link all from the unlinked
mentions picker."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

from .main_code_lens import code_lenses, quick_pick_items
from .main_preview import WIKILINK, active_tab_dirty, last_line
from .main_renames import dirty_tabs, new_stem
from .setup import Paths
from .vault_links import resolve_link, vault_texts
from .workbench import (
    Results,
    active_tab_title,
    focus_editor,
    open_note,
    poll,
    run_command,
    screenshot,
)

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
