"""docs/settings.md, written from the settings' declarations in memlsp/settings/table.py.

The page is generated so that it cannot drift from the code: each setting's type, default, bound,
who may set it and what a change does are read from `SETTINGS`, and tests/settings/test_settings_doc.py
fails when the committed page differs. `python -m memlsp.settings.doc > docs/settings.md` writes it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from memlsp.settings.files import SETTINGS_FILE, USER_CONFIG_FILE
from memlsp.settings.schema import (
    AtLeast,
    Between,
    Bound,
    Effect,
    MoreThan,
    OneOf,
    SetBy,
    Setting,
)
from memlsp.settings.table import PROBLEM_LEVELS, RETIRED, SETTINGS

REGENERATE = "python -m memlsp.settings.doc > docs/settings.md"

_TYPES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "list of strings",
}

_INTRO = f"""\
# Settings

<!-- Generated from memlsp/settings/table.py by `{REGENERATE}`; do not edit by hand. -->

Every setting memlsp reads, with its default, its bound, who may set it and what a change does.
Each is declared once, in `memlsp/settings/table.py`; this page is written from those declarations, and
a test fails when the two differ.

## Where values come from

The names are the same everywhere:

- **the user config file**, `$XDG_CONFIG_HOME/memlsp/{USER_CONFIG_FILE}` (by default
  `~/.config/memlsp/{USER_CONFIG_FILE}`), in TOML (`embedder = "minilm"`), which may set every
  setting;
- **the editor's settings**: `initializationOptions` and `workspace/didChangeConfiguration`
  (optionally under a `memlsp` key); in VS Code, each setting is also a `memlsp.*` setting
  (`tests/settings/test_extension_settings.py` fails if the two lists drift);
- **the command line's flags**: `--embedder`, `--chroma-url` and `--cache-dir` set the settings of
  the same names, for every command and for `memlsp mcp`;
- **the vault's own file**, `{SETTINGS_FILE}` at the vault root, in the same TOML form, which may
  set only the settings a vault may set (the column "vault's file" below).

From lowest to highest: the defaults, the user config file, the vault's `{SETTINGS_FILE}`, then
the editor's settings and the command line's flags. A vault's file cannot override what the editor
or the command line chose. An editor setting left at its default does not count as chosen (VS Code
sends every setting), so it hides neither file. In VS Code's Restricted Mode the workspace's own
`.vscode/settings.json` cannot set the settings only the user may set, nor `embedder` at all, nor
the command that starts the server (`memlsp.server.command`, `memlsp.server.args`,
`memlsp.pythonPath`).

A bad value (a wrong type, or out of its bound) is reported once (`window/logMessage` in an
editor, a line on stderr from the command line) and the default kept; an unknown setting is
reported and ignored.

## What a vault can and cannot change

A vault is often someone else's folder (a cloned repository, a shared notes folder), so its
`{SETTINGS_FILE}` may only tune search, parsing and how problems show, and choose among the
embedders that run offline from the installed packages and read nothing else, so that a vault
choosing among them cannot send or read anything. The settings that decide
where note text goes, what is read outside the vault and where memlsp writes are the user's alone;
a vault's file that sets one gets one message naming them, and they are ignored. Set them in the
editor's memlsp settings, with a command-line flag or in the user config file.

## What a change does

A change sent with `workspace/didChangeConfiguration` applies at once. What it does depends on
the setting:
"""


def _toml(value: Any, given: type) -> str:
    """A value as a user writes it in a settings file."""
    if value is None:
        return '""' if given is str else "none"
    if isinstance(value, tuple):
        value = list(value)
    return json.dumps(value, ensure_ascii=False)


def _bound(bound: Bound | None) -> str:
    match bound:
        case None:
            return ""
        case AtLeast(low):
            return f"≥ {low:g}"
        case MoreThan(low):
            return f"> {low:g}"
        case Between(low, high):
            return f"{low:g} to {high:g}"
        case OneOf(choices):
            return ", ".join(f"`{choice}`" for choice in choices)
    raise AssertionError(bound)


def _vault_may(declared: Setting) -> str:
    if declared.set_by is not SetBy.USER_OR_VAULT:
        return "no"
    if declared.vault_choices is not None:
        return "only " + ", ".join(f"`{choice}`" for choice in declared.vault_choices)
    return "yes"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _table(settings: list[Setting]) -> list[str]:
    lines = [
        "| setting | type | default | bound | vault's file | a change | description |",
        "|---|---|---|---|---|---|---|",
    ]
    for declared in settings:
        cells = (
            f"`{declared.name}`",
            _TYPES[declared.given],
            f"`{_toml(declared.default, declared.given)}`",
            _bound(declared.bound),
            _vault_may(declared),
            declared.effect.value,
            declared.description,
        )
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return lines


def _effects() -> list[str]:
    lines = []
    for effect in Effect:
        named = [
            f"`{name}`"
            for name, s in SETTINGS.items()
            if s.effect is effect and s.set_by is not SetBy.NOBODY
        ]
        if not named:
            continue
        reopens = (
            " A vault whose settings changed so is opened again (a warm start), with the "
            "editor's open notes."
            if effect.reopens
            else ""
        )
        lines.append(f"- **{effect.value}**: {', '.join(named)}.{reopens}")
    return lines


def _levels() -> list[str]:
    """The settings that choose how a kind of problem shows, each one of the problem levels."""
    levels = OneOf(PROBLEM_LEVELS)
    named = [f"`{name}`" for name, s in SETTINGS.items() if s.bound == levels]
    return [
        "## Problem levels",
        "",
        "Each kind of problem with a link, and another note's name written as plain text (an",
        "unlinked mention, [mentions.md](mentions.md)), shows in the problems list at a level of",
        "its own:",
        ", ".join(f"`{level}`" for level in PROBLEM_LEVELS[:-1])
        + f" or `{PROBLEM_LEVELS[-1]}` (not shown).",
        f"The {len(named)} settings of a level: {', '.join(named)}.",
        "",
    ]


def settings_markdown() -> str:
    """The whole page, from the declarations alone."""
    given = [s for s in SETTINGS.values() if s.set_by is not SetBy.NOBODY]
    fixed = [s for s in SETTINGS.values() if s.set_by is SetBy.NOBODY]
    user_only = [f"`{s.name}`" for s in given if s.set_by is SetBy.USER]
    limited = [
        f"`{s.name}` other than {', '.join(f'`{c}`' for c in s.vault_choices)}"
        for s in given
        if s.set_by is SetBy.USER_OR_VAULT and s.vault_choices is not None
    ]
    parts = [
        _INTRO,
        *_effects(),
        "",
        "## Every setting",
        "",
        "*vault's file*: whether a vault's `.memlsp.toml` may set it (a setting it may not set is "
        "ignored there, with one message). Only the user may set "
        + ", ".join(user_only + limited)
        + ".",
        "",
        *_table(given),
        "",
        *_levels(),
        "## Fixed by memlsp",
        "",
        "Declared beside the settings, since the index is built from them, but not a setting "
        "anyone gives:",
        "",
        *_table(fixed),
    ]
    if RETIRED:
        parts += ["", "## Settings no longer used", ""]
        parts += [
            f"- `{name}`: {why}. Setting it is reported and ignored."
            for name, why in RETIRED.items()
        ]
    return "\n".join(parts) + "\n"


def main() -> None:
    sys.stdout.write(settings_markdown())


if __name__ == "__main__":
    main()
