"""Links by meaning: notes about what is being written, where a link is being made.

- After `[[`, when what is typed is a phrase (two words, or two Chinese characters) that few names
  hold, the notes closest to it in meaning follow the name matches, marked "by meaning"; one
  writes `[[note|what was typed]]`, so the sentence reads as it was written.
- On a phrase selected in a line, "Link to a note about this": the closest notes, each an edit
  that turns the phrase into `[[note|phrase]]`.

Which notes are close is asked of the vault's vectors through `NotesAbout` (the snapshot's vector
search); here is only when to ask and what to offer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace

from memlsp.model import Span
from memlsp.navigation.actions import REWRITE, Action
from memlsp.navigation.completion import Completions, Item, Kind
from memlsp.navigation.edits import Edit
from memlsp.parse.links import find_links
from memlsp.parse.mask import iter_masked
from memlsp.parse.tokens import count_words
from memlsp.vault.linktext import wikilink_target
from memlsp.vault.view import VaultView

# The notes closest in meaning to a text, closest first (no more than asked for); None when
# the vault has no vectors to ask.
NotesAbout = Callable[[str, int], Sequence[str] | None]

PHRASE_WORDS = 2  # a Chinese character counts as a word (parse/tokens.py)
FEW_NAMES = 3  # fewer names than this hold the phrase: it is about something, not a name
MEANING_ITEMS = 5
NEEDS_VECTORS = "links by meaning need vectors (embedder = none, or not ready yet)"
LONGEST_PHRASE = 200  # characters: a selection longer than this is not a phrase to link


def is_phrase(text: str) -> bool:
    return count_words(text) >= PHRASE_WORDS and len(text.strip()) <= LONGEST_PHRASE


def with_meaning(
    view: VaultView, source: str, names: Completions, column: int, about: NotesAbout
) -> Completions:
    """The name matches, then (after `[[` and a phrase few names hold) the notes about it."""
    if names.naming is None:
        return names
    typed, closing = names.naming
    phrase = typed.strip()
    if not is_phrase(phrase) or names.close >= FEW_NAMES:
        return names
    found = about(phrase, MEANING_ITEMS + len(names.items))
    if not found:
        return names
    offered = {item.detail for item in names.items}
    label = _label(phrase)
    start = column - len(typed)
    extra = []
    for path in found:
        if path in offered or path == source or path not in view.graph.notes:
            continue
        written = wikilink_target(view.graph.table, source, path)
        title = view.graph.notes[path].title or written
        extra.append(
            Item(
                title,
                Kind.NOTE,
                f"{written}|{label}{closing}",
                start,
                column,
                f"by meaning · {path}",
                # What the client compares with the typed text: the phrase itself, or a client
                # would hide a note whose name shares no letter with it.
                filter_text=typed,
            )
        )
        if len(extra) == MEANING_ITEMS:
            break
    # The phrase may change meaning with the next word typed: the client asks again.
    return replace(names, items=names.items + tuple(extra), incomplete=True)


def link_about(
    view: VaultView,
    source: str,
    lines: Sequence[str],
    line: int,
    start: int,
    end: int,
    about: NotesAbout,
) -> list[Action]:
    """Offers to link the phrase selected at `start..end` of `line`: nothing
    when the selection is not a phrase, or touches a link or code."""
    if line >= len(lines) or not 0 <= start < end <= len(lines[line]):
        return []
    text = lines[line]
    phrase = text[start:end]
    if (
        not is_phrase(phrase)
        or phrase != phrase.strip()
        or _in_link_or_code(lines, line, start, end)
    ):
        return []
    found = about(phrase, MEANING_ITEMS + 1)
    if found is None:
        return [Action("Link to a note about this…", (), kind=REWRITE, disabled=NEEDS_VECTORS)]
    actions = []
    for path in found:
        if path == source or path not in view.graph.notes:
            continue
        written = wikilink_target(view.graph.table, source, path)
        edit = Edit(source, Span(line, start, end), f"[[{written}|{_label(phrase)}]]")
        title = f"Link to a note about this: [[{written}]]"
        actions.append(Action(title, (edit,), kind=REWRITE))
        if len(actions) == MEANING_ITEMS:
            break
    return actions


def _label(phrase: str) -> str:
    """The phrase as a link's label: `|` and `]]` would end it early."""
    return phrase.replace("|", "｜").replace("]]", "] ]")


def _in_link_or_code(lines: Sequence[str], line: int, start: int, end: int) -> bool:
    """Whether the columns touch a link, code or math of the line as it is now (the buffer may
    be ahead of the index)."""
    text = lines[line]
    masked = deque(iter_masked(lines[: line + 1]), maxlen=1)[0]  # a fence opened above counts
    if masked.in_block or masked.text[start:end] != text[start:end]:
        return True
    links, _ = find_links(masked.text, line, text)
    return any(link.span.start < end and start < link.span.end for link in links)
