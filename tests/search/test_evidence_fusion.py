"""The default fusion weighs each side by its evidence, and ranks notes rather than sections:
through the engine with the deterministic embedder, and the pure pieces on their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.embed.base import SimilarityScale
from memlsp.engine.engine import Engine
from memlsp.index.keyword import KeywordIndex, NoteFields, prepare_documents
from memlsp.model import Chunk
from memlsp.search.fusion import Fused
from memlsp.search.notes import SECOND_SECTION, best_notes
from tests.helpers.engine import ask, embedded_vault
from tests.helpers.fake_embedder import FakeEmbedder

# "fiddle tune concert": the vault uses only "concert", in hall.md, which has nothing to do with
# the question; music.md answers it by meaning ("fiddle" embeds as "violin", "tune" as "duet").
MUSIC = {
    "music.md": "# Music\n\nThe violin and the cello play a slow duet.\n",
    "hall.md": "# Hall\n\nThe concert hall was repainted in spring.\n",
    "garden.md": "# Garden\n\nTomatoes and basil grow in the sunny bed.\n",
}


@pytest.fixture(scope="module")
def music(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    embedder = FakeEmbedder()
    embedder.synonyms = {"fiddle": "violin", "tune": "duet"}
    engine = embedded_vault(tmp_path_factory.mktemp("music"), MUSIC, embedder)
    yield engine
    engine.close()


def test_keyword_hits_on_an_incidental_word_do_not_push_the_answer_down(music: Engine) -> None:
    answer = ask(music, "fiddle tune concert")
    by_path = {hit.chunk.path: hit for hit in answer.hits}
    assert by_path["hall.md"].keyword_rank == 1 and by_path["music.md"].keyword_score is None
    assert answer.hits[0].chunk.path == "music.md"
    # The hybrid's order is the vector side's own.
    vector = ask(music, "fiddle tune concert", mode="vector")
    assert [hit.chunk.path for hit in answer.hits] == [hit.chunk.path for hit in vector.hits]


def test_a_word_for_word_match_still_wins(music: Engine) -> None:
    assert ask(music, "concert hall repainted").hits[0].chunk.path == "hall.md"


def test_scores_fall_with_rank_from_the_strength(music: Engine) -> None:
    answer = ask(music, "fiddle tune concert")
    scores = [hit.score for hit in answer.hits]
    assert scores[0] == answer.strength > 0
    assert scores == sorted(scores, reverse=True) and scores[-1] >= 0


def test_a_scale_places_similarities_beyond_its_ends() -> None:
    scale = SimilarityScale(low=0.2, high=0.6)
    assert scale.placed(0.4) == pytest.approx(0.5)
    assert scale.placed(0.1) == pytest.approx(-0.25) and scale.evidence(0.1) == 0.0
    assert scale.placed(0.8) == pytest.approx(1.5) and scale.evidence(0.8) == 1.0


# -- which query terms a keyword hit has -----------------------------------------------------


def test_a_keyword_hit_knows_which_query_terms_it_has_in_any_field() -> None:
    index = KeywordIndex(None)
    chunk = Chunk("c1", "birds.md", ("Birds", "Waders"), 0, 3, "# Waders\n\nA heron stood.\n")
    fields = NoteFields(title="Birds", aliases=("Egret",), date=None)
    index.replace_note("birds.md", prepare_documents(fields, [chunk]))
    other = Chunk("c2", "pond.md", ("Pond",), 0, 2, "# Pond\n\nFrogs and a heron.\n")
    index.replace_note("pond.md", prepare_documents(NoteFields("Pond", (), None), [other]))
    index.commit()
    reader = index.reader()
    # Body, title, alias and heading each hold one term; "swan" is nowhere; 30 made-up terms
    # take the query past the 12 terms one search can tell apart.
    padding = [f"zz{i}" for i in range(30)]
    terms = reader.terms("heron bird egret wader swan") + padding
    found = {hit.chunk.id: hit for hit in reader.search(terms, 10)}
    assert found["c1"].matched == {"heron", "bird", "egret", "wader"}
    assert found["c2"].matched == {"heron"}
    # The note's name fields: its title and aliases, not its headings or body.
    assert found["c1"].named == {"bird", "egret"} and found["c2"].named == set()
    later = reader.terms("egret heron")
    assert {hit.chunk.id: hit.matched for hit in reader.search(padding + later, 10)} == {
        "c1": {"egret", "heron"},
        "c2": {"heron"},
    }


# -- notes, not sections -----------------------------------------------------------------------


def _chunk(key: str, path: str) -> Chunk:
    return Chunk(key, path, (path,), 0, 1, "text")


def test_a_note_that_answers_in_two_sections_leads_one_that_answers_once() -> None:
    chunks = {"a1": _chunk("a1", "a.md"), "b1": _chunk("b1", "b.md"), "b2": _chunk("b2", "b.md")}
    fused = [Fused("a1", 0.60, (1, 1)), Fused("b1", 0.55, (2, 2)), Fused("b2", 0.5, (3, 3))]
    notes, others = best_notes(fused, chunks, {}, 0.5)
    assert [item.key for item in notes] == ["b1", "a1"]
    assert notes[0].score == pytest.approx(0.55 + SECOND_SECTION * 0.5)
    assert [item.key for item in others["b.md"]] == ["b2"] and others["a.md"] == []


def test_a_note_whose_name_holds_the_query_leads_an_equal_neighbour() -> None:
    chunks = {"a1": _chunk("a1", "a.md"), "b1": _chunk("b1", "b.md")}
    fused = [Fused("a1", 0.5, (1, 1)), Fused("b1", 0.5, (2, 2))]
    notes, _ = best_notes(fused, chunks, {"b.md": 1.0}, 0.5)
    assert [item.key for item in notes] == ["b1", "a1"]


def test_a_description_is_searched_as_its_notes_field(tmp_path: Path) -> None:
    notes = {
        "alpha.md": "# Alpha\n\nShorebirds feed here.\n",
        "zeta.md": "---\ndescription: tidal marsh birds\n---\n# Zeta\n\nShorebirds feed here.\n",
    }
    engine = embedded_vault(tmp_path, notes, FakeEmbedder())
    try:
        answer = ask(engine, "shorebirds tidal marsh", mode="keyword")
        # Equal sections; without its description zeta.md would follow alpha.md by path.
        assert [hit.chunk.path for hit in answer.hits] == ["zeta.md", "alpha.md"]
    finally:
        engine.close()
