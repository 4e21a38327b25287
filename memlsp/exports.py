"""A package's public names, imported from their modules when first asked for (PEP 562).

Each package's `__init__.py` says what the package is and names what it offers a reader. It must
not import its modules when it is imported: `memlsp.index.manifest` alone must not bring in
tantivy and Chroma, nor a parse worker the keyword index. So an `__init__` declares its names for
type checkers inside `if TYPE_CHECKING:` and hands the same names to `exports`, which imports a
module the first time one of its names is read. Inside memlsp, modules import from the module that
defines a name, never from a package's `__init__` (tests/test_packages.py checks both rules).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def exports(package: str, where: Mapping[str, str]) -> Callable[[str], object]:
    """The `__getattr__` of `package`: `where` maps each public name to the module that defines
    it, relative to the package, or whole (`memlsp.…`) for a name the package passes on from
    another."""

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        whole = module if module.startswith("memlsp.") else f"{package}.{module}"
        value = getattr(importlib.import_module(whole), name)
        setattr(sys.modules[package], name, value)  # asked once: the next read is a plain lookup
        return value

    return __getattr__
