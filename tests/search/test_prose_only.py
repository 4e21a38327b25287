"""Only prose is ranked as prose: Excalidraw drawings, encoded data, and sections that are only
images, links or markup get no vector (so the vector side never returns them), while prose around
them still does; a drawing's words stay findable by keyword, its data does not."""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlsp.engine.engine import Engine
from memlsp.index.semantic import embedding_text
from memlsp.model import Chunk, SearchRequest
from memlsp.parse.files import parse_file
from memlsp.parse.prose import is_prose
from memlsp.parse.tokens import count_words
from memlsp.settings.table import Settings
from tests.helpers.engine import embed_all
from tests.helpers.fake_embedder import FakeEmbedder
from tests.helpers.vault import touch_later, write

_RNG = random.Random(11)


def _blob(size: int) -> str:
    return base64.b64encode(_RNG.randbytes(size)).decode()


COMPRESSED = "\n\n".join(_blob(3000)[i : i + 64] for i in range(0, 4000, 64))
DRAWING = f"""---
excalidraw-plugin: parsed
tags: [excalidraw]
---
==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠== You can decompress \
Drawing data with the command palette.

# Excalidraw Data

## Text Elements
Lighthouse keeper rota ^a1B2c3D4

Harbour lantern schedule ^e5F6g7H8

## Embedded Files
4f8e2a9c0b1d: [[moon.png]]

%%
## Drawing
```compressed-json
{COMPRESSED}
```
%%
"""
OLD_DRAWING_DATA = json.dumps(
    {"type": "excalidraw", "elements": [{"strokeColor": "#1e1e1e", "text": "Orchard map"}]},
    indent=2,
)
OLD_DRAWING = f"""---
excalidraw-plugin: parsed
---
==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==

# Text Elements
Orchard map ^Zz9Yy8Xx

%%
# Drawing
```json
{OLD_DRAWING_DATA}
```
%%
"""
DATA_URI = (
    "# Logo\n\nThe logo is a copper falcon over a granite ridge, drawn for the club in spring.\n\n"
    f"## Inline image\n\n![logo](data:image/png;base64,{_blob(900)})\n\n"
    f"## Pasted\n\nThe same mark, pasted raw: {_blob(600)} and kept for reference in winter.\n"
)
GALLERY = (
    "# Trip\n\nWe walked along the meadow to the willow grove and back before the rain.\n\n"
    "## Photos\n\n![[meadow.jpg]]\n![[willow 2.png]]\n\n![](https://example.org/img/ember.png)\n"
)
LINKS = (
    "# Reading\n\nBooks about tundra ecology that I want to finish this year, in this order.\n\n"
    "## See also\n\n- [[Tundra]]\n- [[Permafrost|frozen ground]]\n- https://example.org/tundra\n"
    "- <https://example.org/saffron>\n"
)
NOTES = {
    "drawing.excalidraw.md": DRAWING,
    "old drawing.md": OLD_DRAWING,
    "logo.md": DATA_URI,
    "trip.md": GALLERY,
    "reading.md": LINKS,
}


def chunks_of(text: str, path: str = "n.md") -> list[Chunk]:
    return list(parse_file(path, text, 512).chunks)


def by_heading(chunks: list[Chunk]) -> dict[str, Chunk]:
    return {chunk.breadcrumb[-1]: chunk for chunk in chunks}


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("hello world", 2),
        ("1. 2) 42 3.14 _ --", 0),  # numbers and list marks are not words
        ("向量检索 abc123 x_1", 6),
        ("naïve café 😀", 2),
        ("9" * 100_000, 0),
    ],
)
def test_count_words(text: str, count: int) -> None:
    assert count_words(text) == count


# -- the rule, on parsed notes ------------------------------------------------------------------


def test_a_drawing_keeps_its_words_but_not_its_data_and_none_of_it_is_prose() -> None:
    for text in (DRAWING, OLD_DRAWING):
        chunks = chunks_of(text)
        assert chunks and not any(is_prose(chunk) for chunk in chunks)
        joined = "\n".join(chunk.text for chunk in chunks)
        assert "compressed-json" not in joined and '"type"' not in joined
        assert COMPRESSED[:64] not in joined
        assert "EXCALIDRAW VIEW" not in joined and "%%" not in joined
    words = "\n".join(chunk.text for chunk in chunks_of(DRAWING))
    assert "Lighthouse keeper rota" in words and "Harbour lantern schedule" in words


def test_images_links_and_encoded_data_are_not_prose_and_the_text_around_them_is() -> None:
    logo = by_heading(chunks_of(DATA_URI))
    assert is_prose(logo["Logo"]) and not is_prose(logo["Inline image"])
    assert is_prose(logo["Pasted"])  # a blob inside a sentence: the sentence is prose
    trip = by_heading(chunks_of(GALLERY))
    assert is_prose(trip["Trip"]) and not is_prose(trip["Photos"])
    reading = by_heading(chunks_of(LINKS))
    assert is_prose(reading["Reading"]) and not is_prose(reading["See also"])


@pytest.mark.parametrize(
    "text",
    [
        "# Sleep\n\nKeep the room dark.",
        "## How I set up a sleep schedule",  # a heading can be the whole thought
        "# 睡眠\n\n早睡早起。",
        "- Uses [[Tegra]] SoC chips",
        "Read [the sleep guide from the clinic](https://example.org/sleep) first.",
    ],
)
def test_short_prose_is_prose(text: str) -> None:
    assert all(is_prose(chunk) for chunk in chunks_of(text))


@pytest.mark.parametrize(
    "text",
    [
        "## Summary",
        "Comment:\n---",
        "![[diagram.png]]",
        "- [[Note A]]\n- [[Note B]]\n- [[Note C]]",
        "| [[A]] | [[B]] |\n|---|---|\n| 1 | 2 |",
        "#todo #sleep ^block1",
        f'<img src="data:image/png;base64,{_blob(300)}">',
    ],
)
def test_markup_alone_is_not_prose(text: str) -> None:
    assert not any(is_prose(chunk) for chunk in chunks_of(text))


def test_encoded_data_is_left_out_of_what_is_embedded() -> None:
    pasted = by_heading(chunks_of(DATA_URI))["Pasted"]
    text = embedding_text(pasted)
    assert "kept for reference in winter" in text
    assert max(map(len, text.split())) < 100


# -- the vector side ------------------------------------------------------------------------------


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    vault = tmp_path / "vault"
    for path, text in NOTES.items():
        write(vault, path, text)
    settings = Settings(cache_dir=tmp_path / "cache", vector_retry_seconds=0.05)
    engine = Engine.open(vault, settings, FakeEmbedder())
    engine.refresh()
    yield engine
    engine.close()


def test_only_prose_chunks_get_a_vector(engine: Engine) -> None:
    embed_all(engine)
    assert engine.read().vectors.status.pending == 0
    chunks = [chunk for path in NOTES for chunk in engine.read().keyword.chunks_of(path)]
    prose = {chunk.id for chunk in chunks if is_prose(chunk)}
    assert engine.vector_side.store is not None
    assert engine.vector_side.store.ids() == prose
    assert {"Logo", "Trip", "Reading", "Pasted"} == {
        chunk.breadcrumb[-1] for chunk in chunks if chunk.id in prose
    }


def test_the_vector_side_never_returns_a_drawing_or_an_image(engine: Engine) -> None:
    embed_all(engine)
    for query in ("qwzxplk", "zebracorn", "lighthouse keeper", "meadow willow photos"):
        request = SearchRequest(query=query, mode="vector", expand=False, limit=50)
        hits = engine.read().search(request).hits
        assert hits
        assert not any("drawing" in hit.chunk.path for hit in hits)
        assert all(is_prose(hit.chunk) for hit in hits)


def test_a_drawing_is_found_by_its_words_and_not_by_its_data(engine: Engine) -> None:
    def keyword(query: str) -> list[str]:
        request = SearchRequest(query=query, mode="keyword", expand=False)
        return [hit.chunk.path for hit in engine.read().search(request).hits]

    assert keyword("lighthouse rota") == ["drawing.excalidraw.md"]
    assert keyword("orchard map") == ["old drawing.md"]
    assert keyword("strokeColor") == []
    blob_word = COMPRESSED[:64].replace("+", " ").replace("/", " ").split()[0]
    assert keyword(blob_word) == []


def test_chunks_that_are_not_prose_are_never_pending(engine: Engine, tmp_path: Path) -> None:
    embed_all(engine)
    stored = engine.read().vectors.status.stored
    engine.close()
    # A new process (each CLI search is one) plans from the saved records alone.
    settings = Settings(cache_dir=tmp_path / "cache", vector_retry_seconds=0.05)
    again = Engine.open(tmp_path / "vault", settings, FakeEmbedder())
    try:
        again.refresh()
        assert again.plan_vectors()
        status = again.read().vectors.status
        assert (status.pending, status.stored) == (0, stored)
    finally:
        again.close()


def test_a_backfill_step_passes_over_chunks_that_are_not_prose(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "prose.md", "# Prose\n\nThe harbour lantern is lit at dusk by the keeper.\n")
    for number in range(12):  # newer than the prose note: planned first
        touch_later(write(vault, f"gallery {number}.md", f"![[photo {number}.png]]\n"))
    settings = Settings(cache_dir=tmp_path / "cache", vector_retry_seconds=0.05)
    engine = Engine.open(vault, settings, FakeEmbedder())
    try:
        engine.refresh()
        # A step that met only images would say 0, and a caller stops at 0 with prose left.
        assert engine.embed_step(2) == 1
        assert engine.read().vectors.status.pending == 0
        assert engine.embed_step(2) == 0
    finally:
        engine.close()
