"""What the server logs as a problem: a late cancel, which every editor causes, is not one."""

from __future__ import annotations

import logging

import pytest

from memlsp.lsp.main import _late_cancel


def test_a_cancel_after_the_answer_is_information_and_other_warnings_stay(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("pygls.protocol.json_rpc")
    logger.addFilter(_late_cancel)
    try:
        with caplog.at_level(logging.WARNING):
            logger.warning('Cancel notification for unknown message id "%s"', 7)
            logger.warning("something else")
        assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
            ("WARNING", "something else")
        ]
        caplog.clear()
        with caplog.at_level(logging.INFO):
            logger.warning('Cancel notification for unknown message id "%s"', 8)
        assert [r.levelname for r in caplog.records] == ["INFO"]
    finally:
        logger.removeFilter(_late_cancel)
