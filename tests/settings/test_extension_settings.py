"""The VS Code extension's settings (vscode-extension/package.json) match the server's declarations
(memlsp/settings/table.py): name, type, default, bounds and a description for each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlsp.settings.schema import SetBy
from memlsp.settings.table import SETTINGS
from tests.helpers.paths import REPO

PACKAGE = REPO / "vscode-extension" / "package.json"
JSON_TYPES = {int: "integer", float: "number", bool: "boolean", list: "array", str: "string"}
CLIENT_ONLY = {"memlsp.server.command", "memlsp.server.args", "memlsp.pythonPath"}
BOUND_KEYWORDS = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum"}
USER_GIVEN = sorted(
    name for name, declared in SETTINGS.items() if declared.set_by is not SetBy.NOBODY
)


def _properties() -> dict[str, Any]:
    manifest = json.loads(PACKAGE.read_text(encoding="utf-8"))
    properties: dict[str, Any] = manifest["contributes"]["configuration"]["properties"]
    return properties


def _json_default(value: Any) -> Any:
    """A declared default as package.json must give it: None and Paths as strings, tuples as lists."""
    if value is None:
        return ""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


@pytest.mark.parametrize("name", USER_GIVEN)
def test_every_setting_a_user_gives_is_contributed_as_declared(name: str) -> None:
    declared = SETTINGS[name]
    prop = _properties().get(f"memlsp.{name}")
    assert prop is not None, f"memlsp.{name} missing from package.json"
    assert prop["type"] == JSON_TYPES[declared.given]
    if prop["type"] == "array":
        assert prop.get("items") == {"type": "string"}
    default = prop["default"]
    expected = _json_default(declared.default)
    assert default == expected and type(default) is type(expected), (default, expected)
    bounds = declared.bound.json_schema() if declared.bound is not None else {}
    assert {key: prop[key] for key in BOUND_KEYWORDS & set(prop)} == bounds
    assert prop.get("description"), f"memlsp.{name} has no description"


def test_no_other_settings_besides_the_client_only_ones() -> None:
    server_keys = {f"memlsp.{name}" for name in USER_GIVEN}
    assert set(_properties()) - server_keys == CLIENT_ONLY


def test_client_only_settings() -> None:
    props = _properties()
    assert props["memlsp.server.command"]["type"] == "string"
    assert props["memlsp.server.command"]["default"] == ""
    assert props["memlsp.server.args"]["type"] == "array"
    assert props["memlsp.server.args"]["default"] == []
    assert props["memlsp.pythonPath"]["type"] == "string"
    assert props["memlsp.pythonPath"]["default"] == ""


PATH_SETTINGS = ("memlsp.server.command", "memlsp.server.args", "memlsp.pythonPath")


@pytest.mark.parametrize("name", PATH_SETTINGS)
def test_path_settings_can_be_set_in_user_settings_of_a_remote_window(name: str) -> None:
    # A machine or machine-overridable setting is read from the remote machine's settings only:
    # code-server showed "No Settings Found" under User and ignored the User value.
    assert _properties()[name].get("scope") in ("window", "resource")
