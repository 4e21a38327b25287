"""Facts the fixture vault (fixtures/vault, described in tests/fixture_vault.md) was written to show."""

from __future__ import annotations

import pytest

from memlsp.model import LinkStatus, Note, ResolvedLink
from memlsp.parse.chunks import chunk_note
from memlsp.parse.markdown import split_lines
from memlsp.parse.tokens import estimate_tokens
from memlsp.vault.anchors import find_block, find_heading
from memlsp.vault.link_graph import LinkGraph
from tests.helpers.vault import FIXTURE_VAULT, graph_of, outlink

Vault = tuple[dict[str, Note], list[str]]


@pytest.fixture(scope="module")
def graph(fixture_notes: Vault) -> LinkGraph:
    notes, files = fixture_notes
    return graph_of(notes, files)


def links_with(graph: LinkGraph, status: LinkStatus) -> set[tuple[str, str]]:
    return {(item.source, item.link.target) for item in graph.links_with_status(status)}


def all_links(graph: LinkGraph) -> list[ResolvedLink]:
    return [item for path in sorted(graph.notes) for item in graph.outlinks(path)]


def test_inventory(fixture_notes: Vault) -> None:
    notes, files = fixture_notes
    assert len(notes) == 24
    assert files == ["assets/retrieval-pipeline.png", "assets/search diagram.png"]
    assert (FIXTURE_VAULT / files[0]).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert {path.split("/")[0] for path in notes if "/" in path} == {
        "cooking",
        "daily",
        "inbox",
        "ml",
        "pkm",
        "search",
        "travel",
    }


def test_counts(graph: LinkGraph) -> None:
    assert graph.counts() == {"links": 92, "unresolved": 8, "ambiguous": 3}


def test_only_the_broken_frontmatter_has_a_problem(fixture_notes: Vault) -> None:
    notes, _ = fixture_notes
    assert {path for path, note in notes.items() if note.problems} == {"inbox/broken-config.md"}
    broken = notes["inbox/broken-config.md"]
    assert "invalid YAML" in broken.problems[0]
    assert broken.body_start_line == 0
    assert broken.title == "Search team sync"
    assert [t.name for t in broken.tags] == ["search/chinese"]
    assert [link.target for link in broken.links] == ["hybrid-search", "Search Team Roadmap"]


def test_ambiguous_duplicate_name(graph: LinkGraph) -> None:
    candidates = ("cooking/ideas.md", "travel/ideas.md")
    by_source = {
        item.source: item.resolution for item in graph.links_with_status(LinkStatus.AMBIGUOUS)
    }
    assert set(by_source) == {"index.md", "cooking/weeknight-dinners.md", "travel/kyoto-2023.md"}
    assert all(r.candidates == candidates for r in by_source.values())
    assert by_source["index.md"].targets == ("travel/ideas.md",)  # the shorter path
    assert by_source["cooking/weeknight-dinners.md"].targets == ("cooking/ideas.md",)  # same folder
    assert by_source["travel/kyoto-2023.md"].targets == ("travel/ideas.md",)
    # naming the folder is not ambiguous
    assert outlink(graph, "index.md", "travel/ideas").resolution.status is LinkStatus.RESOLVED


def test_broken_links(graph: LinkGraph) -> None:
    assert links_with(graph, LinkStatus.UNRESOLVED) == {
        ("daily/2024-03-01.md", "Learning to Rank"),
        ("daily/2024-03-01.md", "Search Team Roadmap"),
        ("inbox/broken-config.md", "Search Team Roadmap"),
        ("inbox/reading-list.md", "Designing Data-Intensive Applications"),
        ("inbox/reading-list.md", "Introduction to Information Retrieval"),
        ("inbox/reading-list.md", "books/smart-notes.md"),
    }


def test_links_out_of_the_vault(graph: LinkGraph) -> None:
    assert links_with(graph, LinkStatus.OUTSIDE) == {
        ("index.md", "../outside.md"),
        ("inbox/reading-list.md", "../../old-vault/index.md"),
    }


def test_embeds(graph: LinkGraph) -> None:
    embeds = {
        (item.source, item.link.kind.value, item.resolution.targets)
        for item in all_links(graph)
        if item.link.embed
    }
    assert embeds == {
        ("index.md", "wiki", ("assets/retrieval-pipeline.png",)),
        ("index.md", "wiki", ("inbox/reading-list.md",)),
        ("daily/2024-03-02.md", "markdown", ("assets/retrieval-pipeline.png",)),
        ("search/hybrid-search.md", "markdown", ("assets/search diagram.png",)),
    }
    assert graph.inlink_sources("assets/retrieval-pipeline.png") == [
        "daily/2024-03-02.md",
        "index.md",
    ]


def test_nothing_inside_code_comments_or_math(fixture_notes: Vault, graph: LinkGraph) -> None:
    notes, _ = fixture_notes
    tips = notes["pkm/obsidian-tips.md"]
    assert [link.target for link in tips.links] == ["知识管理"]
    assert [t.name for t in tips.tags] == ["obsidian", "pkm"]
    assert [h.text for h in tips.headings] == [
        "Obsidian link syntax",
        "Wikilinks",
        "Math",
        "Block ids",
    ]
    assert [b.id for b in tips.blocks] == ["cheatsheet-block-ids"]
    targets = {item.link.target for item in all_links(graph)}
    assert not {t for t in targets if t.endswith("-link") or "Note name" in t}
    tags = {tag.name for note in notes.values() for tag in note.tags}
    assert not {t for t in tags if t.endswith("-tag") or t == "tag"}
    tantivy = notes["search/tantivy.md"]
    assert [link.target for link in tantivy.links] == ["inverted-index", "bm25", "hybrid-search"]
    assert [t.name for t in tantivy.tags] == ["rust", "search/engines"]
    assert [b.id for b in notes["search/bm25.md"].blocks] == ["k1-default", "idf-formula"]


def test_shared_alias_resolves_to_both_notes(graph: LinkGraph) -> None:
    resolution = outlink(graph, "index.md", "Second Brain").resolution
    assert resolution.status is LinkStatus.RESOLVED
    assert resolution.targets == ("pkm/building-a-second-brain.md", "pkm/知识管理.md")
    assert "index.md" in graph.inlink_sources("pkm/building-a-second-brain.md")


@pytest.mark.parametrize(
    ("source", "target", "resolved"),
    [
        ("index.md", "ML", "ml/机器学习.md"),  # alias
        ("index.md", "Chengdu food", "travel/成都美食.md"),  # alias
        ("index.md", "search/tantivy", "search/tantivy.md"),  # folder/note
        ("index.md", "inverted-index.md", "search/inverted-index.md"),  # note.md
        ("index.md", "search/query understanding.md", "search/query understanding.md"),  # %20
        ("index.md", "", "index.md"),  # [[#Notes on notes]]
        ("index.md", "reading-list", "inbox/reading-list.md"),  # embed of a note
        ("inbox/reading-list.md", "INVERTED-INDEX", "search/inverted-index.md"),  # any case
        ("search/inverted-index.md", "./tantivy.md", "search/tantivy.md"),  # relative
        ("search/hybrid-search.md", "bm25.md", "search/bm25.md"),  # relative with #slug
        ("pkm/知识管理.md", "index", "index.md"),
        ("daily/2024-03-15.md", "知识管理", "pkm/知识管理.md"),
    ],
)
def test_resolved_links(graph: LinkGraph, source: str, target: str, resolved: str) -> None:
    resolution = outlink(graph, source, target).resolution
    assert resolution.status is LinkStatus.RESOLVED
    assert resolution.targets == (resolved,)


def test_every_anchor_of_a_resolved_note_link_exists(graph: LinkGraph) -> None:
    checked = 0
    for item in all_links(graph):
        if item.resolution.status is not LinkStatus.RESOLVED or not item.link.anchor:
            continue
        (target,) = item.resolution.targets
        note = graph.notes[target]
        if item.link.block:
            assert find_block(note, item.link.block) is not None, item
        else:
            assert find_heading(note, item.link.headings) is not None, item
        checked += 1
    assert checked == 18


def test_nested_heading_link(graph: LinkGraph) -> None:
    item = next(
        i
        for i in graph.outlinks("index.md")
        if i.link.headings == ("Fusion", "Reciprocal Rank Fusion")
    )
    heading = find_heading(graph.notes["search/hybrid-search.md"], item.link.headings)
    assert heading is not None and heading.level == 3 and heading.line == 12


def test_dates(fixture_notes: Vault) -> None:
    notes, _ = fixture_notes
    dated = {path: note.date for path, note in notes.items() if note.date}
    assert dated == {
        "daily/2024-03-01.md": "2024-03-01",  # from the file name
        "daily/2024-03-02.md": "2024-03-02",
        "daily/2024-03-15.md": "2024-03-15",  # frontmatter date
        "travel/kyoto-2023.md": "2023-11-05",
        "travel/成都美食.md": "2023-04-18",
        "pkm/zettelkasten.md": "2024-01-20",  # frontmatter created
    }


def test_headings_and_tags(fixture_notes: Vault) -> None:
    notes, _ = fixture_notes
    setext = notes["search/inverted-index.md"]
    assert [(h.level, h.text) for h in setext.headings] == [
        (1, "Inverted index"),
        (2, "Posting lists"),
        (2, "Segments and merging"),
        (2, "倒排索引"),
    ]
    assert setext.title == "Inverted index"
    assert setext.description.startswith("An inverted index maps every term")
    vector = notes["search/向量检索.md"]
    assert [t.name for t in vector.tags] == ["检索", "机器学习", "向量数据库", "检索/语义"]
    assert vector.aliases == ("vector search", "向量搜索")
    assert [h.slug for h in vector.headings][1:3] == ["向量检索ann-算法", "hnsw分层可导航小世界图"]
    assert notes["pkm/building-a-second-brain.md"].aliases == ("second brain",)
    assert [t.name for t in notes["pkm/building-a-second-brain.md"].tags] == ["pkm", "reading"]
    assert notes["ml/embeddings.md"].aliases == ("向量表示",)
    assert notes["cooking/recipes/mapo-tofu.md"].title == "麻婆豆腐 Mapo tofu"
    assert notes["index.md"].title == "Home"
    assert notes["daily/2024-03-15.md"].title == "周五"


def test_every_link_span_covers_the_written_link(fixture_notes: Vault) -> None:
    notes, _ = fixture_notes
    for path, note in notes.items():
        lines = split_lines((FIXTURE_VAULT / path).read_text(encoding="utf-8"))
        for link in note.links:
            written = lines[link.span.line][link.span.start : link.span.end]
            assert written.startswith(("[[", "![[", "[", "![")), (path, written)
            assert written.endswith(("]]", ")")), (path, written)
            assert link.target.split("/")[-1].split(".")[0][:3] in written or not link.target


def test_every_note_chunks_within_the_cap(fixture_notes: Vault) -> None:
    notes, _ = fixture_notes
    for path, note in notes.items():
        lines = split_lines((FIXTURE_VAULT / path).read_text(encoding="utf-8"))
        chunks = chunk_note(note, lines, 60)
        assert chunks, path
        for chunk in chunks:
            assert estimate_tokens(chunk.text) <= 60, (path, chunk.breadcrumb)
            if chunk.start_line != chunk.end_line:
                assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
            assert chunk.breadcrumb[0] == note.title
