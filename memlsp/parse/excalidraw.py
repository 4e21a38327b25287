"""Excalidraw drawings saved as notes (Obsidian's Excalidraw plugin).

Such a note carries `excalidraw-plugin` in its frontmatter and holds, after a banner the plugin
writes, the drawing's text elements (words, each ending in ` ^elementid`), the files it embeds, and
the drawing itself as a `json` or `compressed-json` block under a "Drawing" heading. Only the words
are worth finding, and only by keyword: they are labels scattered on a canvas, not prose.
"""

from __future__ import annotations

import re

# The label a drawing's chunks carry after their headings, which also keeps them from being
# embedded (`parse.prose.is_prose`).
DRAWING_LABEL = "Excalidraw drawing"
DRAWING_HEADING = "Drawing"

_PLUGIN_KEY = re.compile(r"^excalidraw-plugin\s*:")
# The banner ("==⚠  Switch to EXCALIDRAW VIEW ... ⚠==") and the `%%` lines that hide the drawing
# in reading view.
_BOILERPLATE = re.compile(r"^\s*(?:==⚠.*|%%\s*)$")


def is_drawing(frontmatter_lines: list[str]) -> bool:
    return any(_PLUGIN_KEY.match(line) for line in frontmatter_lines)


def is_boilerplate(line: str) -> bool:
    return _BOILERPLATE.match(line) is not None
