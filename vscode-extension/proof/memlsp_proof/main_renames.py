"""The main run's rename checks: a note renamed in the Explorer and a wikilink renamed with F2; every
link to it follows, nothing else changes."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

from .main_navigation import text_position
from .main_preview import PREVIEW_NOTE, cursor_line
from .setup import Paths
from .vault_links import LinkAt, links_in, links_to, resolve_link, vault_texts
from .workbench import (
    Results,
    active_tab_title,
    focus_editor,
    notification_toasts,
    open_note,
    poll,
    run_command,
    screenshot,
    wait_active_tab,
)


def modal_dialog(page: Page) -> Locator | None:
    dialog = page.locator(".monaco-dialog-box")
    return dialog.first if dialog.count() and dialog.first.is_visible() else None


def answer_dialogs(
    page: Page, paths: Paths, shot: str, done: Callable[[], bool], timeout: float
) -> tuple[bool, list[str]]:
    """Waits until done(); VS Code asks (a modal) before it applies the edits an extension returns
    for a file move: OK, the button a user presses (its default). Any other dialog is closed
    unanswered. Returns whether done() came true and the dialogs' texts."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        dialog = modal_dialog(page)
        if dialog is not None:
            parts = dialog.locator(".dialog-message-text, .dialog-message-detail").all_inner_texts()
            buttons = dialog.locator(".dialog-buttons .monaco-button").all_inner_texts()
            text = " ".join(" ".join(parts).split())
            seen.append(f"{text} [{' | '.join(button.strip() for button in buttons)}]")
            screenshot(page, paths, shot)
            if "wants to make refactoring changes" in text:
                dialog.locator(".monaco-button", has_text=re.compile(r"^OK$")).click()
            else:
                page.keyboard.press("Escape")
            poll(lambda: modal_dialog(page) is None, timeout=5, interval=0.2)
            continue
        if done():
            return True, seen
        time.sleep(0.3)
    return bool(done()), seen


def relink_problems(
    before: dict[str, bytes], after: dict[str, bytes], old: str, new: str, title: bool = False
) -> list[str]:
    """What is wrong with the vault after `old` was renamed to `new`: the file is not moved as it
    was (with `title`, its first H1 may have become the new name), a file changed that has no link
    to it, a link to it not rewritten, or something else on a link's line changed. A wikilink keeps
    its shape: `[[folder/name]]` gets the new name after the same folders, `[[name]]` the new name."""
    problems = []
    if old in after:
        problems.append(f"{old} is still there")
    if new not in after:
        return [*problems, f"no {new}"]
    was = before[old].decode("utf-8").splitlines()
    now = after[new].decode("utf-8").splitlines()
    h1 = next((n for n, line in enumerate(was) if line.startswith("# ")), None)
    if title and h1 is not None and h1 < len(now) and now[h1] == "# " + new_stem(new):
        now[h1] = was[h1]
    if now != was:
        changed = [line for line in now if line not in was]
        problems.append(f"{new} is not {old} as it was: {changed[:3]}")
    linking = links_to(before, old)
    for path in sorted((set(before) | set(after)) - {old, new}):
        if path in linking:
            problems += line_problems(
                path, before[path], after.get(path, b""), linking[path], set(after), new
            )
        elif before.get(path) != after.get(path):
            problems.append(f"{path} changed (it has no link to {old})")
    return problems


def targets_by_note(links: dict[str, list[LinkAt]]) -> dict[str, list[str]]:
    """For a report: each note's link targets as written."""
    return {path: sorted({link.written for link in found}) for path, found in sorted(links.items())}


def new_stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def line_problems(
    path: str, before: bytes, after: bytes, links: list[LinkAt], files: set[str], new: str
) -> list[str]:
    """What is wrong on a note's lines: only the lines with `links` may change, and on them only
    these links' targets, each now leading to `new`."""
    old_lines, new_lines = before.decode("utf-8").splitlines(), after.decode("utf-8").splitlines()
    if len(old_lines) != len(new_lines):
        return [f"{path} has {len(new_lines)} lines, had {len(old_lines)}"]
    problems = []
    for number, (was, now) in enumerate(zip(old_lines, new_lines, strict=True)):
        olds = [link for link in links if link.line == number]
        if not olds:
            if was != now:
                problems.append(f"{path}:{number + 1} changed: {now!r}")
            continue
        news = [link for link in links_in(now) if resolve_link(files, path, link.target) == new]
        same = len(news) == len(olds) and blanked(was, olds) == blanked(now, news)
        if not same or any(a.anchor != b.anchor for a, b in zip(olds, news, strict=True)):
            problems.append(f"{path}:{number + 1} is {now!r} (was {was!r})")
            continue
        for was_link, now_link in zip(olds, news, strict=True):
            folders = was_link.target.rpartition("/")[0]
            suffix = ".md" if was_link.target.lower().endswith(".md") else ""
            shape = (folders + "/" if folders else "") + new_stem(new) + suffix
            if was_link.wiki and now_link.target != shape:
                problems.append(
                    f"{path}:{number + 1}: [[{was_link.target}]] became [[{now_link.target}]]"
                )
    return problems


def blanked(line: str, links: list[LinkAt]) -> str:
    """The line with these links' targets taken out: what must not change."""
    for link in sorted(links, key=lambda link: link.start, reverse=True):
        line = line[: link.start] + "\x00" + line[link.end :]
    return line


def link_position(page: Page, target: str) -> dict[str, float] | None:
    """Where a link's target shows in the editor (the editor renders spaces as no-break spaces)."""
    return text_position(page, target.replace(" ", "\u00a0"))


def go_to_line(page: Page, line: int) -> None:
    """Ctrl+G: the line (1-based) in the middle of the active editor, the cursor on it."""
    focus_editor(page)
    page.keyboard.press("Control+G")
    quick_input = page.locator(".quick-input-widget input")
    quick_input.wait_for(state="visible", timeout=15_000)
    quick_input.fill(f":{line}")
    page.keyboard.press("Enter")
    poll(lambda: cursor_line(page) == line, timeout=5, interval=0.2)


def dirty_tabs(page: Page) -> list[str]:
    tabs = page.locator(".tabs-container .tab.dirty")
    return ["".join(tabs.nth(i).inner_text().split()) for i in range(tabs.count())]


def settle_rename(
    page: Page, paths: Paths, check: Callable[[], list[str]]
) -> tuple[list[str], str]:
    """Waits until the vault copy passes `check` with no editor left dirty (code-server saves on
    its own: `files.autoSave` is `afterDelay` in a browser); if it does not, File: Save All and
    waits again. Returns the problems left and how the edits were saved."""

    def settled() -> bool:
        return not dirty_tabs(page) and not check()

    if poll(settled, timeout=15, interval=0.5):
        return [], "saved by auto save"
    dirty = dirty_tabs(page)
    if dirty:
        run_command(page, "File: Save All")
        if poll(settled, timeout=10, interval=0.5):
            return [], f"saved by File: Save All ({dirty} were dirty)"
    return check(), f"dirty tabs: {dirty_tabs(page) or 'none'}"


# Linked to as [[tantivy]] (bm25.md), [[search/tantivy]] (index.md), [Tantivy](./tantivy.md).
RENAMED = "search/tantivy.md"
RENAMED_TO = "tantivy engine.md"


def explorer_row(page: Page, name: str, level: int) -> Locator:
    return page.locator(
        f'.explorer-folders-view .monaco-list-row[aria-level="{level}"][aria-label="{name}"]'
    )


def check_explorer_rename(page: Page, paths: Paths, results: Results) -> bool:
    """A note others link to renamed in the Explorer as a user does it (select, F2, the new name,
    Enter): VS Code asks memlsp (workspace/willRenameFiles) for the edits that keep the links, asks
    the user about them, applies them; a rewritten link then leads to the renamed note."""
    before = vault_texts(paths.vault)
    folder, name = RENAMED.rsplit("/", 1)
    new = f"{folder}/{RENAMED_TO}"
    linking = links_to(before, RENAMED)
    # A note that links to it open in an editor: its buffer is edited, not only the file.
    open_note(page, PREVIEW_NOTE)
    run_command(page, "View: Show Explorer")
    row = explorer_row(page, name, folder.count("/") + 2)
    if not row.count():
        explorer_row(page, folder, folder.count("/") + 1).click()
    row.click()
    page.keyboard.press("F2")
    box = page.locator(".explorer-folders-view .monaco-inputbox input")
    box.wait_for(state="visible", timeout=15_000)
    proposed = box.input_value()
    box.fill(RENAMED_TO)
    screenshot(page, paths, "18-explorer-rename")
    box.press("Enter")
    moved, dialogs = answer_dialogs(
        page,
        paths,
        "18-explorer-rename-dialog",
        lambda: not (paths.vault / RENAMED).exists() and (paths.vault / new).exists(),
        30,
    )
    problems, saved = settle_rename(
        page, paths, lambda: relink_problems(before, vault_texts(paths.vault), RENAMED, new)
    )
    toasts = notification_toasts(page)
    screenshot(page, paths, "18-explorer-renamed")
    run_command(page, "View: Close Primary Side Bar")

    # Back in the editor: F12 on a rewritten link opens the renamed note.
    source = PREVIEW_NOTE if PREVIEW_NOTE in linking or not linking else sorted(linking)[0]
    written = links_in((paths.vault / source).read_text(encoding="utf-8"))
    targets = [link for link in written if link.wiki and new_stem(new) in link.target]
    opened, tab = False, ""
    open_note(page, source)
    if targets:
        go_to_line(page, targets[0].line + 1)
    position = link_position(page, targets[0].target) if targets else None
    if position is not None:
        page.mouse.click(position["x"], position["y"])
        page.keyboard.press("F12")
        opened = wait_active_tab(page, "".join(RENAMED_TO.split()), timeout=20)
        tab = active_tab_title(page)
    screenshot(page, paths, "18-explorer-rename-definition")
    rewritten = targets_by_note(links_to(vault_texts(paths.vault), new))
    ok = (
        moved
        and not problems
        and len(dialogs) <= 1
        and all("memlsp" in d for d in dialogs)
        and opened
    )
    detail = (
        f"{RENAMED} -> {RENAMED_TO} in the Explorer (F2 proposed {proposed!r}); dialogs: "
        f"{dialogs or 'none'} (answered OK); moved: {moved}; {saved}; "
        f"links before {targets_by_note(linking)}, after {rewritten}; "
        f"problems: {problems or 'none'}; notifications: {toasts or 'none'}; "
        f"F12 on [[{targets[0].target if targets else '?'}]] in {source}: active tab {tab!r}"
    )
    return results.record("explorer-rename", ok, detail)


SYMBOL_SOURCE = "index.md"
# [[zettelkasten]] in index.md: pkm/zettelkasten.md, linked to from 4 notes, once with a heading.
SYMBOL_LINK = "zettelkasten"
SYMBOL_NEW_NAME = "zettelkasten method"


def check_rename_symbol(page: Page, paths: Paths, results: Results) -> bool:
    """F2 on a wikilink, the note's new name, Enter: memlsp's textDocument/rename edits every link
    and renames the file (a RenameFile VS Code applies, after the text edits)."""
    before = vault_texts(paths.vault)
    old = resolve_link(set(before), SYMBOL_SOURCE, SYMBOL_LINK) or SYMBOL_LINK
    new = old.rpartition("/")[0] + "/" + SYMBOL_NEW_NAME + ".md"
    linking = links_to(before, old)
    line = next(
        link.line
        for link in links_in(before[SYMBOL_SOURCE].decode("utf-8"))
        if link.target == SYMBOL_LINK
    )
    open_note(page, SYMBOL_SOURCE)
    go_to_line(page, line + 1)
    position = link_position(page, SYMBOL_LINK)
    if position is None:
        return results.record("rename-symbol", False, f"no [[{SYMBOL_LINK}]] in the editor")
    page.mouse.click(position["x"], position["y"])
    page.keyboard.press("F2")
    box = page.locator(".rename-box input.rename-input")
    box.wait_for(state="visible", timeout=15_000)
    proposed = poll(lambda: box.input_value(), timeout=10, interval=0.2)
    box.fill(SYMBOL_NEW_NAME)
    screenshot(page, paths, "19-rename-symbol")
    box.press("Enter")
    moved, dialogs = answer_dialogs(
        page,
        paths,
        "19-rename-symbol-dialog",
        lambda: not (paths.vault / old).exists() and (paths.vault / new).exists(),
        30,
    )
    problems, saved = settle_rename(
        page, paths, lambda: relink_problems(before, vault_texts(paths.vault), old, new, title=True)
    )
    screenshot(page, paths, "19-rename-symbol-done")
    after = vault_texts(paths.vault)
    rewritten = targets_by_note(links_to(after, new))
    ok = moved and not problems and proposed == SYMBOL_LINK
    detail = (
        f"F2 on [[{SYMBOL_LINK}]] in {SYMBOL_SOURCE} (proposed {proposed!r}) -> {SYMBOL_NEW_NAME!r}: "
        f"{old} -> {new} moved: {moved}; dialogs: {dialogs or 'none'} (answered OK); {saved}; "
        f"{len(linking)} notes linked to it, links now {rewritten}; problems: {problems or 'none'}"
    )
    return results.record("rename-symbol", ok, detail)
