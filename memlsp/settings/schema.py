"""How a setting is declared: who may set it, what a change does, its bound, and `setting(...)`,
which makes a `Settings` field that carries its declaration (memlsp/settings/table.py holds the
table itself)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from types import MappingProxyType
from typing import Any, TypeVar


class SetBy(Enum):
    """Who may give a setting. The names are the same everywhere: `initializationOptions`,
    `workspace/didChangeConfiguration` (under "memlsp"), the user config file, `.memlsp.toml`."""

    USER_OR_VAULT = "the user, or a vault's own settings file"
    # A vault is data someone else may have written (a cloned repository): it may not choose where
    # text and vectors are sent, what is read outside the vault or where memlsp writes.
    USER = "the user only: the editor, the command line or the user config file"
    NOBODY = "nobody: memlsp's own, not a setting anyone gives"


class Effect(Enum):
    """What a running server does when a setting changes, and whether a command's answer may."""

    NEXT_REQUEST = "read by each request; no search or links answer depends on it"
    # Read by each request like NEXT_REQUEST, but a command's answer (`mentions`) depends on it.
    NEXT_ANSWER = "read by each request; a mentions answer depends on it"
    RERANKS = "re-ranks searches, from the next one"
    REEMBEDS = "re-embeds: the vector side reopens with another embedder or store"
    REINDEXES = "re-indexes: part of the index fingerprint, so the index is rebuilt"
    REOPENS = "reopens the vault"
    # How the vault is kept (watching, retrying, where its cache is), not what it answers.
    REOPENS_SAME_ANSWERS = "reopens the vault; its answers stay the same"

    @property
    def reopens(self) -> bool:
        """A change reopens the vault: what is read only when it opens must be read again."""
        return self not in (Effect.NEXT_REQUEST, Effect.NEXT_ANSWER, Effect.RERANKS)

    @property
    def reindexes(self) -> bool:
        return self is Effect.REINDEXES

    @property
    def changes_answers(self) -> bool:
        """A process serving other values for it gives other `search` or `links` answers."""
        return self not in (Effect.NEXT_REQUEST, Effect.REOPENS_SAME_ANSWERS)


# -- bounds: each says why a value is refused (the end of "must be ...") and as JSON Schema -------


@dataclass(frozen=True, slots=True)
class AtLeast:
    low: int

    def refuses(self, value: Any) -> str | None:
        return None if value >= self.low else f"at least {self.low}, not {value}"

    def json_schema(self) -> dict[str, Any]:
        return {"minimum": self.low}


@dataclass(frozen=True, slots=True)
class MoreThan:
    low: float

    def refuses(self, value: Any) -> str | None:
        return None if value > self.low else f"more than {self.low:g}, not {value}"

    def json_schema(self) -> dict[str, Any]:
        return {"exclusiveMinimum": self.low}


@dataclass(frozen=True, slots=True)
class Between:
    low: float
    high: float

    def refuses(self, value: Any) -> str | None:
        if self.low <= value <= self.high:
            return None
        return f"between {self.low:g} and {self.high:g}, not {value}"

    def json_schema(self) -> dict[str, Any]:
        return {"minimum": self.low, "maximum": self.high}


@dataclass(frozen=True, slots=True)
class OneOf:
    choices: tuple[str, ...]

    def refuses(self, value: Any) -> str | None:
        return None if value in self.choices else f"one of {', '.join(self.choices)}, not {value!r}"

    def json_schema(self) -> dict[str, Any]:
        return {"enum": list(self.choices)}


Bound = AtLeast | MoreThan | Between | OneOf


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting's declaration; `SETTINGS` holds them all, by name."""

    name: str
    default: Any
    given: type  # what a user gives: int, float, bool, str, or list (of strings)
    effect: Effect
    description: str  # one line
    set_by: SetBy = SetBy.USER_OR_VAULT
    bound: Bound | None = None
    # Of the bound's choices, those a vault's file may pick; the others are the user's alone.
    vault_choices: tuple[str, ...] | None = None
    read: Callable[[Any], Any] | None = None  # a valid given value -> the Settings field's value
    # Its name in the index fingerprint; settings that share one are one value, concatenated.
    index_label: str = ""

    def value_of(self, given: Any) -> Any:
        """The field's value for `given`; ValueError says what it must be (ends "must be ...")."""
        if self.given is float and isinstance(given, int) and not isinstance(given, bool):
            given = float(given)
        if not isinstance(given, self.given) or (self.given is int and isinstance(given, bool)):
            raise ValueError(f"{self.given.__name__}, not {given!r}")
        refused = self.bound.refuses(given) if self.bound is not None else None
        if refused is not None:
            raise ValueError(refused)
        return self.read(given) if self.read is not None else given


_DECLARATION = "memlsp.setting"
_GIVEN_AS = {bool: bool, int: int, float: float, str: str, tuple: list}
T = TypeVar("T")


def setting(
    default: T,
    effect: Effect,
    description: str,
    *,
    set_by: SetBy = SetBy.USER_OR_VAULT,
    bound: Bound | None = None,
    vault_choices: tuple[str, ...] | None = None,
    given: type | None = None,
    read: Callable[[Any], Any] | None = None,
    index_label: str = "",
) -> T:
    """A `Settings` field with its declaration; `given` defaults to the default's own type."""
    declared = Setting(
        name="",  # the field's, filled in by `SETTINGS`
        default=default,
        given=given or _GIVEN_AS[type(default)],
        effect=effect,
        description=description,
        set_by=set_by,
        bound=bound,
        vault_choices=vault_choices,
        read=read,
        index_label=index_label,
    )
    return field(default=default, metadata={_DECLARATION: declared})


def declarations(table: type) -> Mapping[str, Setting]:
    """Each field of the dataclass `table` made with `setting(...)`: its declaration, by name."""
    return MappingProxyType(
        {
            f.name: replace(f.metadata[_DECLARATION], name=f.name)
            for f in fields(table)
            if _DECLARATION in f.metadata
        }
    )
