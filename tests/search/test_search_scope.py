"""A search kept to part of the vault: `paths` (folders, notes, globs) and `tags`, on both sides,
with dates; and the warning when the token budget leaves results out."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from pathlib import Path

import numpy as np
import pytest

from memlsp.cli import main
from memlsp.engine.engine import Engine
from memlsp.index.vectors import VectorHit
from memlsp.model import SearchRequest, SearchResponse
from memlsp.parse.markdown import parse_markdown
from memlsp.search import hybrid
from memlsp.search.budget import cut_sentence
from memlsp.search.request import build_request
from memlsp.search.scope import NoteScope, allowed_notes, scope_path, scope_tag
from memlsp.wire import search_answer_json
from tests.helpers.engine import ask, embedded_vault, indexed_engine, open_indexed
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import graph_of, write, write_notes

# Every note has "lantern", so a search for it lists the notes in scope.
NOTES = {
    "projects/memlsp.md": "---\ntags: [project/memlsp]\n---\n# Memlsp\n\nA lantern for notes.\n",
    "projects/garden/plan.md": "# Plan\n\nHang a lantern in the garden. #Garden\n",
    "projects/readme.md": "# Readme\n\nNo lantern here yet.\n",
    "journal/2024-05-01.md": "# May\n\nBought a lantern. #project\n",
    "journal/2024-06-01.md": "# June\n\nThe lantern broke. #projects\n",
    "archive/old.md": "---\ntags: ['#archive']\n---\n# Old\n\nAn old lantern.\n",
    "root.md": "# Root\n\nLantern at the root.\n",
}
EVERY_NOTE = set(NOTES)


def found(response: SearchResponse) -> set[str]:
    return {hit.chunk.path for hit in response.hits}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    opened = indexed_engine(tmp_path_factory.mktemp("scope"), NOTES)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def with_vectors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    opened = embedded_vault(tmp_path_factory.mktemp("scope-vectors"), NOTES, FakeEmbedder())
    yield opened
    opened.close()


def lanterns(engine: Engine, **request: object) -> set[str]:
    request.setdefault("mode", "keyword")
    return found(ask(engine, "lantern", limit=50, **request))


# -- the predicate alone ---------------------------------------------------------------------------


def scope_of(paths: tuple[str, ...] = (), tags: tuple[str, ...] = ()) -> set[str]:
    graph = graph_of([parse_markdown(path, text) for path, text in NOTES.items()])
    allowed = allowed_notes(graph, SearchRequest("x", paths=paths, tags=tags))
    return EVERY_NOTE if allowed is None else set(allowed)


@pytest.mark.parametrize(
    ("paths", "wanted"),
    [
        (("projects",), {"projects/memlsp.md", "projects/garden/plan.md", "projects/readme.md"}),
        (("projects/",), {"projects/memlsp.md", "projects/garden/plan.md", "projects/readme.md"}),
        (("./projects/garden/",), {"projects/garden/plan.md"}),
        (("projects\\garden",), {"projects/garden/plan.md"}),
        (("projects/readme.md",), {"projects/readme.md"}),
        (("root.md", "archive"), {"root.md", "archive/old.md"}),
        (("projects/*.md",), {"projects/memlsp.md", "projects/readme.md"}),
        (("projects/**",), {"projects/memlsp.md", "projects/garden/plan.md", "projects/readme.md"}),
        (("**/plan.md",), {"projects/garden/plan.md"}),
        (("**/*-05-??.md",), {"journal/2024-05-01.md"}),
        (("*.md",), {"root.md"}),
        (("proj",), set()),  # a folder is a whole name, not the start of one
        (("projects/readme",), set()),  # a note is its whole path
        ((".",), EVERY_NOTE),
    ],
    ids=str,
)
def test_paths_take_folders_notes_and_globs(paths: tuple[str, ...], wanted: set[str]) -> None:
    assert scope_of(paths=paths) == wanted


@pytest.mark.parametrize(
    ("tags", "wanted"),
    [
        (("project",), {"projects/memlsp.md", "journal/2024-05-01.md"}),  # nested counts
        (("#project",), {"projects/memlsp.md", "journal/2024-05-01.md"}),
        (("PROJECT/MEMLSP",), {"projects/memlsp.md"}),  # a child does not take its parent
        (("garden",), {"projects/garden/plan.md"}),  # written #Garden
        (("archive",), {"archive/old.md"}),  # written '#archive' in the frontmatter
        (("projects",), {"journal/2024-06-01.md"}),  # not a parent of #project
        (("garden", "archive"), {"projects/garden/plan.md", "archive/old.md"}),
        (("memlsp",), set()),  # a child's own name is not a tag of its own
    ],
    ids=str,
)
def test_tags_match_without_hash_in_any_case_and_count_for_their_parent(
    tags: tuple[str, ...], wanted: set[str]
) -> None:
    assert scope_of(tags=tags) == wanted


def test_paths_and_tags_together_must_both_match() -> None:
    assert scope_of(paths=("projects",), tags=("project",)) == {"projects/memlsp.md"}
    assert scope_of(paths=("journal",), tags=("garden",)) == set()


def test_no_scope_is_every_note_and_entries_are_normalised() -> None:
    graph = graph_of([parse_markdown(path, text) for path, text in NOTES.items()])
    assert allowed_notes(graph, SearchRequest("x")) is None
    scope = NoteScope.from_entries(["./a\\b/", "a/./b", "x//y"], ["#Tag/", "tag"])
    assert (scope.paths, scope.tags) == (("a/b", "x/y"), ("tag",))
    assert scope_path("./") == scope_path(".") == "."
    assert scope_tag("  #Work/Notes/ ") == "work/notes"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"paths": ["../x"]}, "'paths' entries are vault-relative: '../x' leaves the vault"),
        (
            {"paths": "a/../../b"},
            "'paths' entries are vault-relative: 'a/../../b' leaves the vault",
        ),
        ({"paths": ["/etc"]}, "'paths' entries are vault-relative: '/etc' is an absolute path"),
        ({"paths": ["C:\\notes"]}, "'paths' entries are vault-relative: 'C:\\\\notes' is an abs"),
        ({"paths": [""]}, "'paths' has an empty entry: give a folder, a note path or a glob"),
        ({"paths": 5}, "'paths' must be a string or a list of strings, not 5"),
        ({"paths": ["a", 3]}, "'paths' must be a string or a list of strings, not ['a', 3]"),
        ({"tags": ["#"]}, "'tags' entries name a tag, like 'project' or '#project', not '#'"),
        ({"tags": {"a": 1}}, "'tags' must be a string or a list of strings"),
    ],
    ids=str,
)
def test_bad_entries_raise_with_a_message_naming_them(
    values: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError) as raised:
        build_request({"query": "x", **values})
    assert str(raised.value).startswith(message)


def test_a_request_takes_one_string_or_a_list_normalised() -> None:
    request = build_request({"query": "x", "paths": "./projects/", "tags": ["#Garden", "garden"]})
    assert (request.paths, request.tags) == (("projects",), ("garden",))
    assert build_request({"query": "x"}).paths == ()


# -- the keyword side ------------------------------------------------------------------------------


def test_keyword_search_in_a_folder_a_note_a_glob_and_by_tag(engine: Engine) -> None:
    assert lanterns(engine) == EVERY_NOTE
    assert lanterns(engine, paths=("projects/garden",)) == {"projects/garden/plan.md"}
    assert lanterns(engine, paths=("root.md",)) == {"root.md"}
    assert lanterns(engine, paths=("**/*-0?-01.md",)) == {
        "journal/2024-05-01.md",
        "journal/2024-06-01.md",
    }
    assert lanterns(engine, tags=("#PROJECT",)) == {"projects/memlsp.md", "journal/2024-05-01.md"}
    assert lanterns(engine, paths=("journal",), tags=("project",)) == {"journal/2024-05-01.md"}


def test_dates_and_scope_combine(engine: Engine) -> None:
    may = {"start_date": "2024-05-01", "end_date": "2024-05-31"}
    assert lanterns(engine, **may) == {"journal/2024-05-01.md"}
    assert lanterns(engine, paths=("journal",), start_date="2024-06-01") == {
        "journal/2024-06-01.md"
    }
    assert lanterns(engine, paths=("projects",), **may) == set()
    assert lanterns(engine, tags=("project",), **may) == {"journal/2024-05-01.md"}


def test_no_note_in_scope_finds_nothing_and_says_why(engine: Engine) -> None:
    response = ask(engine, "lantern", mode="keyword", paths=("nowhere",))
    assert response.hits == ()
    assert "no note matches the paths and tags asked for: nothing found" in response.warnings


def test_linked_notes_around_a_result_are_not_filtered(tmp_path: Path) -> None:
    notes = {"a/hub.md": "# Hub\n\nA lantern, see [[b/leaf]].\n", "b/leaf.md": "# Leaf\n\nLeaf.\n"}
    opened = indexed_engine(tmp_path, notes)
    try:
        response = ask(opened, "lantern", paths=("a",), expand=True)
        assert found(response) == {"a/hub.md"}
        assert [n.path for n in response.hits[0].outlinks] == ["b/leaf.md"]
    finally:
        opened.close()


def test_keyword_scope_is_inside_the_index_not_a_filter_after(tmp_path: Path) -> None:
    """Ten notes outside the scope outrank the one inside it, and each side ranks 5 candidates:
    filtered after the top 5, nothing would be left."""
    notes = {f"loud/{n}.md": f"# Loud {n}\n\nlantern lantern lantern lantern\n" for n in range(10)}
    notes["quiet/note.md"] = (
        "# Quiet\n\nA long note about many other things: paper, glue, string, wire, candles, "
        "matches, boxes, a lantern once, ribbons, tape, scissors and tables.\n"
    )
    vault = write_notes(tmp_path / "vault", notes)
    opened = open_indexed(vault, tmp_path / "cache", max_candidates=5)
    try:
        everywhere = ask(opened, "lantern", mode="keyword", limit=5)
        assert "quiet/note.md" not in found(everywhere) and len(everywhere.hits) == 5
        scoped = ask(opened, "lantern", mode="keyword", paths=("quiet",))
        assert found(scoped) == {"quiet/note.md"}
        assert scoped.counts.keyword == 1
        # The scope scores nothing itself: BM25's score is the one it has unscoped.
        alone = ask(opened, "lantern", mode="keyword", paths=("quiet/note.md", "loud/0.md"))
        loud = next(hit for hit in alone.hits if hit.chunk.path == "loud/0.md")
        assert loud.keyword_score == next(
            hit.keyword_score for hit in everywhere.hits if hit.chunk.path == "loud/0.md"
        )
    finally:
        opened.close()


# -- the vector side -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_the_vector_side_honours_the_scope(with_vectors: Engine, mode: str) -> None:
    assert lanterns(with_vectors, mode=mode) == EVERY_NOTE
    projects = {"projects/memlsp.md", "projects/garden/plan.md", "projects/readme.md"}
    response = ask(with_vectors, "lantern", limit=50, mode=mode, paths=("projects",))
    assert found(response) == projects
    assert response.counts.vector == len(projects)
    tagged = ask(with_vectors, "lantern", limit=50, mode=mode, tags=("project",))
    assert found(tagged) == {"projects/memlsp.md", "journal/2024-05-01.md"}
    dated = ask(
        with_vectors, "lantern", limit=50, mode=mode, tags=("project",), end_date="2024-12-31"
    )
    assert found(dated) == {"journal/2024-05-01.md"}


def test_a_note_found_by_meaning_alone_is_held_to_the_scope(with_vectors: Engine) -> None:
    embedder = with_vectors.vector_side.embedder
    assert isinstance(embedder, FakeEmbedder)
    embedder.synonyms = {"light": "lantern"}
    try:
        response = ask(with_vectors, "light", limit=50, mode="hybrid", paths=("journal",))
        assert response.counts.keyword == 0
        assert found(response) == {"journal/2024-05-01.md", "journal/2024-06-01.md"}
    finally:
        embedder.synonyms = {}


def test_no_note_in_scope_gives_one_warning_with_vectors_too(with_vectors: Engine) -> None:
    response = ask(with_vectors, "lantern", tags=("nothing-tagged",))
    assert response.hits == ()
    assert response.warnings == ("no note matches the paths and tags asked for: nothing found",)


# -- the budget ------------------------------------------------------------------------------------


def test_the_budget_says_how_many_results_it_left_out(engine: Engine) -> None:
    everything = ask(engine, "lantern", mode="keyword", limit=50)
    assert len(everything.hits) == 7 and everything.warnings == ()
    one = ask(engine, "lantern", mode="keyword", limit=50, budget_tokens=1)
    assert len(one.hits) == 1 and one.budget is not None
    assert search_answer_json(one)["warnings"] == [
        f"6 more results left out to stay within 1 token (budget_tokens); {one.budget.budget_used} used"
    ]
    roomy = ask(engine, "lantern", mode="keyword", limit=50, budget_tokens=2000)
    assert len(roomy.hits) == 7 and search_answer_json(roomy)["warnings"] == []
    two = ask(engine, "lantern", mode="keyword", limit=2, budget_tokens=1)
    assert cut_sentence(two.budget).startswith(
        "1 more result left out to stay within 1 token (budget_tokens); "
    )


# -- the command line ------------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.e2e
def test_the_command_line_takes_path_and_tag_repeated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    write(vault, ".memlsp.toml", 'embedder = "none"\n')
    args = ("search", vault, "lantern", "--json", "--no-expand", "--cache-dir", tmp_path / "c")

    def paths(*more: str) -> set[str]:
        code, out, err = run(capsys, *args, *more)
        assert code == 0, err
        return {result["path"] for result in json.loads(out)["results"]}

    assert paths("--path", "projects/garden", "--path", "root.md") == {
        "projects/garden/plan.md",
        "root.md",
    }
    assert paths("--path", "**/*.md", "--tag", "#garden", "--tag", "Archive") == {
        "projects/garden/plan.md",
        "archive/old.md",
    }
    assert paths("--path", "journal", "--start-date", "2024-06-01") == {"journal/2024-06-01.md"}
    code, out, _ = run(capsys, *args, "--budget-tokens", "1")
    assert code == 0
    cut = json.loads(out)
    assert cut["warnings"] == [
        f"6 more results left out to stay within 1 token (budget_tokens); {cut['budget_used']} used"
    ]
    code, _, err = run(capsys, *args, "--path", "../x")
    assert code == 2
    assert err.strip() == "memlsp: --path entries are vault-relative: '../x' leaves the vault"
    code, _, err = run(capsys, *args, "--tag", "#")
    assert code == 2 and "--tag entries name a tag" in err
    with pytest.raises(SystemExit):
        run(capsys, "search", vault, "--help")
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--path PATH search only notes under this vault-relative folder" in help_text
    assert "--tag TAG search only notes with this tag" in help_text


@pytest.mark.e2e
def test_a_queries_line_carries_paths_and_tags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    write(vault, ".memlsp.toml", 'embedder = "none"\n')
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"id": 1, "query": "lantern", "paths": "archive"}\n'
        '{"id": 2, "query": "lantern", "tags": ["garden"]}\n'
        '{"id": 3, "query": "lantern"}\n'
        '{"id": 4, "query": "lantern", "paths": ["/abs"]}\n'
    )
    code, out, _ = run(
        capsys, "search", vault, "--queries", queries, "--json", "--no-expand",
        "--cache-dir", tmp_path / "c", "--path", "root.md",
    )  # fmt: skip
    assert code == 0
    first, second, third, fourth = (json.loads(line) for line in out.splitlines())
    assert [r["path"] for r in first["results"]] == ["archive/old.md"]  # the line's own wins
    assert second["results"] == []  # the flag's path and the line's tag: no note has both
    assert [r["path"] for r in third["results"]] == ["root.md"]
    assert (
        fourth["error"] == "line 4: --path entries are vault-relative: '/abs' is an absolute path"
    )


# -- the vector side within the store --------------------------------------------------------------

# Three hundred and twenty notes say the query's words and little else; the one note in `narrow/`
# says them among many others, so each of the others is nearer the query than it.
CROWD = {f"loud/{n:03}.md": f"# Loud\n\nlantern glow lantern glow {n}\n" for n in range(320)}
CROWD["narrow/quiet.md"] = (
    "# Quiet\n\nA lantern glow among paper, glue, string, wire, candles, matches, boxes, "
    "ribbons, tape, scissors and tables.\n"
)


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("scope-crowded")
    opened = embedded_vault(root, CROWD, FakeEmbedder(), max_candidates=5)
    yield opened
    opened.close()


def store_paths(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[set[str] | None]:
    """Records the notes each query asks the real store to search among (None: every note)."""
    store = engine.vector_side.store
    assert store is not None
    asked: list[set[str] | None] = []
    query = store.query

    def recorded(
        vector: np.ndarray, limit: int, paths: Collection[str] | None = None
    ) -> list[VectorHit]:
        asked.append(None if paths is None else set(paths))
        return query(vector, limit, paths)

    monkeypatch.setattr(store, "query", recorded)
    return asked


def test_a_narrow_scope_is_searched_inside_the_store(
    crowded: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranked among the whole vault, the quiet note is far below the 4 x 5 nearest chunks that a
    scope filtered after would look at; the store finds it among the notes in scope."""
    asked = store_paths(crowded, monkeypatch)
    everywhere = ask(crowded, "lantern glow", mode="vector", limit=5)
    assert "narrow/quiet.md" not in found(everywhere) and len(everywhere.hits) == 5
    scoped = ask(crowded, "lantern glow", mode="vector", limit=5, paths=("narrow",))
    assert found(scoped) == {"narrow/quiet.md"}
    assert scoped.counts.vector == 1 and scoped.warnings == ()
    assert asked == [None, {"narrow/quiet.md"}]
    picked = ask(
        crowded, "lantern glow", mode="vector", limit=5, paths=("narrow/*.md", "loud/007.md")
    )
    assert [hit.chunk.path for hit in picked.hits] == ["loud/007.md", "narrow/quiet.md"]


def test_a_scope_above_the_bound_filters_the_nearest_of_the_whole_vault(
    crowded: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hybrid, "STORE_SCOPE_NOTES", 10)
    asked = store_paths(crowded, monkeypatch)
    broad = ask(crowded, "lantern glow", mode="vector", limit=5, paths=("loud", "narrow"))
    assert asked == [None]  # 321 notes: the store is not asked to search among them
    assert len(broad.hits) == 5 and found(broad) <= set(CROWD) - {"narrow/quiet.md"}
    teens = {f"loud/01{n}.md" for n in range(10)}
    within = ask(crowded, "lantern glow", mode="vector", limit=5, paths=("loud/01?.md",))
    assert asked == [None, teens]  # ten notes: within the bound
    assert len(within.hits) == 5 and found(within) <= teens
    narrow = ask(crowded, "lantern glow", mode="vector", limit=5, paths=("narrow", "loud/00?.md"))
    assert asked[-1] is None  # eleven notes: filtered after, and the quiet note is crowded out
    assert "narrow/quiet.md" not in found(narrow)
