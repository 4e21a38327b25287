"""Quick fixes for links with a problem (navigation/diagnostics.py):

- a link to a note that does not exist: "Create note …", a new file whose first line is `# Title`,
  where the `new_note_folder` setting says (as Obsidian's "default location for new notes": the
  vault root, the linking note's folder, or a fixed folder); a Markdown link's path as written;
- an ambiguous link: "Link to <path>" for every candidate, the one it opens now included, written
  with enough of its path to mean that note only;
- a link to a heading its note lacks: the closest headings the note has.

Nothing here writes: an action is the edit a client applies when the user picks it.
"""

from __future__ import annotations

import difflib
import posixpath
from dataclasses import dataclass

from memlsp.model import LinkKind, LinkStatus, ResolvedLink, Span
from memlsp.navigation.diagnostics import Code, embeds_a_file
from memlsp.navigation.edits import Change, Edit
from memlsp.parse.links import link_parts
from memlsp.vault.anchors import find_heading
from memlsp.vault.linktext import wikilink_target
from memlsp.vault.names import REFUSED_IN_FILE_NAMES
from memlsp.vault.view import VaultView

SAME_FOLDER = "."  # `new_note_folder`: beside the linking note; "" is the vault root
# The LSP's code action kinds: a fix for a problem, or a change the user may want.
QUICK_FIX = "quickfix"
REWRITE = "refactor.rewrite"


@dataclass(frozen=True, slots=True)
class Action:
    title: str
    edits: tuple[Edit, ...]
    creates: str | None = None  # a file made first (empty), then edited
    fixes: str = ""  # the diagnostic code it answers
    preferred: bool = False
    kind: str = QUICK_FIX
    disabled: str = ""  # why it cannot be done now: shown greyed, with this reason, where it can be

    @property
    def change(self) -> Change:
        return Change(self.edits, self.creates)


def actions_at(
    view: VaultView, path: str, lines: list[str], line: int, start: int, end: int, folder: str
) -> list[Action]:
    """Fixes for the links of `path` that touch columns start..end of `line`."""
    found: list[Action] = []
    for resolved in view.graph.outlinks(path):
        span = resolved.link.span
        if span.line != line or span.end < start or span.start > end:
            continue
        status = resolved.resolution.status
        if status is LinkStatus.UNRESOLVED:
            found += _create(view, resolved, folder)
        elif status is LinkStatus.AMBIGUOUS:
            found += _choose(view, resolved, lines[line])
        if status in (LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS):
            found += _closest_headings(view, resolved, lines[line])
    return found


def new_note_path(resolved: ResolvedLink, folder: str) -> str | None:
    """Where the note a link names would be made; None when its name cannot be a file name or
    the place is not inside the vault."""
    link, source = resolved.link, resolved.source
    written = link.target.strip().replace("\\", "/")
    if not written:
        return None
    if link.kind is LinkKind.MARKDOWN or written.startswith(("./", "../")):
        place = posixpath.join(posixpath.dirname(source), written.lstrip("/"))
        if written.startswith("/"):
            place = written.lstrip("/")
    elif folder == SAME_FOLDER:
        place = posixpath.join(posixpath.dirname(source), written)
    else:
        place = posixpath.join(folder.strip("/"), written)
    place = posixpath.normpath(place)
    if place.startswith(("../", "/")) or place in (".", ".."):
        return None
    name = posixpath.basename(place)
    if not name or name.startswith(".") or any(c in REFUSED_IN_FILE_NAMES for c in place):
        return None
    return place if place.lower().endswith(".md") else place + ".md"


def _create(view: VaultView, resolved: ResolvedLink, folder: str) -> list[Action]:
    if embeds_a_file(resolved.link):
        return []  # an image or a PDF: not a note to write
    place = new_note_path(resolved, folder)
    if place is None or view.graph.table.exists(place):
        return []
    title = posixpath.basename(place)[: -len(".md")]
    first = Edit(place, Span(0, 0, 0), f"# {title}\n")
    return [Action(f"Create note {place}", (first,), creates=place, fixes=Code.UNRESOLVED)]


def _choose(view: VaultView, resolved: ResolvedLink, line_text: str) -> list[Action]:
    parts = link_parts(line_text, resolved.link)
    if resolved.link.kind is not LinkKind.WIKI or parts is None:
        return []
    where = Span.on_line(line_text, resolved.link.span.line, *parts.target)
    opened = resolved.resolution.targets[0]
    choices = [opened, *(c for c in resolved.resolution.candidates if c != opened)]
    actions = []
    for candidate in choices:
        written = wikilink_target(view.graph.table, resolved.source, candidate)
        edit = Edit(resolved.source, where, written)
        title = f"Link to {candidate}" + (" (the note it opens now)" if candidate == opened else "")
        actions.append(Action(title, (edit,), fixes=Code.AMBIGUOUS))
    return actions


def _closest_headings(view: VaultView, resolved: ResolvedLink, line_text: str) -> list[Action]:
    link = resolved.link
    if not link.headings or link.kind is not LinkKind.WIKI:
        return []
    target = resolved.resolution.targets[0]
    note = view.graph.notes.get(target)
    if note is None or find_heading(note, link.headings) is not None:
        return []
    names = [heading.text for heading in note.headings]
    wanted = link.headings[-1]
    closest = difflib.get_close_matches(wanted, names, n=3, cutoff=0.3)
    parts = link_parts(line_text, link)
    if parts is None or parts.anchor is None:
        return []
    where = Span.on_line(line_text, link.span.line, *parts.anchor)
    return [
        Action(
            f"Link to heading “{name}”",
            (Edit(resolved.source, where, name),),
            fixes=Code.MISSING_HEADING,
            preferred=i == 0,
        )
        for i, name in enumerate(closest)
    ]
