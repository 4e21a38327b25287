"""A dict of mutable containers that a copy shares with its original until it changes one.

The link graph publishes one immutable state per revision, and the next revision starts as a copy
of it. Copying every inner set and dict at 10,000 notes would cost more than the edit itself, so
`copy()` copies only the outer dict; the first change to an inner container after it copies that
container alone. Both sides of a copy become copy-on-write, so neither can reach into the other.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, ItemsView, KeysView
from typing import Generic, Self, TypeVar

K = TypeVar("K")
C = TypeVar("C")  # a set or a dict


class SharedMap(Generic[K, C]):
    def __init__(self) -> None:
        self._items: dict[K, C] = {}
        self._owned: set[K] | None = None  # None: no copy shares this map's containers

    def get(self, key: K) -> C | None:
        """The container at `key`, to read only: it may be shared with a copy."""
        return self._items.get(key)

    def __contains__(self, key: K) -> bool:
        return key in self._items

    def writable(self, key: K, empty: Callable[[], C]) -> C:
        """The container at `key`, this map's own to change (made with `empty` when absent)."""
        inner = self._items.get(key)
        if inner is None:
            inner = self._items[key] = empty()
        elif self._owned is not None and key not in self._owned:
            inner = self._items[key] = copy.copy(inner)
        else:
            return inner
        if self._owned is not None:
            self._owned.add(key)
        return inner

    def _set(self, key: K, inner: C | None) -> None:
        """Put a container this map owns at `key` (a new one), or take `key` away (None)."""
        if inner is None:
            self._items.pop(key, None)
        else:
            self._items[key] = inner
        if self._owned is not None:
            self._owned.add(key) if inner is not None else self._owned.discard(key)

    def drop_if_empty(self, key: K) -> None:
        inner = self._items.get(key)
        if inner is not None and not inner:
            del self._items[key]
            if self._owned is not None:
                self._owned.discard(key)

    def copy(self) -> Self:
        twin = type(self)()
        twin._items = dict(self._items)
        twin._owned = set()
        self._owned = set()
        return twin

    def keys(self) -> KeysView[K]:
        return self._items.keys()

    def items(self) -> ItemsView[K, C]:
        """Every key and its container, to read only."""
        return self._items.items()

    def __getstate__(self) -> dict[K, C]:
        return self._items

    def __setstate__(self, items: dict[K, C]) -> None:
        self._items = items
        self._owned = None


# Tuples for the many keys with one or a few values: a set costs 216 bytes even for one. A change
# makes a new tuple, so a tuple is never changed under a reader and a copy shares them all.
# (A key with thousands of values, such as a hub's name, needs `Members`: a new tuple per change
# would make every change cost its thousands.)


def add_to(table: dict[K, tuple[str, ...]], key: K, value: str) -> None:
    values = table.get(key, ())
    if value not in values:
        table[key] = (*values, value)


def discard_from(table: dict[K, tuple[str, ...]], key: K, value: str) -> None:
    values = table.get(key, ())
    if value in values:
        rest = tuple(v for v in values if v != value)
        if rest:
            table[key] = rest
        else:
            del table[key]


SMALL = 16  # values a key keeps in a tuple; more go in a set, changed in place, copied on write


class Members(SharedMap[str, "tuple[str, ...] | set[str]"]):
    """Each key's values: a tuple while they are few (most keys), a set once they are many, so
    that adding or removing one costs little either way. Copies share as `SharedMap`'s do."""

    def add(self, key: str, value: str) -> None:
        values = self.get(key)
        if isinstance(values, set):
            self._own_set(key).add(value)
        elif values is None:
            self._set(key, (value,))
        elif value not in values:
            self._set(key, (*values, value) if len(values) < SMALL else {*values, value})

    def discard(self, key: str, value: str) -> None:
        values = self.get(key)
        if isinstance(values, set):
            if value in values:
                self._own_set(key).discard(value)
                self.drop_if_empty(key)
        elif values is not None and value in values:
            rest = tuple(v for v in values if v != value)
            if rest:
                self._set(key, rest)
            else:
                self._set(key, None)

    def _own_set(self, key: str) -> set[str]:
        values = self.writable(key, set)
        assert isinstance(values, set)  # a tuple is replaced, never changed
        return values

    def put(self, key: str, values: Collection[str]) -> None:
        """All of a key's values at once (a bulk load)."""
        self._set(key, tuple(values) if len(values) <= SMALL else set(values))
