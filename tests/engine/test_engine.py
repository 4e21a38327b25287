"""The engine over a real tantivy index on disk: add, modify, delete, rename, restart."""

from __future__ import annotations

import json
import pickle
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memlsp.engine.writer
import memlsp.sync.prepare
from memlsp.engine.engine import Engine
from memlsp.index.manifest import MAGIC, manifest_key, seal
from memlsp.index.store import MANIFEST
from memlsp.model import LinkStatus, SearchRequest
from memlsp.vault.link_graph import LinkGraph
from tests.helpers.engine import open_engine, paths_found
from tests.helpers.vault import snapshot, touch_later, write


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(
        root, "recipes/bread.md", "# Sourdough bread\n\nFlour, water and a starter. See [[oven]].\n"
    )
    write(root, "tools/oven.md", "---\naliases: [stove]\n---\n# Oven\n\nPreheat to 250 degrees.\n")
    write(root, "notes/向量检索.md", "# 向量检索\n\n向量检索是一种语义搜索方法，依赖嵌入模型。\n")
    write(root, "daily/2024-03-01.md", "Baked a sourdough loaf today. [[bread|the bread]]\n")
    write(root, "daily/2024-03-05.md", "Cleaned the oven and baked sourdough again.\n")
    return root


@pytest.fixture
def engine(vault: Path, tmp_path: Path) -> Iterator[Engine]:
    engine = open_engine(vault, tmp_path / "cache")
    engine.refresh()
    yield engine
    engine.close()


def test_search_finds_notes_by_words_and_chinese_words_inside_a_run(engine: Engine) -> None:
    assert paths_found(engine, "starter flour")[0] == "recipes/bread.md"
    assert paths_found(engine, "检索")[0] == "notes/向量检索.md"
    assert paths_found(engine, "语义")[0] == "notes/向量检索.md"
    assert paths_found(engine, "preheating") == ["tools/oven.md"]  # stemmed


def test_alias_and_title_fields_are_searchable(engine: Engine) -> None:
    assert paths_found(engine, "stove") == ["tools/oven.md"]


def test_evidence_on_each_hit(engine: Engine) -> None:
    response = engine.read().search(SearchRequest(query="sourdough starter", limit=5))
    first = response.hits[0]
    assert first.chunk.path == "recipes/bread.md"
    assert first.keyword_rank == 1 and first.keyword_score and first.keyword_score > 0
    assert first.score == pytest.approx(1.0)
    assert set(first.matched_terms) == {"sourdough", "starter"}
    assert first.source == "hit"
    assert response.counts.keyword == 3 and response.counts.hybrid is False
    scores = [hit.score for hit in response.hits]
    assert scores == sorted(scores, reverse=True)


def test_date_filters_are_inclusive(engine: Engine) -> None:
    found = paths_found(engine, "sourdough", start_date="2024-03-01", end_date="2024-03-01")
    assert found == ["daily/2024-03-01.md"]
    found = paths_found(engine, "sourdough", start_date="2024-03-02")
    assert found == ["daily/2024-03-05.md"]


def test_min_score_limit_and_budget(engine: Engine) -> None:
    every = paths_found(engine, "sourdough", expand=False)
    assert len(every) == 3
    assert paths_found(engine, "sourdough", min_score=0.99, expand=False) == every[:1]
    assert paths_found(engine, "sourdough", limit=2, expand=False) == every[:2]
    assert paths_found(engine, "sourdough", budget_tokens=1, expand=False) == every[:1]


def test_link_expansion_lists_neighbours_once(engine: Engine) -> None:
    response = engine.read().search(SearchRequest(query="sourdough starter flour", limit=3))
    bread = next(hit for hit in response.hits if hit.chunk.path == "recipes/bread.md")
    assert [n.path for n in bread.outlinks] == ["tools/oven.md"]
    hit_paths = {hit.chunk.path for hit in response.hits}
    listed = [n.path for hit in response.hits for n in hit.outlinks + hit.inlinks]
    assert len(listed) == len(set(listed))
    assert not hit_paths & set(listed)


def test_added_modified_deleted_notes_show_in_search(engine: Engine, vault: Path) -> None:
    write(vault, "new/kimchi.md", "# Kimchi\n\nNapa cabbage fermented with chili.\n")
    summary = engine.refresh()
    assert (summary.added, summary.modified, summary.deleted) == (1, 0, 0)
    assert paths_found(engine, "cabbage") == ["new/kimchi.md"]

    touch_later(write(vault, "new/kimchi.md", "# Kimchi\n\nRadish instead of cabbage.\n"))
    summary = engine.refresh()
    assert (summary.added, summary.modified) == (0, 1)
    assert paths_found(engine, "radish") == ["new/kimchi.md"]
    assert paths_found(engine, "napa") == []

    (vault / "new/kimchi.md").unlink()
    assert engine.refresh().deleted == 1
    assert paths_found(engine, "radish") == []


def test_rename_moves_search_results_and_keeps_links(engine: Engine, vault: Path) -> None:
    (vault / "archive").mkdir()
    (vault / "tools/oven.md").rename(vault / "archive/oven.md")
    summary = engine.refresh()
    assert (summary.added, summary.deleted) == (1, 1)
    assert paths_found(engine, "preheat") == ["archive/oven.md"]
    [link] = engine.read().links("recipes/bread.md").outlinks
    assert link.resolution.targets == ("archive/oven.md",)


def test_unresolved_link_attaches_when_its_note_appears(engine: Engine, vault: Path) -> None:
    write(vault, "recipes/pizza.md", "Dough like [[bread]], topped per [[tomato sauce]].\n")
    engine.refresh()
    statuses = [i.resolution.status for i in engine.read().links("recipes/pizza.md").outlinks]
    assert statuses == [LinkStatus.RESOLVED, LinkStatus.UNRESOLVED]
    write(vault, "recipes/tomato sauce.md", "# Tomato sauce\n")
    engine.refresh()
    [_, sauce] = engine.read().links("recipes/pizza.md").outlinks
    assert sauce.resolution.targets == ("recipes/tomato sauce.md",)
    assert [i.source for i in engine.read().links("recipes/tomato sauce.md").inlinks] == [
        "recipes/pizza.md"
    ]


def test_refresh_paths_updates_one_note(engine: Engine, vault: Path) -> None:
    touch_later(write(vault, "tools/oven.md", "# Oven\n\nConvection fan.\n"))
    summary = engine.refresh_paths(["tools/oven.md"])
    assert summary.modified == 1
    assert paths_found(engine, "convection") == ["tools/oven.md"]
    (vault / "tools/oven.md").unlink()
    assert engine.refresh_paths(["tools/oven.md"]).deleted == 1
    assert paths_found(engine, "convection") == []
    [link] = engine.read().links("recipes/bread.md").outlinks
    assert link.resolution.status is LinkStatus.UNRESOLVED


def test_restart_on_unchanged_vault_parses_nothing(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = open_engine(vault, tmp_path / "cache")
    first.refresh()
    first.close()

    def no_parsing(*args: object) -> None:
        raise AssertionError("an unchanged note was parsed again")

    monkeypatch.setattr(memlsp.sync.prepare, "parse_file", no_parsing)
    second = open_engine(vault, tmp_path / "cache")
    summary = second.refresh()
    assert (summary.added, summary.modified, summary.deleted) == (0, 0, 0)
    assert summary.notes == 5
    assert paths_found(second, "starter") == ["recipes/bread.md"]
    assert [i.source for i in second.read().links("tools/oven.md").inlinks] == ["recipes/bread.md"]
    second.close()


def test_restart_after_changes_reindexes_only_those(vault: Path, tmp_path: Path) -> None:
    first = open_engine(vault, tmp_path / "cache")
    first.refresh()
    first.close()
    touch_later(write(vault, "tools/oven.md", "# Oven\n\nSteam tray.\n"))
    (vault / "daily/2024-03-05.md").unlink()
    write(vault, "tools/knife.md", "# Knife\n")
    second = open_engine(vault, tmp_path / "cache")
    summary = second.refresh()
    assert (summary.added, summary.modified, summary.deleted) == (1, 1, 1)
    assert paths_found(second, "steam") == ["tools/oven.md"]
    second.close()


def test_a_manifest_written_before_the_link_graph_moved_still_loads(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link graph's module was `memlsp.vault.graph`: a vault indexed then opens without
    parsing anything again."""
    first = open_engine(vault, tmp_path / "cache")
    first.refresh()
    first.close()
    path = first.cache_dir / MANIFEST
    payload = path.read_bytes()[len(MAGIC) + 32 :]
    old = types.ModuleType("memlsp.vault.graph")
    old.LinkGraph = LinkGraph  # type: ignore[attr-defined]
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "memlsp.vault.graph", old)
        patch.setattr(LinkGraph, "__module__", "memlsp.vault.graph")
        written_then = pickle.dumps(pickle.loads(payload), protocol=pickle.HIGHEST_PROTOCOL)
    assert b"memlsp.vault.graph" in written_then and b"link_graph" not in written_then
    path.write_bytes(seal(written_then, manifest_key()))

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged note was parsed again")

    monkeypatch.setattr(memlsp.sync.prepare, "parse_file", no_parsing)
    second = open_engine(vault, tmp_path / "cache")
    summary = second.refresh()
    assert (summary.added, summary.modified, summary.deleted) == (0, 0, 0)
    assert [i.source for i in second.read().links("tools/oven.md").inlinks] == ["recipes/bread.md"]
    second.close()


def test_touched_but_unchanged_file_is_not_reindexed(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = open_engine(vault, tmp_path / "cache")
    first.refresh()
    touch_later(vault / "tools/oven.md")
    summary = first.refresh()
    assert (summary.added, summary.modified) == (0, 0)
    first.close()
    # Its new stat was saved: the next start does not read it again to compare.
    read: list[str] = []
    real = memlsp.sync.prepare.prepare_files

    def reading(root: Path, settings: Any, stats: Any) -> Any:
        read.extend(stat.path for stat in stats)
        return real(root, settings, stats)

    monkeypatch.setattr(memlsp.engine.writer, "prepare_files", reading)
    second = open_engine(vault, tmp_path / "cache")
    second.refresh()
    assert read == []
    second.close()


@pytest.mark.parametrize("damage", ["format", "manifest", "index"])
def test_damaged_cache_is_rebuilt_with_one_message(
    vault: Path, tmp_path: Path, damage: str
) -> None:
    first = open_engine(vault, tmp_path / "cache")
    first.refresh()
    first.close()
    cache = first.cache_dir  # this vault's own folder in the cache root
    if damage == "format":
        (cache / "keyword" / "memlsp-format.json").write_text(json.dumps({"format": -1}))
    elif damage == "manifest":
        (cache / "manifest.pickle").write_bytes(b"not a pickle")
    else:
        (cache / "keyword" / "meta.json").write_text("{ truncated")
    second = open_engine(vault, tmp_path / "cache")
    summary = second.refresh()
    assert summary.added == 5
    assert len(summary.messages) == 1
    assert "rebuilt" in summary.messages[0] or "re-indexed" in summary.messages[0]
    assert paths_found(second, "starter") == ["recipes/bread.md"]
    assert second.read().keyword.chunk_count() == 5
    second.close()


def test_second_process_on_same_index_serves_read_only(
    engine: Engine, vault: Path, tmp_path: Path
) -> None:
    other = open_engine(vault, tmp_path / "cache")
    summary = other.refresh()
    assert summary.read_only
    assert any("read-only" in message for message in summary.messages)
    assert paths_found(other, "starter") == ["recipes/bread.md"]
    other.close()


def test_default_cache_is_outside_the_vault_and_vault_is_untouched(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    before = snapshot(vault)
    engine = Engine.open(vault)
    engine.refresh()
    assert engine.cache_dir.is_relative_to(tmp_path / "xdg" / "memlsp")
    assert (engine.cache_dir / "manifest.pickle").exists()
    engine.close()
    assert snapshot(vault) == before


def test_records_file_chunks_with_overlap_and_is_searchable(engine: Engine, vault: Path) -> None:
    lines = [
        json.dumps({"role": "user", "content": f"memory {n} about topic{n}"}) for n in range(400)
    ]
    write(vault, "memory/log.jsonl", "\n".join(lines) + "\n")
    engine.refresh()
    hits = engine.read().search(SearchRequest(query="topic250", expand=False)).hits
    assert hits and hits[0].chunk.path == "memory/log.jsonl"
    assert hits[0].chunk.start_line <= 251 <= hits[0].chunk.end_line


def test_restored_graph_catches_up_with_offline_changes(vault: Path, tmp_path: Path) -> None:
    write(vault, "recipes/pizza.md", "Bake in the [[pizza stone]] and add ![[photo.png]].\n")
    first = open_engine(vault, tmp_path / "cache")
    first.refresh()
    statuses = [i.resolution.status for i in first.read().links("recipes/pizza.md").outlinks]
    assert statuses == [LinkStatus.UNRESOLVED, LinkStatus.UNRESOLVED]
    first.close()

    write(vault, "tools/pizza stone.md", "# Pizza stone\n")
    (vault / "recipes/photo.png").write_bytes(b"\x89PNG")
    (vault / "tools/oven.md").unlink()
    second = open_engine(vault, tmp_path / "cache")
    second.refresh()
    targets = [i.resolution.targets for i in second.read().links("recipes/pizza.md").outlinks]
    assert targets == [("tools/pizza stone.md",), ("recipes/photo.png",)]
    [oven] = second.read().links("recipes/bread.md").outlinks
    assert oven.resolution.status is LinkStatus.UNRESOLVED
    second.close()


def test_single_note_updates_reach_the_manifest_on_close(vault: Path, tmp_path: Path) -> None:
    first = open_engine(vault, tmp_path / "cache")
    first.refresh()
    touch_later(write(vault, "tools/oven.md", "# Oven\n\nPizza mode.\n"))
    first.refresh_paths(["tools/oven.md"])
    first.close()
    second = open_engine(vault, tmp_path / "cache")
    summary = second.refresh()
    assert (summary.added, summary.modified, summary.deleted) == (0, 0, 0)
    assert paths_found(second, "pizza") == ["tools/oven.md"]
    second.close()


def test_a_crash_before_the_manifest_is_saved_only_reindexes_again(
    vault: Path, tmp_path: Path
) -> None:
    first = open_engine(vault, tmp_path / "cache")
    first.refresh()
    touch_later(write(vault, "tools/oven.md", "# Oven\n\nPizza mode.\n"))
    first.refresh_paths(["tools/oven.md"])
    first._store.close()  # the index is committed; the process dies before saving the manifest
    second = open_engine(vault, tmp_path / "cache")
    summary = second.refresh()
    assert (summary.added, summary.modified, summary.deleted) == (0, 1, 0)
    assert paths_found(second, "pizza") == ["tools/oven.md"]
    assert second.read().keyword.chunk_count() == 5
    second.close()


def test_matched_terms_in_mixed_chinese_and_latin_text(engine: Engine, vault: Path) -> None:
    write(vault, "notes/llm.md", "GPT模型的上下文窗口 and retrieval\n")
    engine.refresh()
    [hit] = engine.read().search(SearchRequest(query="gpt", expand=False)).hits
    assert hit.matched_terms == ("gpt",)
    [hit] = engine.read().search(SearchRequest(query="上下文 gpt", expand=False)).hits
    assert {"上下文", "gpt"} <= set(
        hit.matched_terms
    )  # jieba also adds the words inside: 上下, 下文


def test_open_buffer_wins_over_disk_until_it_closes(engine: Engine, vault: Path) -> None:
    engine.apply_text("tools/oven.md", "# Oven\n\nUnsaved note about a rotisserie. [[knife]]\n")
    assert paths_found(engine, "rotisserie") == ["tools/oven.md"]
    assert paths_found(engine, "preheat") == []
    [link] = engine.read().links("tools/oven.md").outlinks
    assert link.link.target == "knife"

    touch_later(write(vault, "tools/oven.md", "# Oven\n\nDisk says convection.\n"))
    engine.refresh_paths(["tools/oven.md"])  # a watcher event while the buffer is open
    engine.refresh()
    assert paths_found(engine, "rotisserie") == ["tools/oven.md"]
    text = engine.read().view.read("tools/oven.md")
    assert text is not None and "rotisserie" in text

    engine.release_text("tools/oven.md")
    assert paths_found(engine, "rotisserie") == []
    assert paths_found(engine, "convection") == ["tools/oven.md"]
    assert engine.read().links("tools/oven.md").outlinks == ()


def test_a_note_renamed_behind_its_open_buffer_leaves_no_ghost(engine: Engine, vault: Path) -> None:
    write(vault, "tools/oven.md", "# Oven\n\nconvection\n")
    engine.refresh()
    engine.apply_text("tools/oven.md", "# Oven\n\nconvection rotisserie\n")
    (vault / "tools/oven.md").rename(vault / "tools/stove.md")  # another program renames it
    engine.refresh_paths(["tools/oven.md", "tools/stove.md"])  # what the watcher reports
    assert paths_found(engine, "convection") == ["tools/stove.md"]
    assert paths_found(engine, "rotisserie") == []
    engine.apply_text("tools/oven.md", "# Oven\n\nconvection rotisserie grill\n")  # typing on
    assert paths_found(engine, "grill") == []
    # Saved from the open tab, the file exists again and the buffer's text is the note.
    write(vault, "tools/oven.md", "# Oven\n\nconvection rotisserie grill\n")
    engine.refresh_paths(["tools/oven.md"])
    assert paths_found(engine, "grill") == ["tools/oven.md"]
    engine.release_text("tools/oven.md")
    assert sorted(paths_found(engine, "convection")) == ["tools/oven.md", "tools/stove.md"]


def test_buffer_for_a_new_unsaved_note_disappears_when_closed(engine: Engine) -> None:
    engine.apply_text("drafts/idea.md", "# Idea\n\nzucchini bread\n")
    assert paths_found(engine, "zucchini") == ["drafts/idea.md"]
    engine.release_text("drafts/idea.md")
    assert paths_found(engine, "zucchini") == []


def test_attachments_come_and_go_through_refresh_paths(engine: Engine, vault: Path) -> None:
    write(vault, "recipes/pizza.md", "![[crust.jpg]]\n")
    engine.refresh_paths(["recipes/pizza.md"])
    [link] = engine.read().links("recipes/pizza.md").outlinks
    assert link.resolution.status is LinkStatus.UNRESOLVED
    (vault / "recipes/crust.jpg").write_bytes(b"jpg")
    engine.refresh_paths(["recipes/crust.jpg"])
    [link] = engine.read().links("recipes/pizza.md").outlinks
    assert link.resolution.targets == ("recipes/crust.jpg",)
    (vault / "recipes/crust.jpg").unlink()
    engine.refresh_paths(["recipes/crust.jpg"])
    [link] = engine.read().links("recipes/pizza.md").outlinks
    assert link.resolution.status is LinkStatus.UNRESOLVED


@pytest.mark.e2e  # a refresh this large runs a pool of parse processes
def test_requests_answer_while_a_progressive_refresh_runs(tmp_path: Path) -> None:
    vault = tmp_path / "big"
    for n in range(600):
        write(
            vault,
            f"n/{n:04}.md",
            f"# Note {n}\n\nshared words and token{n}. [[{(n + 1) % 600:04}]]\n",
        )
    engine = open_engine(vault, tmp_path / "cache")
    errors: list[BaseException] = []
    seen: list[int] = []

    def index() -> None:
        try:
            engine.refresh(progressive=True)
        except BaseException as error:
            errors.append(error)

    worker = threading.Thread(target=index)
    worker.start()
    while worker.is_alive():
        seen.append(engine.read().keyword.chunk_count())
        paths_found(engine, "shared", limit=50)
        engine.read().links("n/0001.md")
    worker.join()
    assert not errors
    assert seen == sorted(seen)  # answers only ever grow while indexing
    assert engine.read().keyword.chunk_count() == 600
    assert [i.source for i in engine.read().links("n/0001.md").inlinks] == ["n/0000.md"]
    engine.close()


def test_a_cancelled_refresh_keeps_what_it_did_and_the_next_one_finishes(
    vault: Path, tmp_path: Path
) -> None:
    engine = open_engine(vault, tmp_path / "cache")
    cancel = threading.Event()
    cancel.set()  # e.g. the editor shut down while the vault was being indexed
    summary = engine.refresh(cancel=cancel)
    assert summary.added == 0 and paths_found(engine, "starter") == []
    summary = engine.refresh()
    assert summary.added == 5 and paths_found(engine, "starter") == ["recipes/bread.md"]
    engine.close()
