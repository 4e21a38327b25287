"""Domain values to LSP types and back; the one place that knows position encodings.

Inside memlsp a column is a count of code points. The client negotiated UTF-16 (VS Code), UTF-8
(Neovim 0.11) or UTF-32; spans carry their columns in every unit, and positions coming in are
converted with the line's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path, to_fs_path

from memlsp import wire
from memlsp.model import Hit, Span
from memlsp.navigation.completion import Completions, Kind
from memlsp.navigation.edits import Change
from memlsp.navigation.outline import Section
from memlsp.navigation.places import Place

_CONVERTER = get_converter()


def encoding_name(kind: types.PositionEncodingKind | str | None) -> str:
    """ "utf-8", "utf-16" or "utf-32" (the LSP default, UTF-16, when nothing was negotiated)."""
    name = getattr(kind, "value", kind)
    return name if name in ("utf-8", "utf-16", "utf-32") else "utf-16"


def uri_of(path: Path) -> str:
    return _uri(str(path))


def note_uri(root: Path, path: str) -> str:
    """The URI of a vault file; cached, as a hub's references name thousands of them."""
    return _note_uri(str(root), path)


@lru_cache(maxsize=65536)
def _note_uri(root: str, path: str) -> str:
    return _uri(f"{root}/{path}")


@lru_cache(maxsize=65536)
def _uri(path: str) -> str:
    # pygls quotes through urllib and pathlib: ~15 µs a call, 75 ms for a hub's 5,000 references.
    return from_fs_path(path) or Path(path).as_uri()


class AsJson(list[Any]):
    """A result already in JSON form: plain dictionaries, which pygls's converter only copies.

    lsprotocol's validated classes cost ~7 µs each to build and as much to unstructure: a hub's
    5,000 references took 55 ms that way, against 10 ms as plain dictionaries.
    """


def location_json(root: Path, place: Place, encoding: str) -> dict[str, Any]:
    """An LSP `Location` as JSON (see `AsJson`)."""
    return {"uri": note_uri(root, place.path), "range": wire.range_json(place.span, encoding)}


def path_of(uri: str) -> Path | None:
    path = to_fs_path(uri)
    return Path(path) if path else None


def column_of(line_text: str, character: int, kind: types.PositionEncodingKind | str | None) -> int:
    """A client's column on a line, as a code-point column (past the end: the line's end).

    Done by the codecs in C rather than a loop over characters: on a 5 MB single-line note the
    loop took a second for every request.
    """
    encoding = encoding_name(kind)
    character = max(0, character)
    if encoding == "utf-32" or line_text.isascii():
        return min(character, len(line_text))
    codec, width = ("utf-16-le", 2) if encoding == "utf-16" else ("utf-8", 1)
    before = line_text.encode(codec)[: character * width]
    return len(before.decode(codec, errors="ignore"))  # a split character counts as before it


def span_range(span: Span, encoding: str) -> types.Range:
    start, end = span.columns(encoding)
    return types.Range(types.Position(span.line, start), types.Position(span.line, end))


def line_range(first: int, last: int | None = None) -> types.Range:
    """Whole lines, 0-based; `last` inclusive (the position after it starts the next line)."""
    if last is None:
        return types.Range(types.Position(first, 0), types.Position(first, 0))
    return types.Range(types.Position(first, 0), types.Position(last + 1, 0))


def place_uri(root: Path, place: Place) -> str:
    """A clickable link into a note, for Markdown in hovers: VS Code opens `#L12` at line 12."""
    uri = note_uri(root, place.path)
    return f"{uri}#L{place.span.line + 1}" if place.span.line else uri


def symbol_name(hit: Hit) -> str:
    heading = hit.chunk.heading
    return f"{hit.title} › {heading}" if heading and heading != hit.title else hit.title


def workspace_symbol(root: Path, hit: Hit) -> types.WorkspaceSymbol:
    chunk = hit.chunk
    return types.WorkspaceSymbol(
        name=symbol_name(hit),
        kind=types.SymbolKind.String if chunk.heading else types.SymbolKind.File,
        container_name=chunk.path,
        location=types.Location(
            note_uri(root, chunk.path), line_range(chunk.start_line - 1, chunk.end_line - 1)
        ),
    )


def document_symbol(section: Section, encoding: str) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=section.name or "(untitled)",
        kind=types.SymbolKind.String,
        range=line_range(section.span.line, section.end_line),
        selection_range=span_range(section.span, encoding),
        detail="#" * section.level,
        children=[document_symbol(child, encoding) for child in section.children],
    )


def call_item(root: Path, path: str, name: str, detail: str) -> types.CallHierarchyItem:
    return types.CallHierarchyItem(
        name=name,
        kind=types.SymbolKind.File,
        uri=note_uri(root, path),
        range=line_range(0),
        selection_range=line_range(0),
        detail=detail,
        data={"path": path},
    )


def markdown(text: str) -> types.Hover:
    """`text` is sent as it is: note text in it must be made safe first (markdown_safe)."""
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


_COMPLETION_KINDS = {
    Kind.NOTE: types.CompletionItemKind.File,
    Kind.FILE: types.CompletionItemKind.File,
    Kind.ALIAS: types.CompletionItemKind.Reference,
    Kind.HEADING: types.CompletionItemKind.Reference,
    Kind.BLOCK: types.CompletionItemKind.Reference,
    Kind.TAG: types.CompletionItemKind.Keyword,
}


def completion_list(
    found: Completions, line_text: str, line: int, encoding: str, snippets: bool = False
) -> dict[str, Any]:
    """A `CompletionList` as JSON (see `AsJson`). Items keep the server's order (`sortText`) and
    say what the client filters by, the text they replace included. With `snippets` (the client
    takes them), an item whose text has a space is a snippet of that text: Neovim inserts a plain
    item only up to its first space, and expands a snippet whole."""
    items = []
    for rank, item in enumerate(found.items):
        span = Span.on_line(line_text, line, item.start, item.end)
        spaced = snippets and any(character.isspace() for character in item.new_text)
        new_text = _SNIPPET_SPECIAL.sub(r"\\\g<0>", item.new_text) if spaced else item.new_text
        data: dict[str, Any] = {
            "label": item.label,
            "kind": _COMPLETION_KINDS[item.kind].value,
            "detail": item.detail,
            "sortText": f"{rank:04d}",
            "filterText": item.filter_text or item.label,
            "textEdit": {"range": wire.range_json(span, encoding), "newText": new_text},
        }
        if spaced:
            data["insertTextFormat"] = types.InsertTextFormat.Snippet.value
        items.append(data)
    return {"isIncomplete": found.incomplete, "items": items}


# What a snippet reads as syntax: escaped, the text is inserted as it is.
_SNIPPET_SPECIAL = re.compile(r"[\\$}]")


def workspace_edit(
    root: Path,
    change: Change,
    encoding: str,
    version_of: Callable[[str], int | None],
    document_changes: bool = True,
) -> dict[str, Any]:
    """A change as one `WorkspaceEdit`, in JSON form (see `AsJson`: a hub's rename edits 5,000
    notes); with `document_changes` (the client said it takes them) the file it creates,
    versioned text edits, then the files it renames, in that order. `version_of` gives an open
    document's version from its URI."""
    edits: dict[str, list[dict[str, Any]]] = {}
    for edit in change.edits:
        text_edit = {"range": wire.range_json(edit.span, encoding), "newText": edit.new_text}
        edits.setdefault(note_uri(root, edit.path), []).append(text_edit)
    if not document_changes:
        return {"changes": edits}
    changes: list[dict[str, Any]] = []
    if change.creates is not None:
        created = note_uri(root, change.creates)
        changes.append({"kind": "create", "uri": created, "options": {"ignoreIfExists": True}})
    for uri, text_edits in edits.items():
        document = {"uri": uri, "version": version_of(uri)}
        changes.append({"textDocument": document, "edits": text_edits})
    for move in change.moves:
        old, new = note_uri(root, move.old), note_uri(root, move.new)
        changes.append({"kind": "rename", "oldUri": old, "newUri": new})
    return {"documentChanges": changes}


def structured_edit(edit: dict[str, Any]) -> types.WorkspaceEdit:
    """The same edit as lsprotocol's type, for the few places that need one (a code action)."""
    converted: types.WorkspaceEdit = _CONVERTER.structure(edit, types.WorkspaceEdit)
    return converted


def fields(method: str, params: Any) -> dict[str, Any]:
    """A custom request's params, a JSON object as it came (see `MemlspProtocol`); none is none."""
    # Neovim encodes an empty Lua table `{}` as `[]`: no fields either.
    if params is None or params == []:
        return {}
    if not isinstance(params, dict):
        raise JsonRpcInvalidParams(
            f"{method}: params must be an object, not {wire.json_kind(params)}"
        )
    return params
