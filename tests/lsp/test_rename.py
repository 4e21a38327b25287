"""Rename through a real client with the recorded capabilities of VS Code and Neovim: the edit is
applied to the files as an editor applies it, the server indexes what changed, and every former
inlink resolves to the renamed note; refusals come back as errors with the reason."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import Session

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]


def _column(line: str, character: int, encoding: str) -> int:
    """A client column on `line` as a code-point index."""
    if encoding == "utf-32":
        return character
    codec, width = ("utf-16-le", 2) if encoding == "utf-16" else ("utf-8", 1)
    return len(line.encode(codec)[: character * width].decode(codec))


def apply(session: Session, edit: types.WorkspaceEdit) -> list[str]:
    """Apply a workspace edit to the vault's files, as an editor does; the paths it changed."""
    assert edit.document_changes is not None, "both recorded clients take document changes"
    touched = []
    for change in edit.document_changes:
        if isinstance(change, types.RenameFile):
            old, new = (
                session.vault / session.relative(change.old_uri),
                session.relative(change.new_uri),
            )
            assert not (session.vault / new).exists()
            (session.vault / new).parent.mkdir(parents=True, exist_ok=True)
            old.rename(session.vault / new)
            touched.append(new)
            continue
        assert isinstance(change, types.TextDocumentEdit)
        path = session.relative(change.text_document.uri)
        lines = session.text(path).split("\n")
        for text_edit in sorted(
            change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
        ):
            assert isinstance(text_edit, types.TextEdit)
            start, end = text_edit.range.start, text_edit.range.end
            assert start.line == end.line
            line = lines[start.line]
            begin = _column(line, start.character, session.encoding)
            stop = _column(line, end.character, session.encoding)
            lines[start.line] = line[:begin] + text_edit.new_text + line[stop:]
        session.write(path, "\n".join(lines))
        touched.append(path)
    return touched


async def rename(session: Session, path: str, needle: str, new_name: str, offset: int = 2) -> Any:
    return await session.client.text_document_rename_async(
        types.RenameParams(session.doc(path), session.find(path, needle, offset), new_name)
    )


async def inlink_sources(session: Session, path: str) -> list[str]:
    answer = await session.request("memlsp/links", {"uri": session.uri(path)})
    return sorted({link["source"] for link in answer["inlinks"]}) if answer else []


async def test_prepare_rename_shows_the_note_name_under_a_link(own: Session) -> None:
    answer = await own.client.text_document_prepare_rename_async(
        types.PrepareRenameParams(own.doc("index.md"), own.find("index.md", "[[向量检索]] and", 3))
    )
    assert isinstance(answer, types.PrepareRenamePlaceholder)
    assert answer.placeholder == "向量检索"
    start = own.find("index.md", "[[向量检索]] and", 2)
    assert answer.range == types.Range(
        start, types.Position(start.line, start.character + own.units("向量检索"))
    )


async def test_renaming_a_note_rewrites_every_link_and_they_resolve_after_reindexing(
    own: Session,
) -> None:
    before = await inlink_sources(own, "search/向量检索.md")
    assert len(before) >= 7
    own.open("index.md")  # an open note's edit carries its version
    edit = await rename(own, "index.md", "[[向量检索]] and", "向量搜索")
    assert isinstance(edit, types.WorkspaceEdit) and edit.document_changes
    assert isinstance(edit.document_changes[-1], types.RenameFile)
    versions = {
        own.relative(c.text_document.uri): c.text_document.version
        for c in edit.document_changes
        if isinstance(c, types.TextDocumentEdit)
    }
    assert versions["index.md"] == 1 and versions["search/bm25.md"] is None
    assert not (own.vault / "search/向量搜索.md").exists()  # the server wrote nothing
    own.close("index.md")
    # The client applies the edit, then announces its file rename (VS Code does): the links are
    # done already, so that answer has no edit.
    [move] = [c for c in edit.document_changes if isinstance(c, types.RenameFile)]
    echo = await own.client.workspace_will_rename_files_async(
        types.RenameFilesParams(
            files=[types.FileRename(old_uri=move.old_uri, new_uri=move.new_uri)]
        )
    )
    assert echo is None
    texts = {p.relative_to(own.vault).as_posix(): p.read_bytes() for p in own.vault.rglob("*.md")}
    apply(own, edit)
    # Nothing else changed: other files keep every byte; in the edited ones, each changed line is
    # the old line with the name replaced (a link's target), and every other line is kept.
    for path, old in texts.items():
        now = own.vault / path.replace("search/向量检索.md", "search/向量搜索.md")
        old_lines, new_lines = old.decode().split("\n"), now.read_text(encoding="utf-8").split("\n")
        assert len(old_lines) == len(new_lines), path
        for before_line, after_line in zip(old_lines, new_lines, strict=True):
            assert after_line == before_line or after_line.replace("向量搜索", "向量检索") == (
                before_line
            ), (path, before_line, after_line)

    async def moved() -> list[str]:
        return await inlink_sources(own, "search/向量搜索.md")

    assert await own.until(moved, timeout=20) == [
        path.replace("search/向量检索.md", "search/向量搜索.md") for path in before
    ]
    assert "[[向量搜索#HNSW（分层可导航小世界图）]]" in own.text("search/hybrid-search.md")
    assert "[[向量搜索#^hnsw-params]]" in own.text("search/hybrid-search.md")


async def test_a_taken_or_refused_name_is_refused_with_the_reason(own: Session) -> None:
    with pytest.raises(JsonRpcException, match=r"search/bm25\.md already exists"):
        await rename(own, "index.md", "[[hybrid-search|", "BM25")
    with pytest.raises(JsonRpcException, match="cannot contain /"):
        await rename(own, "index.md", "[[hybrid-search|", "a/b")
    plain = types.Position(2, 0)  # on plain text: nothing, in the client's words or ours
    prepared = await own.client.text_document_prepare_rename_async(
        types.PrepareRenameParams(own.doc("index.md"), plain)
    )
    assert prepared is None
    with pytest.raises(JsonRpcException, match="Nothing to rename here"):
        await own.client.text_document_rename_async(
            types.RenameParams(own.doc("index.md"), plain, "x")
        )


async def test_a_tag_is_renamed_in_every_note(own: Session) -> None:
    own.write("inbox/tagged.md", "---\ntags: [待办/某天]\n---\n记下。#待办/某天 #待办/某天/细节\n")
    await own.until(lambda: _has_tag(own, "inbox/tagged.md"))
    edit = await rename(own, "inbox/tagged.md", "#待办/某天 ", "#以后", 2)
    assert isinstance(edit, types.WorkspaceEdit)
    apply(own, edit)
    assert own.text("inbox/tagged.md") == "---\ntags: [以后]\n---\n记下。#以后 #以后/细节\n"


async def _has_tag(session: Session, path: str) -> bool:
    """Whether the index has the note's tags yet (the notes written here come in by the watcher)."""
    answer = await session.request("memlsp/status", {})
    return bool(answer) and "待办/某天" in (
        await session.hover(path, session.find(path, "#待办/某天 ", 2)) or ""
    )


async def test_moving_a_folder_in_the_explorer_returns_the_edits_that_keep_its_links(
    own: Session,
) -> None:
    old, new = own.uri("travel"), own.uri("trips/past")
    edit = await own.client.workspace_will_rename_files_async(
        types.RenameFilesParams(files=[types.FileRename(old_uri=old, new_uri=new)])
    )
    if own.name == "neovim":  # Neovim 0.11 announces no file operations; asked anyway, it answers
        assert edit is None or isinstance(edit, types.WorkspaceEdit)
        return
    assert isinstance(edit, types.WorkspaceEdit) and edit.document_changes
    assert not any(isinstance(c, types.RenameFile) for c in edit.document_changes)
    before = await inlink_sources(own, "travel/ideas.md")
    apply(own, edit)
    assert "[[trips/past/ideas]] for the spring trip" in own.text("index.md")
    (own.vault / "trips").mkdir()
    (own.vault / "travel").rename(own.vault / "trips/past")

    async def moved() -> list[str]:
        return await inlink_sources(own, "trips/past/ideas.md")

    assert await own.until(moved, timeout=20) == sorted(
        p.replace("travel/", "trips/past/") for p in before
    )


async def test_a_rename_asked_while_the_note_is_typed_into_is_right_or_refused(
    own: Session,
) -> None:
    """The edit's ranges come from the indexed text: asked a moment after a keystroke the index
    has not taken yet, the answer is refused (try again) rather than sent for the wrong text."""
    text = "# Typing\n\nsee [[embeddings]] here\n"
    own.write("inbox/typing.md", text)
    own.open("inbox/typing.md", text)
    await own.until(lambda: inlink_sources(own, "ml/embeddings.md"), timeout=20)

    async def linked() -> bool:
        return "inbox/typing.md" in await inlink_sources(own, "ml/embeddings.md")

    await own.until(linked, timeout=20)
    typed = "# Typing\n\nmore words first, see [[embeddings]] here\n"
    own.change("inbox/typing.md", 2, (None, typed))
    at = own.find("inbox/typing.md", "[[embeddings]]", 3, text=typed)
    try:
        edit = await own.client.text_document_rename_async(
            types.RenameParams(own.doc("inbox/typing.md"), at, "vectors of words")
        )
    except JsonRpcException as refused:
        assert "changed since it was indexed" in str(refused)
        return
    assert isinstance(edit, types.WorkspaceEdit) and edit.document_changes
    [mine] = [
        c
        for c in edit.document_changes
        if isinstance(c, types.TextDocumentEdit)
        and own.relative(c.text_document.uri) == "inbox/typing.md"
    ]
    assert mine.text_document.version == 2
    [replace] = mine.edits
    line = typed.split("\n")[2]
    start = _column(line, replace.range.start.character, own.encoding)
    end = _column(line, replace.range.end.character, own.encoding)
    assert line[start:end] == "embeddings"
