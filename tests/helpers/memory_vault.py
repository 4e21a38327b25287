"""A vault held in a dictionary (path -> text), seen as navigation sees one, and changes applied to
it as an editor applies them: for tests of edits (rename, moves) that re-index what they wrote."""

from __future__ import annotations

from memlsp.model import LinkStatus
from memlsp.navigation.edits import Change
from memlsp.parse.markdown import parse_markdown, split_lines
from memlsp.vault.names import is_note_path
from memlsp.vault.view import VaultView
from tests.helpers.vault import graph_of


def memory_view(files: dict[str, str]) -> VaultView:
    notes = [parse_markdown(path, text) for path, text in files.items() if is_note_path(path)]
    graph = graph_of(notes, [path for path in files if not is_note_path(path)])
    return VaultView(0, graph.freeze(), files.get)


def applied(files: dict[str, str], change: Change) -> dict[str, str]:
    """The vault after the change: text edits on each file (by the paths before any move, in
    reverse order so earlier spans stay right), then the moves."""
    result = dict(files)
    by_path: dict[str, list[tuple[int, int, int, str]]] = {}
    for edit in change.edits:
        span = edit.span
        by_path.setdefault(edit.path, []).append((span.line, span.start, span.end, edit.new_text))
    for path, edits in by_path.items():
        lines = split_lines(result[path])
        previous: tuple[int, int] | None = None
        for line, start, end, new_text in sorted(edits, reverse=True):
            assert previous is None or (line, end) <= previous, f"overlapping edits in {path}"
            previous = (line, start)
            lines[line] = lines[line][:start] + new_text + lines[line][end:]
        result[path] = "\n".join(lines)
    for move in change.moves:
        assert move.new not in result, f"{move.new} exists"
        result[move.new] = result.pop(move.old)
    return result


def targets(view: VaultView) -> dict[tuple[str, int, int], tuple[str, ...]]:
    """Where every resolved link goes, by (source, line, column of the link)."""
    found = {}
    for path in view.graph.notes:
        for item in view.graph.outlinks(path):
            if item.resolution.status in (LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS):
                span = item.link.span
                found[(path, span.line, span.start)] = item.resolution.targets[:1]
    return found
