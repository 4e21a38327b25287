"""A hub note with 5,000 inlinks: references, hover and incoming calls answer from the inlink
index. The times are printed (`pytest -s`) for the record; the benchmark judges them."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest

from memlsp.engine.engine import Engine
from memlsp.navigation.calls import incoming
from memlsp.navigation.hover import hover
from memlsp.navigation.places import Place
from memlsp.navigation.references import references
from memlsp.navigation.symbols import most_linked
from tests.helpers.engine import open_indexed, view_of

pytestmark = pytest.mark.e2e  # indexing its 5,000 notes runs a pool of parse processes

INLINKS = 5000
T = TypeVar("T")


@pytest.fixture(scope="module")
def hub_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("hub")
    vault = root / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "Hub.md").write_text("# Hub\n\nThe centre of everything.\n\n## Part\n", "utf-8")
    for i in range(INLINKS):
        anchor = "#Part" if i % 10 == 0 else ""
        text = f"# Note {i}\n\nNote {i} belongs to [[Hub{anchor}]].\n"
        (vault / "notes" / f"n{i:04}.md").write_text(text, "utf-8")
    engine = open_indexed(vault, root / "cache")
    yield engine
    engine.close()


def timed(label: str, call: Callable[[], T]) -> T:
    started = time.perf_counter()
    result = call()
    print(f"{label}: {(time.perf_counter() - started) * 1000:.1f} ms")
    return result


def test_references_to_a_hub(hub_engine: Engine) -> None:
    found = timed(
        "references off a link", lambda: references(view_of(hub_engine), "Hub.md", 2, 0, False)
    )
    assert len(found) == INLINKS
    assert found[0].path == "notes/n0000.md" and found[-1].path == "notes/n4999.md"
    on_link = timed(
        "references on a link",
        lambda: references(view_of(hub_engine), "notes/n0001.md", 2, 22, True),
    )
    assert len(on_link) == INLINKS + 1
    on_heading = timed(
        "references on a heading", lambda: references(view_of(hub_engine), "Hub.md", 4, 0, False)
    )
    assert len(on_heading) == INLINKS // 10


def test_hover_and_calls_on_a_hub(hub_engine: Engine) -> None:
    def uri(place: Place) -> str:
        return place.path

    text = timed("hover", lambda: hover(view_of(hub_engine), "notes/n0001.md", 2, 22, uri))
    assert text is not None and f"**inlinks ({INLINKS})**" in text
    assert f"- … and {INLINKS - 10} more" in text
    calls = timed("incoming calls", lambda: incoming(view_of(hub_engine), "Hub.md"))
    assert len(calls) == INLINKS
    assert timed("most linked", lambda: most_linked(view_of(hub_engine), 1)) == ["Hub.md"]
