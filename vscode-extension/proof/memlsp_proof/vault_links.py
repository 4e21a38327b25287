"""The links written in the vault copy, read from disk: what the code lens and the rename checks
compare the editor's answers with."""

from __future__ import annotations

import posixpath
import re
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

# --- The code lens, and renaming notes (last: a rename changes the vault copy) -------------------

# A note's wikilinks ([[target#anchor|label]], the target without its anchor) and Markdown links'
# destinations (<...> or up to a space or `)`).
LINK_TARGET = re.compile(
    r"!?\[\[(?P<wiki>[^\[\]|#\n]*)[^\[\]\n]*\]\]|\]\(\s*(?:<(?P<angle>[^>\n]*)>|(?P<md>[^)\s]+))"
)
URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class LinkAt:
    line: int
    start: int  # columns of the target as written: a wikilink's before its `#`, a Markdown
    end: int  # destination's whole (with its `<>` and `#anchor`)
    target: str  # a Markdown destination's without its anchor, percent-decoded
    wiki: bool
    anchor: str  # a Markdown destination's (a wikilink's stays on the line)
    written: str  # line[start:end]


def links_in(text: str) -> list[LinkAt]:
    """Each wikilink and local Markdown link of a note (not URLs, not `#heading` alone)."""
    found = []
    for number, line in enumerate(text.splitlines()):
        for match in LINK_TARGET.finditer(line):
            if match.group("wiki") is not None:
                start, end = match.span("wiki")
                target, anchor = match.group("wiki"), ""
            else:
                group = "angle" if match.group("angle") is not None else "md"
                start, end = match.span(group)
                if group == "angle":
                    start, end = start - 1, end + 1
                target, _, anchor = match.group(group).partition("#")
                target = urllib.parse.unquote(target)
            if target.strip() and not URL_SCHEME.match(target):
                wiki = match.group("wiki") is not None
                written = line[start:end]
                found.append(LinkAt(number, start, end, target.strip(), wiki, anchor, written))
    return found


def resolve_link(files: set[str], source: str, target: str) -> str | None:
    """The vault file a link leads to, as Obsidian finds it: the path relative to the note, else a
    vault path or a file name (a note's without `.md`), whatever the case; None when none."""
    key = target.lower()
    relative = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    for wanted in (relative.lower(), key.removeprefix("/")):
        hits = sorted(f for f in files if f.lower() in (wanted, wanted + ".md"))
        if hits:
            return hits[0]
    hits = sorted(f for f in files if f.lower().endswith(("/" + key, "/" + key + ".md")))
    return hits[0] if hits else None


def vault_texts(vault: Path) -> dict[str, bytes]:
    """Every file of the vault copy by its vault-relative path."""
    return {
        path.relative_to(vault).as_posix(): path.read_bytes()
        for path in sorted(vault.rglob("*"))
        if path.is_file() and ".obsidian" not in path.parts
    }


def links_to(texts: dict[str, bytes], target: str) -> dict[str, list[LinkAt]]:
    """The links into `target` by the note they are in (itself left out)."""
    files = set(texts)
    found: dict[str, list[LinkAt]] = {}
    for path, data in texts.items():
        if path.endswith(".md") and path != target:
            links = [
                link
                for link in links_in(data.decode("utf-8"))
                if resolve_link(files, path, link.target) == target
            ]
            if links:
                found[path] = links
    return found
