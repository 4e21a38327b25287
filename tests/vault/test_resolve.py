"""Link resolution (docs/links.md, "Resolution") as a table over one in-memory vault, plus anchors.

Each case writes the link as a user would, parses it with the real parser inside the source note,
and resolves it against the `NameTable` below.
"""

from __future__ import annotations

import unicodedata

import pytest

from memlsp.model import LinkStatus, Note, Resolution
from memlsp.parse.markdown import parse_markdown
from memlsp.vault.anchors import find_block, find_heading, heading_matches
from memlsp.vault.names import NameTable, name_key
from memlsp.vault.resolve import resolve
from tests.helpers.vault import only_link

NFD_CAFE = unicodedata.normalize("NFD", "notes/café.md")
NFC_BRULEE = unicodedata.normalize("NFC", "menu/crème brûlée.md")

# path -> aliases
VAULT: dict[str, tuple[str, ...]] = {
    "index.md": (),
    "search/bm25.md": (),
    "search/Hybrid Search.md": (),
    "search/query understanding.md": (),
    NFD_CAFE: (),
    NFC_BRULEE: (),
    # longest path suffix: [[x/topic]] keeps one, [[y/topic]] keeps two
    "a/x/topic.md": (),
    "b/y/topic.md": (),
    "c/y/topic.md": (),
    # same folder beats shortest, shortest beats alphabetical
    "journal/plan.md": (),
    "work/plan.md": (),
    "p/plan.md": (),
    # equal length, different folders: alphabetical decides
    "b/ref.md": (),
    "a/ref.md": (),
    # aliases: two notes share "Second Brain" (different case), a name beats an alias
    "pkm/知识管理.md": ("Second Brain", "PKM"),
    "pkm/basb.md": ("second brain",),
    "glossary/pkm.md": (),
    "people/alice.md": ("Alice Liddell",),
    "ml/机器学习.md": ("ML", "Machine Learning"),
}
ATTACHMENTS = ("assets/diagram.png", "assets/search diagram.png", "papers/rrf.pdf")


@pytest.fixture(scope="module")
def table() -> NameTable:
    names = NameTable()
    for path, aliases in VAULT.items():
        names.add(path, aliases)
    for path in ATTACHMENTS:
        names.add(path)
    return names


R, A, U, OUT = LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS, LinkStatus.UNRESOLVED, LinkStatus.OUTSIDE

# (id, source note, link as written, status, targets, candidates)
CASES: list[tuple[str, str, str, LinkStatus, tuple[str, ...], tuple[str, ...]]] = [
    # exact vault-relative path, with and without .md, any case
    ("path", "index.md", "[[search/bm25]]", R, ("search/bm25.md",), ()),
    ("path-md", "index.md", "[[search/bm25.md]]", R, ("search/bm25.md",), ()),
    ("path-case", "index.md", "[[SEARCH/BM25]]", R, ("search/bm25.md",), ()),
    ("path-spaces", "index.md", "[[search/Hybrid Search]]", R, ("search/Hybrid Search.md",), ()),
    ("path-leading-slash", "work/x.md", "[[/search/bm25]]", R, ("search/bm25.md",), ()),
    ("path-exact-wins-dup", "index.md", "[[a/x/topic]]", R, ("a/x/topic.md",), ()),
    # file name, case-insensitive, with or without .md
    ("name", "index.md", "[[bm25]]", R, ("search/bm25.md",), ()),
    ("name-md", "index.md", "[[bm25.md]]", R, ("search/bm25.md",), ()),
    ("name-case", "index.md", "[[hybrid SEARCH]]", R, ("search/Hybrid Search.md",), ()),
    ("name-label", "index.md", "[[bm25|the BM25 note]]", R, ("search/bm25.md",), ()),
    ("name-heading", "index.md", "[[bm25#Scoring]]", R, ("search/bm25.md",), ()),
    ("name-heading-sub", "index.md", "[[bm25#Scoring#k1]]", R, ("search/bm25.md",), ()),
    ("name-block", "index.md", "[[bm25#^k1-default]]", R, ("search/bm25.md",), ()),
    ("embed-note", "index.md", "![[bm25]]", R, ("search/bm25.md",), ()),
    ("name-chinese", "index.md", "[[机器学习]]", R, ("ml/机器学习.md",), ()),
    # Unicode: the file is stored decomposed (NFD), the link composed (NFC), and the reverse
    ("nfc-link-nfd-file", "index.md", "[[café]]", R, (NFD_CAFE,), ()),
    ("nfc-link-nfd-file-case", "index.md", "[[CAFÉ]]", R, (NFD_CAFE,), ()),
    (
        "nfd-link-nfc-file",
        "index.md",
        unicodedata.normalize("NFD", "[[crème brûlée]]"),
        R,
        (NFC_BRULEE,),
        (),
    ),
    # duplicate names: the link's folders must match the end of the path
    ("suffix-narrows-to-one", "index.md", "[[x/topic]]", R, ("a/x/topic.md",), ()),
    (
        "suffix-leaves-two",
        "index.md",
        "[[y/topic]]",
        A,
        ("b/y/topic.md",),
        ("b/y/topic.md", "c/y/topic.md"),
    ),
    (
        "dup-all-candidates",
        "index.md",
        "[[topic]]",
        A,
        ("a/x/topic.md",),
        ("a/x/topic.md", "b/y/topic.md", "c/y/topic.md"),
    ),
    ("suffix-no-match", "index.md", "[[z/topic]]", U, (), ()),
    # then the linking note's folder, even over a shorter / alphabetically earlier path
    (
        "same-folder",
        "work/today.md",
        "[[plan]]",
        A,
        ("work/plan.md",),
        ("journal/plan.md", "p/plan.md", "work/plan.md"),
    ),
    (
        "same-folder-journal",
        "journal/2024-03-01.md",
        "[[plan]]",
        A,
        ("journal/plan.md",),
        ("journal/plan.md", "p/plan.md", "work/plan.md"),
    ),
    # then the shortest path (p/plan.md), although journal/plan.md comes first alphabetically
    (
        "shortest",
        "index.md",
        "[[plan]]",
        A,
        ("p/plan.md",),
        ("journal/plan.md", "p/plan.md", "work/plan.md"),
    ),
    # then alphabetical
    ("alphabetical", "index.md", "[[ref]]", A, ("a/ref.md",), ("a/ref.md", "b/ref.md")),
    # aliases, case-insensitive; a shared alias returns every note that has it
    ("alias", "index.md", "[[Alice Liddell]]", R, ("people/alice.md",), ()),
    ("alias-case", "index.md", "[[alice liddell]]", R, ("people/alice.md",), ()),
    ("alias-short", "index.md", "[[ml]]", R, ("ml/机器学习.md",), ()),
    (
        "alias-shared",
        "index.md",
        "[[SECOND BRAIN]]",
        R,
        ("pkm/basb.md", "pkm/知识管理.md"),
        (),
    ),
    ("name-beats-alias", "index.md", "[[PKM]]", R, ("glossary/pkm.md",), ()),
    # markdown links: relative to the note, `/` from the vault root, %20 and <...>
    ("md-relative", "search/notes.md", "[b](bm25.md)", R, ("search/bm25.md",), ()),
    ("md-dot", "search/notes.md", "[b](./bm25.md#scoring)", R, ("search/bm25.md",), ()),
    ("md-parent", "search/notes.md", "[home](../index.md)", R, ("index.md",), ()),
    ("md-root", "search/deep/notes.md", "[b](/search/bm25.md)", R, ("search/bm25.md",), ()),
    (
        "md-percent20",
        "index.md",
        "[q](search/query%20understanding.md)",
        R,
        ("search/query understanding.md",),
        (),
    ),
    (
        "md-angle",
        "index.md",
        "[q](<search/query understanding.md#Spelling correction>)",
        R,
        ("search/query understanding.md",),
        (),
    ),
    ("md-no-suffix", "search/notes.md", "[b](bm25)", R, ("search/bm25.md",), ()),
    ("md-name-fallback", "index.md", "[b](bm25.md)", R, ("search/bm25.md",), ()),
    ("md-missing", "search/notes.md", "[x](missing.md)", U, (), ()),
    # out of the vault: never resolved
    ("md-outside", "index.md", "[old](../outside.md)", OUT, (), ()),
    ("md-outside-deep", "search/notes.md", "[old](../../outside.md)", OUT, (), ()),
    ("md-root-outside", "index.md", "[old](/../outside.md)", OUT, (), ()),
    ("wiki-outside", "index.md", "[[../outside]]", OUT, (), ()),
    ("wiki-parent-inside", "search/notes.md", "[[../index]]", R, ("index.md",), ()),
    # attachments need their extension
    ("attachment-embed", "index.md", "![[diagram.png]]", R, ("assets/diagram.png",), ()),
    ("attachment-case", "index.md", "![[Diagram.PNG]]", R, ("assets/diagram.png",), ()),
    ("attachment-path", "index.md", "[[papers/rrf.pdf]]", R, ("papers/rrf.pdf",), ()),
    ("attachment-no-ext", "index.md", "![[diagram]]", U, (), ()),
    (
        "attachment-md-percent20",
        "search/notes.md",
        "![d](../assets/search%20diagram.png)",
        R,
        ("assets/search diagram.png",),
        (),
    ),
    # same note
    ("same-note-heading", "search/notes.md", "[[#Scoring]]", R, ("search/notes.md",), ()),
    ("same-note-block", "search/notes.md", "[[#^abc]]", R, ("search/notes.md",), ()),
    ("md-same-note", "search/notes.md", "[s](#scoring)", R, ("search/notes.md",), ()),
    # unresolved
    ("missing", "index.md", "[[Learning to Rank]]", U, (), ()),
    ("missing-heading-only-name", "index.md", "[[Learning to Rank#Pairwise]]", U, (), ()),
]


@pytest.mark.parametrize(
    ("source", "written", "status", "targets", "candidates"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_resolution_table(
    table: NameTable,
    source: str,
    written: str,
    status: LinkStatus,
    targets: tuple[str, ...],
    candidates: tuple[str, ...],
) -> None:
    link = only_link(source, written)
    assert resolve(link, source, table) == Resolution(status, targets, candidates)


def test_case_ids_are_unique() -> None:
    ids = [case[0] for case in CASES]
    assert len(ids) == len(set(ids))


def test_ambiguous_link_follows_exactly_one_note(table: NameTable) -> None:
    resolution = resolve(only_link("index.md", "[[topic]]"), "index.md", table)
    assert resolution.status is LinkStatus.AMBIGUOUS
    assert len(resolution.targets) == 1
    assert resolution.targets[0] in resolution.candidates
    assert len(resolution.candidates) == 3


def test_name_key_folds_case_and_unicode_form() -> None:
    assert name_key("Café") == name_key(unicodedata.normalize("NFD", "CAFÉ"))
    assert name_key("Straße") == name_key("STRASSE")  # casefold, not lower


def test_removed_name_no_longer_resolves() -> None:
    names = NameTable()
    names.add("a/plan.md")
    names.add("b/plan.md")
    link = only_link("index.md", "[[plan]]")
    assert resolve(link, "index.md", names).status is LinkStatus.AMBIGUOUS
    names.remove("a/plan.md")
    assert resolve(link, "index.md", names) == Resolution(LinkStatus.RESOLVED, ("b/plan.md",))
    names.remove("b/plan.md")
    assert resolve(link, "index.md", names).status is LinkStatus.UNRESOLVED


# -- anchors -------------------------------------------------------------------------------

ANCHORED = """\
# Search notes

## Scoring: k1 & b (saturation)

### Details

k1 controls saturation. ^k1-default

## Fusion

### Reciprocal Rank Fusion

### Details

Fusion details.

## 向量检索：ANN 算法

- HNSW is the usual index ^HNSW-params

Setext heading
--------------
"""


@pytest.fixture(scope="module")
def anchored() -> Note:
    return parse_markdown("search/notes.md", ANCHORED)


def _line(anchored: Note, path: tuple[str, ...]) -> int | None:
    heading = find_heading(anchored, path)
    return heading.line if heading else None


@pytest.mark.parametrize(
    ("path", "line"),
    [
        (("Scoring: k1 & b (saturation)",), 2),
        (("scoring: K1 & B (SATURATION)",), 2),  # text, case-insensitive
        (("scoring-k1--b-saturation",), 2),  # GitHub slug
        (("Scoring k1 b saturation",), 2),  # Obsidian drops the punctuation in links
        (("Details",), 4),  # the first one
        (("Scoring: k1 & b (saturation)", "Details"), 4),
        (("Fusion", "Details"), 12),  # nested: the Details under Fusion
        (("Search notes", "Fusion", "Reciprocal Rank Fusion"), 10),
        (("fusion", "reciprocal-rank-fusion"), 10),
        (("向量检索：ANN 算法",), 16),
        (("向量检索ann-算法",), 16),
        (("Setext heading",), 20),
        (("Fusion", "Scoring: k1 & b (saturation)"), None),  # not nested under Fusion
        (("Reciprocal Rank Fusion", "Details"), None),  # a sibling, not a child
        (("No such heading",), None),
    ],
)
def test_find_heading(anchored: Note, path: tuple[str, ...], line: int | None) -> None:
    assert _line(anchored, path) == line


def test_heading_matches_text_or_slug(anchored: Note) -> None:
    heading = anchored.headings[1]
    assert heading.slug == "scoring-k1--b-saturation"
    assert heading_matches(heading, "SCORING: K1 & B (SATURATION)")
    assert heading_matches(heading, "scoring-k1--b-saturation")
    assert not heading_matches(heading, "Scoring")


def test_find_block(anchored: Note) -> None:
    block = find_block(anchored, "k1-default")
    assert block is not None and block.line == 6
    hnsw = find_block(anchored, "hnsw-params")  # ids compare case-insensitively
    assert hnsw is not None and hnsw.id == "HNSW-params" and hnsw.line == 18
    assert find_block(anchored, "missing") is None


def test_link_anchor_parts_reach_the_heading(anchored: Note) -> None:
    link = only_link("index.md", "[[notes#Fusion#Details]]")
    assert link.headings == ("Fusion", "Details")
    assert _line(anchored, link.headings) == 12
    block_link = only_link("index.md", "[[notes#^k1-default]]")
    assert block_link.block == "k1-default" and block_link.headings == ()
    assert block_link.anchor == "^k1-default"
    found = find_block(anchored, block_link.block)
    assert found is not None and found.line == 6


def test_a_markdown_path_to_a_case_variant_name_resolves_by_its_path() -> None:
    """Names that differ in case only, in several folders of a case-sensitive disk: a Markdown
    link's path decides while a file has it (in any case); once none has, the name alone does,
    without the folders, so every file of that name is a candidate."""
    table = NameTable()
    for path in ("Shared.md", "y/shared.md", "x/z/Shared.md", "c.md", "w/e.md"):
        table.add(path)

    def resolved(source: str, written: str) -> Resolution:
        return resolve(only_link(source, written), source, table)

    assert resolved("c.md", "[s](/x/z/Shared.md)") == Resolution(R, ("x/z/Shared.md",))
    assert resolved("c.md", "[s](/x/z/shared.md)") == Resolution(R, ("x/z/Shared.md",))
    everywhere = ("Shared.md", "x/z/Shared.md", "y/shared.md")
    assert resolved("w/e.md", "[s](/x/Shared.md)") == Resolution(A, ("Shared.md",), everywhere)
    table.remove("x/z/Shared.md")
    assert resolved("c.md", "[s](/x/z/Shared.md)") == Resolution(
        A, ("Shared.md",), ("Shared.md", "y/shared.md")
    )
