"""docs/settings.md is written from the settings' declarations (memlsp/settings/doc.py): it fails
here when the page and `SETTINGS` drift apart, and says the command that writes the page again."""

from __future__ import annotations

from memlsp.settings.doc import REGENERATE, settings_markdown
from memlsp.settings.schema import SetBy
from memlsp.settings.table import SETTINGS
from tests.helpers.paths import REPO

PAGE = REPO / "docs" / "settings.md"


def test_the_page_is_the_one_the_declarations_give() -> None:
    assert PAGE.read_text(encoding="utf-8") == settings_markdown(), (
        f"docs/settings.md differs from memlsp/settings/table.py: run `{REGENERATE}`"
    )


def test_every_setting_a_user_gives_has_a_row() -> None:
    page = settings_markdown()
    for name, declared in SETTINGS.items():
        if declared.set_by is not SetBy.NOBODY:
            assert f"| `{name}` |" in page, name


def test_the_page_is_pure() -> None:
    assert settings_markdown() == settings_markdown()
