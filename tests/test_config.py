"""Settings from clients and `.memlsp.toml`: bad values give one message and keep the default."""

from __future__ import annotations

from pathlib import Path

from memlsp.config import Settings, load_vault_settings, settings_from


def test_valid_settings_apply() -> None:
    settings, problems = settings_from(
        {"symbol_limit": 20, "exclude": ["Templates"], "watch": False}
    )
    assert problems == []
    assert (settings.symbol_limit, settings.exclude, settings.watch) == (20, ("Templates",), False)


def test_bad_values_are_reported_and_ignored() -> None:
    settings, problems = settings_from(
        {"symbol_limit": "many", "max_chunk_tokens": 0, "watch": 1, "colour": "blue"}
    )
    assert settings == Settings()
    assert len(problems) == 4
    assert any("'symbol_limit' must be int" in p for p in problems)
    assert any("unknown setting 'colour'" in p for p in problems)


def test_vault_settings_file(tmp_path: Path) -> None:
    (tmp_path / ".memlsp.toml").write_text('exclude = ["Archive"]\nexpand_limit = 3\n')
    settings, problems = load_vault_settings(tmp_path, Settings())
    assert problems == [] and settings.exclude == ("Archive",) and settings.expand_limit == 3
    (tmp_path / ".memlsp.toml").write_text("exclude = [unclosed\n")
    settings, problems = load_vault_settings(tmp_path, Settings(expand_limit=4))
    assert settings.expand_limit == 4 and len(problems) == 1 and ".memlsp.toml" in problems[0]
