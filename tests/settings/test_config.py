"""Settings from clients, the user config file and `.memlsp.toml`: bad values give one message and
keep the default; a vault's file sets only what a vault may; the cache is never in the vault."""

from __future__ import annotations

import os
import tempfile
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from memlsp.settings.files import (
    cache_dir_for,
    chosen_part,
    load_user_settings,
    load_vault_settings,
    private_temp_dir,
    user_config_file,
    user_settings,
)
from memlsp.settings.schema import AtLeast, Between, Effect, OneOf, SetBy, Setting
from memlsp.settings.table import (
    DEFAULTS,
    EMBEDDERS,
    SETTINGS,
    USER_ONLY,
    USER_SETTINGS,
    VAULT_EMBEDDERS,
    Settings,
    answer_key,
    index_fingerprint,
    needs_reopen,
    settings_from,
)


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


def test_a_vault_file_chooses_reciprocal_rank_fusion(tmp_path: Path) -> None:
    (tmp_path / ".memlsp.toml").write_text(
        'fusion = "rrf"\nrrf_k = 20\nrrf_keyword_weight = 2\nrrf_vector_weight = 0.5\n'
    )
    settings, problems = load_vault_settings(tmp_path, Settings())
    assert problems == []
    assert (settings.fusion, settings.rrf_k) == ("rrf", 20)
    assert (settings.rrf_keyword_weight, settings.rrf_vector_weight) == (2.0, 0.5)
    assert isinstance(settings.rrf_keyword_weight, float)


def test_bad_fusion_settings_keep_their_defaults() -> None:
    settings, problems = settings_from(
        {"fusion": "borda", "rrf_k": 0, "rrf_keyword_weight": -1, "rrf_vector_weight": "high"}
    )
    assert settings == DEFAULTS and settings.fusion == "evidence" and settings.rrf_k == 60
    assert problems == [
        "setting 'fusion' must be one of evidence, rrf, not 'borda'; default kept",
        "setting 'rrf_k' must be at least 1, not 0; default kept",
        "setting 'rrf_keyword_weight' must be at least 0, not -1.0; default kept",
        "setting 'rrf_vector_weight' must be float, not 'high'; default kept",
    ]


# -- who may set what ----------------------------------------------------------------------------


@pytest.fixture
def no_user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user config folder: the user config file is `<it>/memlsp/config.toml`."""
    folder = tmp_path / "user-config"
    folder.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    return folder


def _user_file(folder: Path, text: str) -> None:
    (folder / "memlsp").mkdir(parents=True, exist_ok=True)
    (folder / "memlsp" / "config.toml").write_text(text)


def _vault_file(vault: Path, text: str) -> Path:
    vault.mkdir(exist_ok=True)
    (vault / ".memlsp.toml").write_text(text)
    return vault


HOSTILE = (
    'embedder = "endpoint"\nembedder_url = "http://evil.example/v1"\nembedder_model = "x"\n'
    'embedder_api_key_env = "GITHUB_TOKEN"\nchroma_url = "http://evil.example:8000"\n'
    'cache_dir = "shipped"\nembedder_model_dir = "/elsewhere"\nexpand_limit = 3\n'
)


def test_a_vault_file_cannot_set_user_only_settings(tmp_path: Path, no_user_file: Path) -> None:
    vault = _vault_file(tmp_path / "vault", HOSTILE)
    settings, problems = load_vault_settings(vault, Settings())
    assert settings == Settings(expand_limit=3)  # the search setting applies, nothing else
    [message] = problems
    assert message.startswith(f"{vault / '.memlsp.toml'}: embedder = 'endpoint', embedder_url")
    for name in sorted(USER_ONLY):
        assert name in message
    assert "ignored" in message and "expand_limit" not in message
    assert str(no_user_file / "memlsp" / "config.toml") in message
    assert "editor" in message and "--embedder" in message


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_a_vault_may_choose_only_an_offline_embedder(tmp_path: Path, embedder: str) -> None:
    vault = _vault_file(tmp_path / "vault", f'embedder = "{embedder}"\n')
    settings, problems = load_vault_settings(vault, Settings(embedder="minilm"))
    if embedder in VAULT_EMBEDDERS:
        assert settings.embedder == embedder and problems == []
    else:
        assert settings.embedder == "minilm"
        assert len(problems) == 1 and f"embedder = '{embedder}' ignored" in problems[0]


def test_what_the_editor_chose_wins_over_the_vault_file(tmp_path: Path, no_user_file: Path) -> None:
    editor, _ = settings_from({"embedder": "none", "expand_limit": 7})
    settings, problems = user_settings(editor)
    assert problems == [] and settings.chosen == {"embedder", "expand_limit"}
    for embedder in ("endpoint", "onnx", "bilingual"):
        vault = _vault_file(tmp_path / "vault", f'embedder = "{embedder}"\nexpand_limit = 3\n')
        vault_settings, _ = load_vault_settings(vault, settings)
        assert (vault_settings.embedder, vault_settings.expand_limit) == ("none", 7)


def test_precedence_defaults_user_file_vault_file_editor(
    tmp_path: Path, no_user_file: Path
) -> None:
    _user_file(
        no_user_file,
        'expand_limit = 2\nsymbol_limit = 3\nvector_weight = 0.4\nchroma_url = "http://mine:8000"\n',
    )
    vault = _vault_file(
        tmp_path / "vault", 'expand_limit = 4\nsymbol_limit = 5\nchroma_url = "http://theirs"\n'
    )
    editor, _ = settings_from({"symbol_limit": 6})
    settings, _ = load_vault_settings(vault, user_settings(editor)[0])
    assert settings.vector_weight == 0.4  # the user file over the defaults
    assert settings.expand_limit == 4  # the vault file over the user file
    assert settings.symbol_limit == 6  # the editor over the vault file
    assert settings.chroma_url == "http://mine:8000"  # a user-only setting: never the vault's
    assert settings.max_candidates == Settings().max_candidates


def test_editor_defaults_do_not_hide_the_user_file_or_the_vault_file(
    tmp_path: Path, no_user_file: Path
) -> None:
    """VS Code sends every setting, at its default when the user set nothing."""
    _user_file(no_user_file, 'embedder = "none"\n')
    every = {name: getattr(Settings(), name) for name in USER_SETTINGS if name != "cache_dir"}
    every["exclude"] = []
    editor, problems = settings_from(every)
    assert problems == []
    settings, _ = user_settings(editor)
    assert settings.embedder == "none" and settings.chosen == frozenset()
    vault = _vault_file(tmp_path / "vault", 'exclude = ["Archive"]\n')
    assert load_vault_settings(vault, settings)[0].exclude == ("Archive",)


def test_the_command_line_chooses_what_it_was_given(tmp_path: Path, no_user_file: Path) -> None:
    _user_file(no_user_file, 'embedder = "none"\n')
    flags, _ = settings_from({"embedder": "bilingual"})  # the default, but asked for
    settings, _ = user_settings(flags, keys=["embedder"])
    vault = _vault_file(tmp_path / "vault", 'embedder = "minilm"\n')
    assert load_vault_settings(vault, settings)[0].embedder == "bilingual"


def test_chosen_part_keeps_only_what_the_editor_chose(no_user_file: Path) -> None:
    _user_file(no_user_file, "vector_weight = 0.4\n")
    settings, _ = user_settings(settings_from({"symbol_limit": 6})[0])
    assert chosen_part(settings) == Settings(symbol_limit=6)


def test_the_user_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert user_config_file() == tmp_path / ".config" / "memlsp" / "config.toml"
    _user_file(
        tmp_path / ".config",
        'embedder = "endpoint"\nembedder_url = "http://localhost:11434/v1"\n'
        'embedder_api_key_env = "MY_KEY"\ncache_dir = "~/indexes"\nwatch = "yes"\n',
    )
    settings, problems = load_user_settings()
    assert (settings.embedder, settings.embedder_url) == ("endpoint", "http://localhost:11434/v1")
    assert settings.embedder_api_key_env == "MY_KEY"
    assert settings.cache_dir == tmp_path / "indexes"
    [problem] = problems
    assert problem.startswith(str(user_config_file())) and "'watch'" in problem
    (tmp_path / ".config" / "memlsp" / "config.toml").write_text("embedder = [\n")
    settings, problems = load_user_settings(Settings(expand_limit=4))
    assert settings == Settings(expand_limit=4) and "its settings are ignored" in problems[0]


def test_an_empty_cache_dir_is_the_per_user_cache() -> None:
    assert settings_from({"cache_dir": ""})[0].cache_dir is None


# -- the cache folder is never in the vault ------------------------------------------------------


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return tmp_path / "xdg" / "memlsp"


def _place(vault: Path, cache_dir: str | Path | None) -> tuple[Path, list[str]]:
    told: list[str] = []
    settings = Settings(cache_dir=None if cache_dir is None else Path(cache_dir))
    return cache_dir_for(vault, settings, tell=told.append), told


def test_a_cache_folder_outside_the_vault_is_used_as_given(
    tmp_path: Path, cache_root: Path
) -> None:
    vault = _vault_file(tmp_path / "vault", "")
    folder, told = _place(vault, tmp_path / "mine")
    assert folder.parent == tmp_path / "mine" and folder.name.startswith("vault-") and told == []
    folder, told = _place(vault, None)
    assert folder.parent == cache_root and told == []


@pytest.mark.parametrize("how", ["relative, run in the vault", "absolute", "a symlink into it"])
def test_a_cache_folder_inside_the_vault_gives_way_to_the_per_user_cache(
    tmp_path: Path, cache_root: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    vault = _vault_file(tmp_path / "vault", "")
    given: str | Path = vault / "inside"
    if how.startswith("relative"):
        monkeypatch.chdir(vault)
        given = ".cache"
    elif how.startswith("a symlink"):
        (vault / "target").mkdir()
        given = tmp_path / "looks-outside"
        given.symlink_to(vault / "target")
    folder, told = _place(vault, given)
    assert folder.parent == cache_root
    [message] = told
    assert "inside the vault" in message and str(cache_root) in message


def test_a_vault_that_holds_the_per_user_cache_gets_a_private_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _vault_file(tmp_path / "home", "")  # a vault that is the home folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    folder, told = _place(home, home / "elsewhere-inside")
    private = folder.parent
    assert private.parent == tmp_path / "tmp" and not private.is_relative_to(home)
    assert private.stat().st_mode & 0o777 == 0o700 and private.stat().st_uid == os.geteuid()
    assert len(told) == 1 and str(private) in told[0]
    assert _place(home, None)[0] == folder  # the same folder next time: a warm start


def test_a_temp_folder_someone_else_holds_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    taken = tmp_path / "tmp" / f"memlsp-{os.geteuid()}"
    taken.mkdir(mode=0o777)
    taken.chmod(0o777)  # open to everyone: anyone may have planted files there
    chosen = private_temp_dir()
    assert chosen != taken and chosen.parent == tmp_path / "tmp"
    assert chosen.stat().st_mode & 0o777 == 0o700
    if os.geteuid() == 0:  # only root can hand a folder to another user
        taken.chmod(0o700)
        os.chown(taken, 65534, 65534)
        assert private_temp_dir() not in (taken, chosen)


def test_a_vault_whose_own_path_is_not_utf8_gets_a_cache(tmp_path: Path) -> None:
    vault = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9"))
    vault.mkdir()
    first = cache_dir_for(vault, Settings(cache_dir=tmp_path / "cache"))
    assert first == cache_dir_for(vault, Settings(cache_dir=tmp_path / "cache"))
    assert first.parent == (tmp_path / "cache").resolve()


def test_a_retired_setting_is_named_as_such_and_ignored() -> None:
    settings, problems = settings_from({"candidate_multiplier": 5})
    assert settings == Settings()
    assert problems == [
        "setting 'candidate_multiplier' is no longer used (each side ranks max_candidates "
        "candidates, so the first results do not depend on how many are asked for); ignored"
    ]


# -- the declarations ----------------------------------------------------------------------------


def test_every_settings_field_but_chosen_and_sources_is_declared_with_its_default() -> None:
    assert [f.name for f in fields(Settings)] == [*SETTINGS, "chosen", "sources"]
    for name, declared in SETTINGS.items():
        assert declared.name == name and getattr(DEFAULTS, name) == declared.default
        assert declared.description and "\n" not in declared.description


@pytest.mark.parametrize("name", [n for n, s in SETTINGS.items() if s.set_by is not SetBy.NOBODY])
def test_a_default_given_as_a_user_gives_it_is_valid(name: str) -> None:
    default = SETTINGS[name].default
    given = "" if default is None else list(default) if isinstance(default, tuple) else default
    settings, problems = settings_from({name: given})
    assert problems == [] and settings == DEFAULTS


def test_declarations_are_coherent() -> None:
    for name, declared in SETTINGS.items():
        if declared.given is int:
            assert isinstance(declared.bound, AtLeast | Between), (
                f"{name}: an int without a low bound"
            )
        if declared.vault_choices is not None:
            assert isinstance(declared.bound, OneOf) and declared.set_by is SetBy.USER_OR_VAULT
            assert set(declared.vault_choices) < set(declared.bound.choices), name


# What each effect does: reopens the vault, is part of the index fingerprint, changes a command's
# answer. REEMBEDS and REOPENS differ only in what reopens (the vector side, or all of the vault),
# and today's server reopens all of it for both.
BEHAVIOURS = {
    Effect.NEXT_REQUEST: (False, False, False),
    Effect.NEXT_ANSWER: (False, False, True),
    Effect.RERANKS: (False, False, True),
    Effect.REEMBEDS: (True, False, True),
    Effect.REINDEXES: (True, True, True),
    Effect.REOPENS: (True, False, True),
    Effect.REOPENS_SAME_ANSWERS: (True, False, False),
}


@pytest.mark.parametrize("effect", list(Effect))
def test_each_effect_is_one_behaviour(effect: Effect) -> None:
    assert (effect.reopens, effect.reindexes, effect.changes_answers) == BEHAVIOURS[effect]


def _another(declared: Setting) -> Any:
    """A valid value of the setting other than its default."""
    default = declared.default
    if isinstance(declared.bound, OneOf):
        return next(choice for choice in declared.bound.choices if choice != default)
    if isinstance(default, bool):
        return not default
    if isinstance(default, int | float):
        if isinstance(default, int):
            return default + 1
        return default / 2 or 0.5  # a default of 0 (a weight that is off) halves to itself
    if isinstance(default, str):
        return "elsewhere"
    if isinstance(default, tuple):
        return (*default, ".other")
    return Path("elsewhere")


def _changed(name: str) -> Settings:
    return replace(DEFAULTS, **{name: _another(SETTINGS[name])})


# The settings there were when hand lists in lsp/server.py, daemon.py and engine.py decided what a
# change does: the derived answers must be theirs. A setting added since is held to its effect only.
HAND_LISTED = [
    "max_chunk_tokens",
    "max_file_bytes",
    "note_suffixes",
    "record_suffixes",
    "exclude",
    "max_candidates",
    "expand_limit",
    "symbol_limit",
    "watch",
    "cache_dir",
    "embedder",
    "embedder_model_dir",
    "embedder_url",
    "embedder_model",
    "embedder_api_key_env",
    "chroma_url",
    "vector_weight",
    "min_strength",
    "vector_retry_seconds",
    "unresolved_links",
    "missing_anchors",
    "ambiguous_links",
    "links_outside",
    "new_note_folder",
    "code_lens",
]
# The settings lsp/server.py's restart key blanked out, which requests read each time.
READ_PER_REQUEST = {
    "max_candidates",  # read by each search from its snapshot's settings (search/hybrid.py)
    "expand_limit",
    "symbol_limit",
    "vector_weight",
    "min_strength",
    "unresolved_links",
    "missing_anchors",
    "ambiguous_links",
    "links_outside",
    "new_note_folder",
    "code_lens",
}
# What the daemon left out of the comparison (the cache folder is compared as the folder it resolves
# to), and what never changes a search or links answer.
NOT_IN_AN_ANSWER = {
    "watch",
    "symbol_limit",
    "vector_retry_seconds",
    "cache_dir",
    "unresolved_links",
    "missing_anchors",
    "ambiguous_links",
    "links_outside",
    "new_note_folder",
    "code_lens",
}


def _fingerprint_of_existing_indexes(s: Settings, parser: int, keyword: int) -> str:
    """engine.py's fingerprint before the declarations, which existing indexes carry."""
    return (
        f"parser={parser};keyword={keyword};cap={s.max_chunk_tokens};"
        f"max={s.max_file_bytes};suffixes={s.note_suffixes + s.record_suffixes}"
    )


@pytest.mark.parametrize("name", HAND_LISTED)
def test_a_change_does_what_the_hand_lists_said(name: str) -> None:
    changed = _changed(name)
    assert needs_reopen(DEFAULTS, changed) is (name not in READ_PER_REQUEST)
    assert index_fingerprint(changed, 7, 9) == _fingerprint_of_existing_indexes(changed, 7, 9)
    changes_answer = answer_key(changed) != answer_key(DEFAULTS)
    assert changes_answer is (name not in NOT_IN_AN_ANSWER)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_a_change_does_what_its_effect_says(name: str) -> None:
    changed, effect = _changed(name), SETTINGS[name].effect
    assert needs_reopen(DEFAULTS, changed) is effect.reopens
    assert not needs_reopen(changed, replace(changed))
    reindexes = index_fingerprint(changed, 7, 9) != index_fingerprint(DEFAULTS, 7, 9)
    assert reindexes is effect.reindexes
    assert (answer_key(changed) != answer_key(DEFAULTS)) is effect.changes_answers


def test_the_default_index_fingerprint_is_the_one_existing_indexes_have() -> None:
    assert index_fingerprint(DEFAULTS, 4, 2) == (
        "parser=4;keyword=2;cap=512;max=10000000;suffixes=('.md', '.markdown', '.jsonl')"
    )


def test_which_settings_the_editor_chose_is_no_reason_to_reopen() -> None:
    assert not needs_reopen(DEFAULTS, replace(DEFAULTS, chosen=frozenset({"symbol_limit"})))


def test_which_settings_the_editor_chose_is_not_compared() -> None:
    assert answer_key(replace(DEFAULTS, chosen=frozenset({"embedder"}))) == answer_key(DEFAULTS)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"max_file_bytes": 0}, "setting 'max_file_bytes' must be at least 1, not 0"),
        (
            {"vector_retry_seconds": 0},
            "setting 'vector_retry_seconds' must be more than 0, not 0.0",
        ),
        (
            {"model_idle_seconds": -1},
            "setting 'model_idle_seconds' must be at least 0, not -1.0",
        ),
        ({"vector_weight": 2}, "setting 'vector_weight' must be between 0 and 1, not 2.0"),
        ({"min_strength": -0.5}, "setting 'min_strength' must be between 0 and 1, not -0.5"),
        ({"vector_weight": True}, "setting 'vector_weight' must be float, not True"),
        ({"symbol_limit": True}, "setting 'symbol_limit' must be int, not True"),
        ({"exclude": "Archive"}, "setting 'exclude' must be list, not 'Archive'"),
        ({"cache_dir": 3}, "setting 'cache_dir' must be str, not 3"),
        (
            {"embedder": "gpt"},
            "setting 'embedder' must be one of bilingual, minilm, use, onnx, endpoint, none, "
            "not 'gpt'",
        ),
        (
            {"links_outside": "loud"},
            "setting 'links_outside' must be one of error, warning, information, hint, off, "
            "not 'loud'",
        ),
    ],
)
def test_each_bound_s_message(options: dict[str, Any], problem: str) -> None:
    assert settings_from(options) == (DEFAULTS, [f"{problem}; default kept"])


def test_memlsp_s_own_fields_are_no_one_s_to_set() -> None:
    settings, problems = settings_from({"note_suffixes": [".txt"]})
    assert settings == DEFAULTS and problems == ["unknown setting 'note_suffixes' ignored"]


# -- where each value came from ------------------------------------------------------------------


def test_each_step_records_the_source_of_what_it_set(no_user_file: Path, tmp_path: Path) -> None:
    user_config_file().parent.mkdir(parents=True, exist_ok=True)
    user_config_file().write_text("mention_min_length = 4\nmax_file_bytes = 5000\n")
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / ".memlsp.toml").write_text("max_file_bytes = 2000\nexclude = ['build']\n")
    flags, _ = settings_from({"embedder": "none", "exclude": ["out"]}, source="flag")
    settings, _ = user_settings(flags, keys=["embedder", "exclude"])
    settings, problems = load_vault_settings(vault, settings)
    assert problems == []
    sources = {name: settings.source_of(name) for name in SETTINGS}
    assert {name: source for name, source in sources.items() if source != "default"} == {
        "embedder": "flag",
        "exclude": "flag",  # chosen on the command line: the vault's file keeps off it
        "mention_min_length": "user config",
        "max_file_bytes": "vault",
    }
    assert (settings.exclude, settings.max_file_bytes) == (("out",), 2000)


def test_the_editors_settings_are_its_own_over_the_user_config(no_user_file: Path) -> None:
    from memlsp.lsp.client_settings import ClientSettings

    user_config_file().parent.mkdir(parents=True, exist_ok=True)
    user_config_file().write_text("mention_min_length = 4\n")
    client = ClientSettings()
    client.initialize({"memlsp": {"code_lens": False}})
    client.change({"memlsp": {"symbol_limit": 7}})
    current = client.current
    assert current.source_of("code_lens") == "editor"  # from `initialize`, kept by the change
    assert current.source_of("symbol_limit") == "editor"
    assert current.source_of("mention_min_length") == "user config"
    assert current.source_of("max_chunk_tokens") == "default"


def test_sources_change_no_comparison_nor_key() -> None:
    given, _ = settings_from({"symbol_limit": 7}, source="flag")
    same, _ = settings_from({"symbol_limit": 7}, source="vault")
    assert given == same and hash(given) == hash(same)
    assert not needs_reopen(given, same)
    assert answer_key(given) == answer_key(same)
    assert index_fingerprint(given, 1, 1) == index_fingerprint(same, 1, 1)
    assert (given.source_of("symbol_limit"), same.source_of("symbol_limit")) == ("flag", "vault")
