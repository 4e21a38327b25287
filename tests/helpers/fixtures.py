"""Fixtures that several test modules share, made by a function because each module sets them
up its own way (a dimension, a scope, a vault): `endpoint = endpoint_fixture(64)` in a module
gives its tests an `endpoint`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Literal

import pytest
from _pytest.fixtures import FixtureFunctionDefinition

from memlsp.engine.engine import Engine
from tests.helpers.engine import indexed_engine
from tests.helpers.fake_embedder import embedding_endpoint


def endpoint_fixture(
    dimension: int, scope: Literal["function", "module"] = "function"
) -> FixtureFunctionDefinition:
    """The fixture `endpoint`: the base URL of an OpenAI-compatible embedding server (a thread)
    with the deterministic test embedder of this dimension behind it."""

    @pytest.fixture(name="endpoint", scope=scope)
    def endpoint() -> Iterator[str]:
        with embedding_endpoint(dimension) as url:
            yield url

    return endpoint


def engine_fixture(folder: str, files: Mapping[str, str]) -> FixtureFunctionDefinition:
    """The fixture `engine`, one for the module: an indexed engine, keyword side only, over a
    vault of `files` (path -> text) in a temporary folder named after `folder`."""

    @pytest.fixture(name="engine", scope="module")
    def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
        opened = indexed_engine(tmp_path_factory.mktemp(folder), files)
        yield opened
        opened.close()

    return engine
