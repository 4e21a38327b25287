"""The VS Code extension's settings (vscode-extension/package.json) match the server's own."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from memlsp.config import USER_SETTINGS, Settings

PACKAGE = Path(__file__).resolve().parent.parent / "vscode-extension" / "package.json"
JSON_TYPES = {int: "integer", float: "number", bool: "boolean", list: "array", str: "string"}
CLIENT_ONLY = {"memlsp.server.command", "memlsp.server.args", "memlsp.pythonPath"}


def _properties() -> dict[str, Any]:
    manifest = json.loads(PACKAGE.read_text(encoding="utf-8"))
    properties: dict[str, Any] = manifest["contributes"]["configuration"]["properties"]
    return properties


def _json_default(value: Any) -> Any:
    """A Settings default as package.json must give it: None and Paths as strings, tuples as lists."""
    if value is None:
        return ""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


@pytest.mark.parametrize("name", sorted(USER_SETTINGS))
def test_every_server_setting_is_contributed_with_its_type_and_default(name: str) -> None:
    prop = _properties().get(f"memlsp.{name}")
    assert prop is not None, f"memlsp.{name} missing from package.json"
    assert prop["type"] == JSON_TYPES[USER_SETTINGS[name]]
    if prop["type"] == "array":
        assert prop.get("items") == {"type": "string"}
    default = prop["default"]
    expected = _json_default(getattr(Settings(), name))
    assert default == expected and type(default) is type(expected), (default, expected)
    assert prop.get("description"), f"memlsp.{name} has no description"


def test_no_other_settings_besides_the_client_only_ones() -> None:
    server_keys = {f"memlsp.{name}" for name in USER_SETTINGS}
    assert set(_properties()) - server_keys == CLIENT_ONLY


def test_client_only_settings() -> None:
    props = _properties()
    assert props["memlsp.server.command"]["type"] == "string"
    assert props["memlsp.server.command"]["default"] == ""
    assert props["memlsp.server.args"]["type"] == "array"
    assert props["memlsp.server.args"]["default"] == []
    assert props["memlsp.pythonPath"]["type"] == "string"
    assert props["memlsp.pythonPath"]["default"] == ""


def test_every_user_setting_is_a_settings_field() -> None:
    # Guards the test itself: a USER_SETTINGS name without a dataclass default would be skipped.
    assert set(USER_SETTINGS) <= {field.name for field in fields(Settings)}


PATH_SETTINGS = ("memlsp.server.command", "memlsp.server.args", "memlsp.pythonPath")


@pytest.mark.parametrize("name", PATH_SETTINGS)
def test_path_settings_can_be_set_in_user_settings_of_a_remote_window(name: str) -> None:
    # A machine or machine-overridable setting is read from the remote machine's settings only:
    # code-server showed "No Settings Found" under User and ignored the User value.
    assert _properties()[name].get("scope") in ("window", "resource")
