"""memlsp's own JSON has one schema (the package memlsp/wire/): the extension's copy of it
(vscode-extension/src/wire.ts) names the same fields with the same types, and every builder writes
exactly the keys of its shape, checked on real answers over the fixture vault."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import re
import time
import types
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from memlsp import wire
from memlsp.commands.status import status_report
from memlsp.engine.engine import Engine
from memlsp.index.semantic import VectorStatus
from memlsp.live.status import EmbeddingPace, Group, ProcessInfo, StatusReport, VaultStatus
from memlsp.model import SearchRequest
from memlsp.queries.graph_view import GraphAsk, graph_view, with_meaning
from memlsp.queries.graph_walk import Neighbourhood, neighbourhood
from memlsp.queries.mentions import MentionsAnswer, mentions_of
from memlsp.queries.reading import Passage, ReadRequest, read_passage
from memlsp.queries.recent import recent_changes
from memlsp.search.related import RelatedAnswer, RelatedNote, SectionPair
from tests.helpers.engine import open_engine
from tests.helpers.paths import REPO
from tests.helpers.vault import FIXTURE_VAULT

WIRE_TS = REPO / "vscode-extension" / "src" / "wire.ts"

# Fields the extension treats as optional because servers before them did not send them.
OLDER_SERVERS = {
    ("VaultStatusJson", "name"),
    ("VaultStatusJson", "summary"),
    ("VaultStatusJson", "busy"),
    ("VaultStatusJson", "read_only"),
    ("VaultStatusJson", "problems"),
    ("VaultSearchAnswerJson", "fusion"),
    ("VaultSearchAnswerJson", "dropped"),
    ("VaultSearchAnswerJson", "budget_used"),
    ("VaultSearchAnswerJson", "explain"),
    ("ReadJson", "hash"),
    ("SearchResultJson", "recall_count"),
    ("SearchResultJson", "last_recalled_at"),
    ("VaultSearchResultJson", "recall_count"),
    ("VaultSearchResultJson", "last_recalled_at"),
    ("StatusReportJson", "recall"),
}

# -- the TypeScript side ---------------------------------------------------------------------------


def _without_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL))


_INTERFACE = re.compile(
    r"^export interface (\w+)(?: extends ([\w, ]+))? \{\n(.*?)^\}", re.MULTILINE | re.DOTALL
)
_FIELD = re.compile(r'^\s*"?([\w/]+)"?(\??):\s*(.+?);\s*$')
_ALIAS = re.compile(r"^export type (\w+) = ([^;]+);", re.MULTILINE)


def _ts_interfaces() -> dict[str, dict[str, tuple[bool, str]]]:
    """Each interface of wire.ts: field -> (optional, type), with the fields it extends."""
    text = _without_comments(WIRE_TS.read_text(encoding="utf-8"))
    own: dict[str, tuple[list[str], dict[str, tuple[bool, str]]]] = {}
    for name, bases, body in _INTERFACE.findall(text):
        fields = {}
        for line in body.splitlines():
            if not line.strip():
                continue
            match = _FIELD.match(line)
            assert match, f"wire.ts {name}: cannot read {line!r}"
            fields[match[1]] = (match[2] == "?", match[3])
        own[name] = ([b.strip() for b in bases.split(",") if b.strip()], fields)

    def flat(name: str) -> dict[str, tuple[bool, str]]:
        bases, fields = own[name]
        merged: dict[str, tuple[bool, str]] = {}
        for base in bases:
            merged |= flat(base)
        return merged | fields

    return {name: flat(name) for name in own}


def _ts_aliases() -> dict[str, str]:
    text = _without_comments(WIRE_TS.read_text(encoding="utf-8"))
    return dict(_ALIAS.findall(text))


def _members(ts_type: str) -> frozenset[str]:
    """A TypeScript type as its union's members, so that order and spacing do not matter."""
    return frozenset(part.strip() for part in ts_type.split("|"))


# -- the Python side -------------------------------------------------------------------------------

LITERALS = {value: name for name, value in vars(wire).items() if get_origin(value) is Literal}
SHAPES = {name: value for name, value in vars(wire).items() if is_typeddict(value)}


def _ts(hint: Any) -> str:
    """A Python annotation of memlsp/wire/ as TypeScript writes it."""
    if hint is object:
        return "unknown"
    if hint in LITERALS:
        return LITERALS[hint]
    if is_typeddict(hint):
        return str(hint.__name__)
    simple = {str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}
    if hint in simple:
        return simple[hint]
    origin = get_origin(hint)
    if origin is list:
        return _ts(get_args(hint)[0]) + "[]"
    if origin is dict:
        key, value = get_args(hint)
        return f"Record<{_ts(key)}, {_ts(value)}>"
    if origin in (Union, types.UnionType):
        return " | ".join(_ts(arg) for arg in get_args(hint))
    if origin is Literal:
        return " | ".join(json.dumps(arg) for arg in get_args(hint))
    raise AssertionError(f"no TypeScript for {hint!r}")


def _hints(shape: type) -> dict[str, Any]:
    return get_type_hints(shape, vars(wire))


def _reachable(hint: Any) -> Iterator[type]:
    """The shapes a message's JSON is made of."""
    if is_typeddict(hint):
        yield hint
        for field in _hints(hint).values():
            yield from _reachable(field)
    for arg in get_args(hint):
        yield from _reachable(arg)


CLIENT_SHAPES = sorted(
    {shape.__name__ for hint in wire.MESSAGES.values() for shape in _reachable(hint)}
)


# -- drift -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CLIENT_SHAPES)
def test_every_shape_a_client_reads_is_in_wire_ts(name: str) -> None:
    assert name in _ts_interfaces(), f"{name} is sent to clients but not declared in wire.ts"


@pytest.mark.parametrize("name", sorted(_ts_interfaces()))
def test_a_wire_ts_interface_has_the_fields_of_its_typeddict(name: str) -> None:
    if name == "Messages":
        return  # the table of methods, checked below
    assert name in SHAPES, f"wire.ts declares {name}, which memlsp/wire/ does not define"
    shape = SHAPES[name]
    python_fields = _hints(shape)
    ts_fields = _ts_interfaces()[name]
    assert sorted(set(python_fields) - set(ts_fields)) == [], f"{name}: missing in wire.ts"
    assert sorted(set(ts_fields) - set(python_fields)) == [], f"{name}: not sent by the server"
    for field, hint in python_fields.items():
        optional, ts_type = ts_fields[field]
        assert _members(ts_type) == _members(_ts(hint)), f"{name}.{field}: {ts_type} != {hint}"
        if field in shape.__optional_keys__:
            assert optional, f"{name}.{field} is not always sent: wire.ts must mark it optional"
        elif optional:
            assert (name, field) in OLDER_SERVERS, f"{name}.{field} is always sent"


def test_literal_types_match() -> None:
    aliases = _ts_aliases()
    for value, name in LITERALS.items():
        assert name in aliases, f"wire.ts lacks the type {name}"
        expected = " | ".join(json.dumps(arg) for arg in get_args(value))
        assert _members(aliases[name]) == _members(expected), name
    assert "failed" in get_args(wire.VaultState)


def test_messages_carry_the_same_shapes() -> None:
    messages = _ts_interfaces()["Messages"]
    assert set(messages) == set(wire.MESSAGES)
    for method, hint in wire.MESSAGES.items():
        optional, ts_type = messages[method]
        assert not optional
        assert _members(ts_type) == _members(_ts(hint)), method


def _family_modules() -> list[types.ModuleType]:
    return [
        importlib.import_module(f"{wire.__name__}.{info.name}")
        for info in pkgutil.iter_modules(wire.__path__)
    ]


def _defined(module: types.ModuleType) -> set[str]:
    """The public names a module defines (not those it imports)."""
    names: set[str] = set()
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return {name for name in names if not name.startswith("_")}


def test_the_package_names_what_its_modules_define() -> None:
    """`from memlsp.wire import X` reaches every shape and builder, whichever family defines it,
    so the checks here, which read the package, see them all; a family module imports the
    others' modules, never the package (which imports it)."""
    modules = _family_modules()
    assert len(modules) >= 8
    for module in modules:
        for name in _defined(module):
            assert name in wire.__all__, f"{module.__name__}.{name} is not named by memlsp.wire"
            assert getattr(wire, name) is getattr(module, name), name
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.ImportFrom):
                assert node.module != wire.__name__, f"{module.__name__} imports memlsp.wire"
                if node.module == "memlsp":
                    assert "wire" not in {a.name for a in node.names}, module.__name__


# -- what the builders write -----------------------------------------------------------------------


def _conforms(value: Any, hint: Any, where: str) -> None:
    """`value` is JSON of type `hint`: a shape's keys exactly, and every value of its type."""
    if hint is object:
        return
    if is_typeddict(hint):
        assert isinstance(value, dict), where
        hints = _hints(hint)
        assert set(hint.__required_keys__) <= set(value) <= set(hints), (
            f"{where}: keys {sorted(value)} against {hint.__name__} {sorted(hints)}"
        )
        for key, item in value.items():
            _conforms(item, hints[key], f"{where}.{key}")
        return
    origin = get_origin(hint)
    if origin is list:
        assert isinstance(value, list), where
        for number, item in enumerate(value):
            _conforms(item, get_args(hint)[0], f"{where}[{number}]")
        return
    if origin is dict:
        assert isinstance(value, dict), where
        key_hint, value_hint = get_args(hint)
        for key, item in value.items():
            _conforms(key, key_hint, f"{where} key")
            _conforms(item, value_hint, f"{where}.{key}")
        return
    if origin in (Union, types.UnionType):
        problems = []
        for arg in get_args(hint):
            try:
                _conforms(value, arg, where)
                return
            except AssertionError as error:
                problems.append(str(error))
        raise AssertionError(f"{where}: {value!r} is none of {hint}: {problems}")
    if origin is Literal:
        assert value in get_args(hint), f"{where}: {value!r} not in {hint}"
        return
    if hint is type(None):
        assert value is None, where
        return
    if hint is float:
        assert type(value) in (int, float), f"{where}: {value!r}"
        return
    assert type(value) is hint, f"{where}: {value!r} is not {hint}"


def _returns(builder: Callable[..., Any]) -> Any:
    """The builder's return type, read in the module that defines it (memlsp/wire/status.py
    imports `VaultStatus`, `StatusReport` and `Group` for type checking only)."""
    names = {"VaultStatus": VaultStatus, "StatusReport": StatusReport, "Group": Group}
    return get_type_hints(builder, localns=names).get("return")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = open_engine(FIXTURE_VAULT, tmp_path_factory.mktemp("wire-cache"))
    engine.refresh()
    yield engine
    engine.close()


def _uri(path: str) -> str:
    return f"file:///vault/{path}"


REQUEST = SearchRequest(query="hybrid search fusion")
BUDGETED = SearchRequest(query="hybrid search fusion", budget_tokens=50)  # leaves results out
READY = VectorStatus("ready", "bilingual", 70, 3)
VECTORS = (READY, VectorStatus("off", "", 0, 0), VectorStatus("unavailable", "x", 0, 9, "no key"))
STATES = (
    VaultStatus("/vault", "ready", 24, 74, 3, 24, 24, 0),
    VaultStatus("/v", "failed", 0, 0, 0, 0, 0, 2, "disk full", READY, True),
)


RELATED_ANSWER = RelatedAnswer(
    "index.md",
    (
        RelatedNote(
            "notes/fusion.md",
            0.82,
            True,
            SectionPair(("Index", "Search"), 5, ("Fusion", "Formula"), 9, 0.71),
            ("search",),
            "Fusion",
        ),
    ),
)
RELATED = wire.related_json(RELATED_ANSWER)


def _vault_answers(engine: Engine, request: SearchRequest) -> list[wire.VaultAnswer]:
    response = engine.read().search(wire.each_vault(request))
    return [
        wire.VaultAnswer("vault", "file:///vault", _uri, response),
        wire.VaultAnswer("other", "file:///other", _uri, None, "other is still opening"),
    ]


def _links(engine: Engine, encoding: str) -> wire.LinksAnswerJson:
    return wire.links_answer_json(_uri("index.md"), engine.read().links("index.md"), _uri, encoding)


def _mentions(engine: Engine, path: str) -> MentionsAnswer:
    snapshot = engine.read()
    return mentions_of(snapshot.view, path, snapshot.candidates_for_names, 3)


def _graphs(engine: Engine) -> list[Neighbourhood]:
    """Around the fixture's home note: as it is, with a cap that leaves neighbours out, with
    meaning edges (one to a note the links do not reach; the fixture engine has no vectors, so
    the closest notes are made here), and with the warning of a vault without vectors."""
    snapshot = engine.read()
    graph = snapshot.graph
    near = neighbourhood(graph, "index.md", 1)
    reached = {node.id for node in near.nodes}
    far = next(path for path in sorted(graph.notes) if path not in reached)
    linked = next(node.id for node in near.nodes if node.kind == "note" and node.distance == 1)
    pair = RELATED_ANSWER.results[0].closest
    found = RelatedAnswer(
        "index.md", tuple(RelatedNote(p, 0.5, False, pair, ()) for p in (far, linked))
    )
    return [
        neighbourhood(graph, "index.md", 2),
        neighbourhood(graph, "index.md", 2, "in", 3),
        with_meaning(graph, near, found),
        graph_view(graph, GraphAsk("index.md"), snapshot.related),
    ]


def _reads(engine: Engine) -> list[Passage]:
    """Every note whole (frontmatter with dates, and invalid); a section; a budget that cuts."""
    view = engine.read().view
    whole = [read_passage(view, path, ReadRequest()) for path in sorted(view.graph.notes)]
    return [
        *whole,
        read_passage(view, "index.md", ReadRequest(heading="This week")),
        read_passage(view, "index.md", ReadRequest(budget_tokens=20)),
    ]


def _report(engine: Engine) -> wire.StatusReportJson:
    snapshot = engine.read()
    status = VaultStatus(str(snapshot.root), "ready", 24, 74, 3, 24, 24, 0, "", READY)
    report = status_report(
        snapshot,
        status,
        cache_dir=engine.cache_dir,
        read_only=False,
        process=ProcessInfo("memlsp serve", 12, 1_800_000_000.0),
        pace=EmbeddingPace(100.0, 40, 102.0, True),
    )
    return wire.status_report_json(report)


def _recent(engine: Engine) -> list[wire.RecentJson]:
    snapshot = engine.read()
    notes = snapshot.graph.notes
    changed = [(path, snapshot.last_saved(path)) for path in notes] + [("index.md", None)]
    return [
        wire.recent_json(recent_changes(changed, now_ns=now, days=days, limit=5), notes)
        for now, days in ((time.time_ns(), 3650.0), (time.time_ns(), 1e-9))
    ]


# Each builder of a whole message or output, with what it is given: real answers of the engine
# over the fixture vault where there are some.
CASES: dict[str, Callable[[Engine], list[Any]]] = {
    "search_answer_json": lambda e: [
        wire.search_answer_json(e.read().search(request)) for request in (REQUEST, BUDGETED)
    ],
    "query_answer_json": lambda e: [wire.query_answer_json(7, e.read().search(BUDGETED))],
    "query_error_json": lambda e: [wire.query_error_json("q1", "line 3: 'query'")],
    "vault_search_answer_json": lambda e: [
        wire.vault_search_answer_json(request, _vault_answers(e, request))
        for request in (REQUEST, BUDGETED)
    ],
    "links_answer_json": lambda e: [_links(e, code) for code in ("utf-8", "utf-16", "utf-32")],
    "links_json": lambda e: [wire.links_json(e.read().links("index.md"))],
    # The fixture engine has no vectors: its answer is a warning; one with a result is made here.
    "related_json": lambda e: [wire.related_json(e.read().related("index.md")), RELATED],
    "mentions_json": lambda e: [
        wire.mentions_json(_mentions(e, path)) for path in e.read().graph.notes
    ],
    "related_answer_json": lambda e: [
        wire.related_answer_json(_uri(a.note), a, _uri, lambda path: path.removesuffix(".md"))
        for a in (e.read().related("index.md"), RELATED_ANSWER)
    ],
    "mentions_answer_json": lambda e: [
        wire.mentions_answer_json(_uri(path), _mentions(e, path), _uri, code)
        for path in e.read().graph.notes
        for code in ("utf-8", "utf-16")
    ],
    "graph_json": lambda e: [
        wire.graph_json(answer, note_uri)
        for answer in _graphs(e)
        for note_uri in (None, _uri)  # `memlsp/graph` sends each note's and file's uri
    ],
    "read_json": lambda e: [wire.read_json(passage) for passage in _reads(e)],
    "recent_json": _recent,
    "indexed_json": lambda e: [wire.indexed_json("file:///vault", e.refresh())],
    "vectors_notice_json": lambda e: [
        wire.vectors_notice_json("file:///vault", s) for s in (*VECTORS, e.read().vectors.status)
    ],
    "status_answer_json": lambda e: [
        wire.status_answer_json("0.1.0", [wire.vault_status_json("file:///v", s) for s in STATES]),
        wire.status_answer_json("0.1.0", []),
        # With `"report": true`.
        wire.status_answer_json(
            "0.1.0", [wire.vault_status_json("file:///v", STATES[0], None, _report(e))]
        ),
    ],
    "status_report_json": lambda e: [_report(e)],
    "reindex_answer_json": lambda e: [wire.reindex_answer_json(["file:///vault"])],
    "changed_json": lambda e: [wire.changed_json("file:///vault", 12)],
    "index_summary_json": lambda e: [
        wire.index_summary_json(
            e.refresh(),
            e.read().vectors.status,
            embedded_chunks=3,
            embedding_seconds=0.5,
            seconds=1.5,
        )
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_builder_writes_exactly_its_shape(engine: Engine, name: str) -> None:
    builder = getattr(wire, name)
    for value in CASES[name](engine):
        _conforms(value, _returns(builder), name)
        assert json.loads(json.dumps(value)) == value


def test_the_graph_bounds_the_server_announces_are_their_shape() -> None:
    bounds = wire.graph_bounds_json()
    _conforms(bounds, wire.GraphBoundsJson, "graph_bounds_json")
    assert bounds == {"min_depth": 1, "max_depth": 5, "max_per_node": 2000, "max_nodes": 2000}


def test_every_builder_of_a_message_or_output_is_checked() -> None:
    answers = {
        shape
        for hint in (*wire.MESSAGES.values(), *wire.COMMAND_LINE.values())
        for shape in (get_args(hint) or (hint,))
        if is_typeddict(shape)
    }
    builders = {
        name
        for name, function in vars(wire).items()
        if inspect.isfunction(function)
        and function.__module__.startswith(f"{wire.__name__}.")
        and _returns(function) in answers
    }
    assert builders == set(CASES)


def test_the_nested_shapes_were_there_to_check(engine: Engine) -> None:
    """The fixture's answers hold every nested shape, so the checks above saw each one."""
    results = wire.search_answer_json(engine.read().search(REQUEST))["results"]
    assert any(r["outlinks"] and r["inlinks"] for r in results)
    assert any(r["other_sections"] for r in results)
    assert wire.search_answer_json(engine.read().search(BUDGETED))["dropped"]
    assert wire.vault_search_answer_json(BUDGETED, _vault_answers(engine, BUDGETED))["dropped"]
    links = engine.read().links("index.md")
    assert links.outlinks and links.inlinks and links.unresolved and links.ambiguous
    summary = engine.refresh()
    assert summary.problems  # inbox/broken-config.md
    whole, capped, meaning, warned = _graphs(engine)
    assert {node.kind for node in whole.nodes} == {"note", "file", "unresolved"}
    assert whole.cut is None
    assert capped.cut is not None and capped.left_out.nodes
    assert {edge.kind for edge in meaning.edges} == {"link", "meaning"}
    assert any(node.distance is None for node in meaning.nodes) and meaning.warning is None
    assert any(node.description for node in whole.nodes) and any(node.tags for node in whole.nodes)
    assert warned.warning
    sent = wire.graph_json(whole, _uri)["nodes"]
    assert {node["kind"] for node in sent if "uri" in node} == {"note", "file"}
    reads = [wire.read_json(passage) for passage in _reads(engine)]
    assert all(any(read[key] for read in reads) for key in ("links", "headings", "cut"))
    assert any(read["frontmatter"].get("date") == "2024-03-15" for read in reads)
    assert all(any(note["unsaved"] for note in recent["notes"]) for recent in _recent(engine))


def test_search_merges_vaults(engine: Engine) -> None:
    merged = wire.vault_search_answer_json(REQUEST, _vault_answers(engine, REQUEST))
    first = merged["results"][0]
    assert (first["uri"], first["root"]) == (_uri(first["path"]), "file:///vault")
    assert merged["warnings"][0] == "other is still opening"
    scores = [r["score"] for r in merged["results"]]
    assert scores == sorted(scores, reverse=True) and len(scores) <= REQUEST.limit


def test_the_renamed_fields() -> None:
    """One name per concept: `embedded` vectors, `skipped` a list and `skipped_count` a count;
    the status's wire names are given by its builder, from the status value's own."""
    assert wire.vectors_json(READY)["embedded"] == READY.stored
    assert "stored" not in wire.VectorsJson.__annotations__
    assert get_type_hints(wire.IndexSummaryJson)["skipped"] == list[wire.SkippedJson]
    assert get_type_hints(wire.IndexedJson)["skipped_count"] is int
    state = STATES[1]
    # Read as a client reads it (pygls hands notifications over as objects).
    sent = json.loads(
        json.dumps(wire.vault_status_json("file:///v", state)),
        object_hook=lambda fields: SimpleNamespace(**fields),
    )
    assert (sent.indexed_files, sent.files_to_index, sent.pending_changes) == (
        state.files_done,
        state.files_total,
        state.pending,
    )
