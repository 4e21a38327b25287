"""Property filters alone (search/where.py): the forms a filter takes and the sentence for one that
is not, and whether a note's properties (parse/properties.py) hold it: folded keys and values,
lists by any element, links by name or by the note they resolve to, numbers and dates in order."""

from __future__ import annotations

import datetime as dt

import pytest

from memlsp.parse.markdown import parse_markdown
from memlsp.parse.properties import VALUE_CHARS, note_properties
from memlsp.search.scope import NoteScope, PropertyIndex, link_resolver
from memlsp.search.where import FORMS, Condition, conditions_of, parse_condition
from tests.helpers.vault import graph_of


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("type=Movie", Condition("type", "=", "movie")),
        (" State = 想看 ", Condition("state", "=", "想看")),
        ('state="想看"', Condition("state", "=", "想看")),
        ("status!=Done", Condition("status", "!=", "done")),
        ("cover", Condition("cover", "")),
        ("rating>=4", Condition("rating", ">=", "4", 4.0)),
        ("rating<2.5", Condition("rating", "<", "2.5", 2.5)),
        ("created>2024-03-01", Condition("created", ">", "2024-03-01", None, dt.date(2024, 3, 1))),
        ("title=a=b", Condition("title", "=", "a=b")),
        ("ＡＢ=Ｘ", Condition("ａｂ", "=", "ｘ")),
    ],
)
def test_the_forms_of_a_filter(text: str, wanted: Condition) -> None:
    condition = parse_condition(text)
    assert condition == wanted
    assert parse_condition(condition.text) == condition  # what a request carries reads back


@pytest.mark.parametrize("text", ["=x", "a<", "a<=>b", "a==b", "", "  ", "a="])
def test_a_malformed_filter_is_a_sentence_naming_the_forms(text: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_condition(text)
    assert str(raised.value) == f"'where' takes {FORMS}; not {text!r}"


def test_an_order_needs_a_number_or_a_date() -> None:
    with pytest.raises(ValueError, match="compares with >= a number or a date"):
        parse_condition("rating>=good")


def test_an_object_of_filters() -> None:
    where = {"type": "Movie", "rating": ">=4", "status": "!=done", "cover": None, "done": True}
    assert [c.text for c in conditions_of(where)] == [
        "type=movie",
        "rating>=4",
        "status!=done",
        "cover",
        "done=true",
    ]
    assert [c.text for c in conditions_of({"year": 2020})] == ["year=2020"]
    with pytest.raises(ValueError, match="'where' keys are property names"):
        conditions_of({"a=b": "c"})
    with pytest.raises(ValueError, match="'where' values are text, a number"):
        conditions_of({"a": ["b"]})
    with pytest.raises(ValueError, match="'where' must be a list of filters"):
        conditions_of(3)


def props(yaml_text: str, path: str = "n.md") -> tuple[tuple[str, tuple[str, ...]], ...]:
    return parse_markdown(path, f"---\n{yaml_text}\n---\n# N\n").properties


def test_properties_are_kept_folded_as_text() -> None:
    kept = dict(
        props(
            "Type: Movie\nstate: 想看\nrating: 4\nscore: 7.8\ndone: true\nempty:\n"
            "created: 2024-03-01\nwhen: 2024-03-01 10:00:00\nlist: [A, [b, c], {d: e}]\n"
            "map: {a: 1}\nnone: []"
        )
    )
    assert kept == {
        "type": ("movie",),
        "state": ("想看",),
        "rating": ("4",),
        "score": ("7.8",),
        "done": ("true",),
        "empty": (),
        "created": ("2024-03-01",),
        "when": ("2024-03-01 10:00:00",),
        "list": ("a", "b", "c"),
        "map": (),
        "none": (),
    }
    assert note_properties({"a": "x" * 1000})[0][1][0] == "x" * VALUE_CHARS
    assert props("{{title}}") == ()  # a template placeholder is no YAML mapping: no properties


NOTES = {
    "Categories/Books.md": "# Books\n",
    "Categories/Movies.md": "# Movies\n",
    "Other/Books.md": "# Other books\n",
    "aliased.md": "---\naliases: [Reading list]\n---\n# Aliased\n",
}


def holds(text: str | list[str], yaml_text: str, path: str = "n.md") -> bool:
    notes = [parse_markdown(p, t) for p, t in NOTES.items()]
    note = parse_markdown(path, f"---\n{yaml_text}\n---\n# N\n")
    graph = graph_of([*notes, note])
    scope = NoteScope.from_entries((), (), text)
    by_note = scope.first_failed(note, graph) is None
    by_index = path in PropertyIndex.of(graph).holding(scope.where, link_resolver(graph))
    assert by_note is by_index  # a note alone (explain) and a whole revision (search) agree
    return by_note


@pytest.mark.parametrize(
    ("text", "yaml_text", "wanted"),
    [
        ("type=movie", "type: Movie", True),
        ("TYPE=MOVIE", "type: movie", True),
        ("type=movie", "type: Book", False),
        ("type=movie", "kind: Movie", False),
        ("type!=movie", "type: Book", True),
        ("type!=movie", "title: x", True),  # no such property: nothing equals
        ("type!=movie", "type: [Book, Movie]", False),
        ("type", "type:", True),  # present, even empty
        ("type", "type: []", True),
        ("type", "title: x", False),
        ("state=想看", "state: 想看", True),
        ("name=cafe\u0301", "name: Café", True),  # NFC: é written in two code points
        ("genre=sci-fi", "genre: [Drama, Sci-Fi]", True),
        ("categories=Books", 'categories: ["[[Books]]"]', True),
        ("categories=[[Books]]", 'categories: ["[[Books]]"]', True),
        ("categories=[[books|B]]", 'categories: ["[[Books]]"]', True),
        ("categories=Books", 'categories: ["[[Categories/Books|my books]]"]', True),
        # two notes are named Books: the link leads to the one with the shortest path
        ("categories=Other/Books", 'categories: ["[[Books]]"]', True),
        ("categories=Other/Books.md", 'categories: ["[[Books]]"]', True),
        ("categories=Categories/Books", 'categories: ["[[Books]]"]', False),
        ("categories=Categories/Books", 'categories: ["[[Categories/Books]]"]', True),
        ("categories=Other/Books", 'categories: ["[[Categories/Books]]"]', False),
        ("categories=Movies", 'categories: ["[[Books]]"]', False),
        ("list=aliased", 'list: ["[[Reading list]]"]', True),  # the note the alias leads to
        ("categories=Books", "categories: Books", True),
        ("categories=[[Books]]", "categories: Books", True),
        ("rating>=4", "rating: 4", True),
        ("rating>=4", "rating: 3.5", False),
        ("rating>4", "rating: '4.5'", True),
        ("rating<4", "rating: [5, 2]", True),  # any element
        ("rating<4", "rating: good", False),
        ("rating<4", "title: x", False),
        ("rating=4", "rating: 4.0", True),
        ("created>=2024-03-01", "created: 2024-03-01", True),
        ("created<2024-03-01", "created: 2024-02-29 23:59:00", True),
        ("created>2024-03-01", "created: 2024-03-01 10:00", False),  # by day
        ("created<=2024-03-01", "created: yesterday", False),
        ("year>2000", "year: 2020", True),
        ("done=true", "done: yes", True),  # YAML 1.1 reads yes as true
        ("rating>=4", "rating: .nan", False),
    ],
)
def test_a_note_holds_a_filter(text: str, yaml_text: str, wanted: bool) -> None:
    assert holds(text, yaml_text) is wanted


def test_every_filter_must_hold() -> None:
    yaml_text = "type: Movie\nstate: 想看\nrating: 4"
    assert holds(["type=movie", "state=想看", "rating>3"], yaml_text)
    assert not holds(["type=movie", "state=看过"], yaml_text)
