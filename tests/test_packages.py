"""Each package says what it is and names what it offers; the modules import in no circle.

A package's `__init__.py` has a docstring and names its public names lazily (memlsp/exports.py):
the names it declares for type checkers are the names it exports, and each is there. Modules
import the module that defines a name, never their own package's `__init__`. No two modules
import each other, directly or around a longer circle, counting imports made only for type
checking and imports inside functions.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memlsp"
INITS = sorted(p for p in PACKAGE.rglob("__init__.py"))


def _dotted(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in node.body:
                if isinstance(inner, ast.ImportFrom):
                    names.update(alias.asname or alias.name for alias in inner.names)
    return names


@pytest.mark.parametrize("init", INITS, ids=lambda p: _dotted(p))
def test_a_package_says_what_it_is_and_exports_its_names(init: Path) -> None:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree)
    assert doc and len(doc) > 40, f"{init.relative_to(PACKAGE.parent)} needs a docstring"
    declared = _type_checking_names(tree)
    module = importlib.import_module(_dotted(init))
    getter = getattr(module, "__getattr__", None)
    if getter is None:  # a package that imports its names eagerly, or exports none
        return
    for name in declared:
        assert getattr(module, name) is not None, f"{_dotted(init)}.{name}"
    with pytest.raises(AttributeError):
        getter("no_such_name")


def _module_names() -> dict[str, Path]:
    return {_dotted(p): p for p in PACKAGE.rglob("*.py")}


def _imported(node: ast.ImportFrom | ast.Import, modules: dict[str, Path]) -> set[str]:
    found: set[str] = set()
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in modules:
                found.add(alias.name)
        return found
    if not node.module or node.level or not node.module.startswith("memlsp"):
        return found
    for alias in node.names:
        submodule = f"{node.module}.{alias.name}"
        found.add(submodule if submodule in modules else node.module)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _module_names()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges |= _imported(node, modules)
        graph[name] = {edge for edge in edges if edge in modules and edge != name}
    return graph


def test_no_module_imports_its_own_package() -> None:
    graph = _graph()
    for name, edges in graph.items():
        package = name.rsplit(".", 1)[0]
        if _module_names()[name].name == "__init__.py":
            continue
        assert package not in edges or package == "memlsp", (
            f"{name} imports its own package {package}: import the defining module"
        )


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle() -> None:
    assert _cycles(_graph()) == []
