"""Completion as a library (navigation/completion.py) on small hand-built vaults: what is offered
after `[[`, `#`, `^`, `|`, `](` and a tag's `#`, what it inserts, and that each inserted link leads
where its item says."""

from __future__ import annotations

import os
import string
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlsp.engine.engine import Engine
from memlsp.navigation.completion import MAX_ITEMS, Completions, Kind, complete
from memlsp.navigation.fuzzy import Names, fold
from memlsp.settings.table import Settings
from memlsp.vault.linktext import leads_only_to, markdown_destination, wikilink_target
from tests.helpers.engine import indexed_engine
from tests.helpers.vault import write

VAULT = {
    "Vector Search.md": "# Vector Search\n\n## Intro\n\n### Why\n\n## Method\n\nA step. ^step-one\n",
    "notes/Vectors.md": "---\naliases: [Arrows]\ntags: [project/alpha]\n---\n# Vectors\n",
    "向量检索.md": "# 向量检索\n\n用向量找笔记。#项目/检索\n",
    "Other.md": "---\naliases: [Embeddings, Dense vectors]\n---\n# Other\n\n#project/beta\n",
    "a/Same.md": "# Same in a\n",
    "b/Same.md": "# Same in b\n",
    "Links.md": "[[Vector Search]] [[Vector Search#Intro]] [[Vectors]]\n#project\n",
    "More.md": "# More\n\nSee [[Vector Search]].\n",
    "Drawing.png": "",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    opened = indexed_engine(tmp_path_factory.mktemp("completion"), VAULT)
    yield opened
    opened.close()


def at(engine: Engine, path: str, typed: str, after: str = "", above: str = "") -> Completions:
    """Completions with the cursor after `typed`, on a last line of `path` that holds
    `typed + after`, below the note's own text (or `above` instead)."""
    text = above if above else (engine.root / path).read_text(encoding="utf-8")
    lines = [*text.split("\n"), typed + after]
    return complete(engine.read().view, path, lines, len(lines) - 1, len(typed))


def labels(found: Completions) -> list[str]:
    return [item.label for item in found.items]


def test_notes_after_two_brackets_are_matched_fuzzily_and_ranked(engine: Engine) -> None:
    found = at(engine, "Links.md", "see [[vec")
    # Both start with "vec": the one more notes link to comes first.
    assert labels(found)[:2] == ["Vector Search", "Vectors"]
    assert labels(at(engine, "Links.md", "[[search"))[0] == "Vector Search"  # a word's start
    assert labels(at(engine, "Links.md", "[[vcsrch"))[0] == "Vector Search"  # letters in order
    assert labels(at(engine, "Links.md", "[[ＶＥＣＴＯＲ"))[:2] == ["Vector Search", "Vectors"]
    assert labels(at(engine, "Links.md", "[[向量"))[0] == "向量检索"
    assert at(engine, "Links.md", "[[qqqzzz").items == ()


def test_an_item_inserts_the_shortest_link_and_closes_it_once(engine: Engine) -> None:
    item = at(engine, "Links.md", "see [[vectors").items[0]
    assert (item.label, item.kind, item.detail) == ("Vectors", Kind.NOTE, "notes/Vectors.md")
    assert item.new_text == "Vectors]]"
    assert (item.start, item.end) == (len("see [["), len("see [[vectors"))
    # The closing brackets are there already (an editor closed them): not added again.
    assert at(engine, "Links.md", "[[vectors", "]]").items[0].new_text == "Vectors"
    same = {item.detail: item.new_text for item in at(engine, "Links.md", "[[same").items}
    assert same == {"a/Same.md": "a/Same]]", "b/Same.md": "b/Same]]"}
    # Files other than notes, by their full name.
    assert at(engine, "Links.md", "![[drawing").items[0].new_text == "Drawing.png]]"


def test_an_alias_item_writes_the_note_with_the_alias_as_label(engine: Engine) -> None:
    item = at(engine, "Links.md", "[[embed").items[0]
    assert (item.label, item.kind, item.new_text) == (
        "Embeddings",
        Kind.ALIAS,
        "Other|Embeddings]]",
    )


def test_headings_blocks_and_labels_of_the_linked_note(engine: Engine) -> None:
    assert labels(at(engine, "Links.md", "[[Vector Search#")) == [
        "Vector Search",
        "Intro",
        "Why",
        "Method",
    ]
    assert labels(at(engine, "Links.md", "[[Vector Search#Intro#")) == ["Why"]
    assert labels(at(engine, "Links.md", "[[Vector Search#me")) == ["Method"]
    blocks = at(engine, "Links.md", "[[Vector Search#^")
    assert [(i.label, i.kind, i.new_text) for i in blocks.items] == [
        ("step-one", Kind.BLOCK, "step-one]]")
    ]
    assert labels(at(engine, "Links.md", "[[Other|")) == ["Other", "Embeddings", "Dense vectors"]
    assert labels(at(engine, "Links.md", "[[Other|dense")) == ["Dense vectors"]


def test_headings_of_this_note_come_from_its_unsaved_text(engine: Engine) -> None:
    unsaved = "# Links\n\n## Typed just now\n\n## Another\n"
    assert labels(at(engine, "Links.md", "[[#", above=unsaved)) == [
        "Links",
        "Typed just now",
        "Another",
    ]
    assert labels(at(engine, "Links.md", "[[#typ", above=unsaved)) == ["Typed just now"]


def test_markdown_link_destinations_are_relative_and_encoded(engine: Engine) -> None:
    found = at(engine, "notes/Vectors.md", "[see](vector")
    assert found.items[0].new_text == "../Vector%20Search.md)"
    assert found.items[0].detail == "Vector Search.md"
    assert at(engine, "notes/Vectors.md", "[see](vector", ")").items[0].new_text == (
        "../Vector%20Search.md"
    )
    slugs = at(engine, "notes/Vectors.md", "[see](../Vector%20Search.md#", ")")
    assert labels(slugs) == ["vector-search", "intro", "why", "method"]


def test_tags_with_their_parents_and_counts(engine: Engine) -> None:
    found = at(engine, "Links.md", "more #proj")
    counted = {item.label: item.detail for item in found.items}
    assert counted == {
        "project": "3 notes",  # #project, and the parent of alpha (frontmatter) and beta
        "project/alpha": "1 note",
        "project/beta": "1 note",
    }
    assert labels(found)[0] == "project"
    assert labels(at(engine, "Links.md", "x #项目"))[0] == "项目"
    item = at(engine, "Links.md", "#alp").items[0]
    assert (item.label, item.new_text, item.start) == ("project/alpha", "project/alpha", 1)


def test_nothing_inside_code_or_where_nothing_is_typed(engine: Engine) -> None:
    assert at(engine, "Links.md", "`code [[vec", "`").items == ()
    assert at(engine, "Links.md", "[[vec", above="```\nfenced").items == ()
    assert at(engine, "Links.md", "plain words").items == ()
    assert at(engine, "Links.md", "a#b").items == ()  # not a tag's start
    assert at(engine, "Links.md", "[[Vector Search]] then").items == ()  # the link is closed


def test_long_lists_are_cut_and_say_so(tmp_path: Path) -> None:
    for number in range(MAX_ITEMS + 10):
        note = write(tmp_path / "vault", f"Topic {number:03}.md", f"# Topic {number:03}\n")
        os.utime(note, (1_700_000_000 + number, 1_700_000_000 + number))  # one a second
    engine = Engine.open(tmp_path / "vault", Settings(cache_dir=tmp_path / "c", embedder="none"))
    engine.refresh()
    try:
        found = at(engine, "Topic 000.md", "[[topic")
        assert len(found.items) == MAX_ITEMS and found.incomplete
        narrow = at(engine, "Topic 000.md", "[[topic 05")
        # The ten that hold "topic 05" come first (the last written first); those with its
        # letters apart ("Topic 005") after.
        assert labels(narrow)[:10] == [f"Topic 05{n}" for n in reversed(range(10))]
        assert "Topic 005" in labels(narrow)[10:]
    finally:
        engine.close()


def test_typing_elsewhere_reuses_the_names_until_one_changes(engine: Engine) -> None:
    """An edit that keeps every name keeps the index; a new alias is offered at once."""
    first = at(engine, "Links.md", "[[vec")
    engine.apply_text("Links.md", VAULT["Links.md"] + "more words\n")
    assert labels(at(engine, "Links.md", "[[vec")) == labels(first)
    engine.apply_text("Links.md", "---\naliases: [Linkage]\n---\n" + VAULT["Links.md"])
    assert labels(at(engine, "Links.md", "[[linka")) == ["Linkage"]
    engine.release_text("Links.md")


def test_fuzzy_tiers_fold_width_and_case() -> None:
    names = Names(["Vector Search", "Vectors", "Search vectors", "v-e-c", "向量检索", "ｍｅｍｏ"])
    assert sorted(names.matches(fold("vec"))) == [(0, 0), (0, 1), (1, 2), (3, 3)]
    assert names.matches(fold("MEMO")) == [(0, 5)]
    assert names.matches(fold("检索")) == [(2, 4)]
    assert names.matches("") == [(0, i) for i in range(6)]


FOLDERS = st.sampled_from(["", "a/", "b/", "a/b/", "c/a/"])
NAMES = st.text(alphabet=string.ascii_letters[:4] + " 向", min_size=1, max_size=4).filter(
    lambda name: name.strip() == name
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(paths=st.lists(st.tuples(FOLDERS, NAMES), min_size=1, max_size=8, unique=True))
def test_every_inserted_link_leads_to_its_note_only(
    tmp_path_factory: pytest.TempPathFactory, paths: list[tuple[str, str]]
) -> None:
    """Whatever names the vault shares between folders, the text an item inserts resolves to
    that note and no other, from any note; a Markdown destination too."""
    root = tmp_path_factory.mktemp("names")
    files = sorted({f"{folder}{name}.md" for folder, name in paths}, key=str.casefold)
    folded = {path.casefold() for path in files}
    if len(folded) != len(files):
        return  # two paths that differ only in case: one file on a case-insensitive disk
    for path in files:
        write(root / "vault", path, f"# {path}\n")
    engine = Engine.open(root / "vault", Settings(cache_dir=root / "cache", embedder="none"))
    engine.refresh()
    try:
        table = engine.read().view.graph.table
        for source in files:
            for target in files:
                written = wikilink_target(table, source, target)
                assert leads_only_to(table, source, written, target), (source, target, written)
                assert len(written) <= len(target) - len(".md")
            found = at(engine, source, "[[", above="x")
            assert {item.detail for item in found.items} == set(files)
            for item in found.items:
                assert leads_only_to(table, source, item.new_text.removesuffix("]]"), item.detail)
        assert markdown_destination("a/b/x.md", "c d/y (1).md") == "../../c%20d/y%20%281%29.md"
    finally:
        engine.close()


def test_a_short_query_ranks_every_name_it_starts() -> None:
    """With many names starting with what was typed, the first tier alone is returned, and all
    of it: the caller ranks it (by inlinks) as a whole."""
    names = Names([f"a{n:03}" for n in range(300)] + ["b1", "xa"])
    found, cut = names.best("a", enough=200)
    assert cut and sorted(found) == [(0, i) for i in range(300)]
    assert names.best("b", enough=200) == (names.matches("b"), False)
    assert names.best("xa", enough=200) == ([(0, 301)], False)


def test_among_equal_matches_with_equal_inlinks_the_latest_changed_note_comes_first() -> None:
    from dataclasses import replace

    from tests.helpers.memory_vault import memory_view

    files = {"plan old.md": "# a\n", "plan new.md": "# b\n", "plan mid.md": "# c\n"}
    changed = {"plan old.md": 1, "plan mid.md": 2, "plan new.md": 3}
    view = replace(memory_view(files), modified=lambda path: changed.get(path, 0))
    found = complete(view, "x.md", ["[[plan"], 0, len("[[plan"))
    assert [item.label for item in found.items] == ["plan new", "plan mid", "plan old"]


def test_destinations_that_tie_on_match_and_inlinks_come_by_path() -> None:
    """Paths in one folder match what was typed equally well: more inlinks first, then by path,
    whatever order the vault lists them in."""
    from tests.helpers.memory_vault import memory_view

    files = {
        "Inline/c.md": "# c\n",
        "Inline/b.md": "# b\n",
        "Inline/a.md": "# a\n",
        "Inline/d.png": "",
        "note.md": "[[Inline/c]]\n",
    }
    typed = "[deep](Inlin"
    found = complete(memory_view(files), "note.md", [typed], 0, len(typed))
    assert [item.detail for item in found.items] == [
        "Inline/c.md",
        "Inline/a.md",
        "Inline/b.md",
        "Inline/d.png",
    ]


@given(
    st.text(alphabet="ab-]\\^.x向", max_size=12),
    st.lists(st.text(alphabet="ab-]\\^.x向 ", max_size=30), min_size=1, max_size=5),
)
def test_scattered_letters_match_exactly_when_the_name_holds_them_in_order(
    query: str, names: list[str]
) -> None:
    def in_order(folded: str) -> bool:
        letters = iter(folded)
        return all(letter in letters for letter in query)

    found = {index for _, index in Names(names).matches(query)} if query else set()
    expected = (
        {i for i, name in enumerate(Names(names).folded) if in_order(name)} if query else set()
    )
    assert found == expected


def test_a_name_of_repeated_syllables_is_matched_in_linear_time() -> None:
    """A name such as `hahaha…` against `hahahahax`: placing the letters each way there is would
    take seconds for one name, ten times more per letter typed (the server answers nothing meanwhile)."""
    names = Names(["ha" * 30, "ha" * 200, "Hybrid search"])
    started = time.perf_counter()
    for typed in ("hahahahahax", "ha" * 20 + "x", "h" * 201):
        assert names.matches(typed) == []
    assert names.matches("hs") == [(3, 2)]
    assert time.perf_counter() - started < 2  # lazy gaps took 16 s on the first name alone
