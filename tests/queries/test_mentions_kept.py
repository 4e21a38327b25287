"""A note's unlinked mentions elsewhere, with what earlier revisions found kept (queries/mentions.py
`FoundBefore`): a revision after an edit reads only the notes whose text changed, and its answer is
the one found by reading every note again, whatever names came or went meanwhile."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from memlsp.queries.mentions import Candidates, Earlier, FoundBefore, MentionsAnswer, mentions_of
from memlsp.vault.view import VaultView
from tests.helpers.memory_vault import memory_view


def holding(files: dict[str, str]) -> Candidates:
    """The notes whose text holds one of the names, as the keyword index says it (a superset of
    the notes that mention one)."""

    def ask(names: Sequence[str]) -> list[str]:
        wanted = [name.casefold() for name in names]
        return [path for path, text in files.items() if any(w in text.casefold() for w in wanted)]

    return ask


def answer(
    files: dict[str, str],
    note: str,
    found: FoundBefore | None = None,
    reads: list[str] | None = None,
) -> MentionsAnswer:
    """`note`'s mentions in the vault `files`, with `found` kept from the answers before (the
    text itself is a text's version); the notes read are added to `reads`."""

    def read(path: str) -> str | None:
        if reads is not None:
            reads.append(path)
        return files.get(path)

    view: VaultView = replace(memory_view(files), read=read)
    earlier = Earlier(found, files.get) if found is not None else None
    return mentions_of(view, note, holding(files), 3, earlier=earlier)


LINKING = {f"n{i:02}.md": f"# N{i}\n\nSee [[bm25]] for ranking.\n" for i in range(20)}
VAULT = {
    "bm25.md": "# BM25\n",
    **LINKING,
    "m1.md": "BM25 ranks documents.\n",
    "m2.md": "We tuned BM25 twice: BM25 again.\n",
}


def test_after_an_edit_only_the_edited_note_is_read_again() -> None:
    found, reads = FoundBefore(), list[str]()
    first = answer(VAULT, "bm25.md", found, reads)
    assert [(m.path, m.text) for m in first.mentions] == [
        ("m1.md", "BM25"),
        ("m2.md", "BM25"),
        ("m2.md", "BM25"),
    ]
    assert sorted(reads) == sorted(set(VAULT) - {"bm25.md"})
    edited = {**VAULT, "n05.md": "# N5\n\nBM25 written out, not linked.\n"}
    reads.clear()
    again = answer(edited, "bm25.md", found, reads)
    assert reads == ["n05.md"]
    assert again == answer(edited, "bm25.md") and len(again.mentions) == 4


def test_a_name_that_comes_or_goes_reads_again_the_notes_that_hold_it() -> None:
    found, reads = FoundBefore(), list[str]()
    answer(VAULT, "bm25.md", found)
    # A longer name written in m1: there the longest name wins, BM25 is no longer mentioned.
    longer = {**VAULT, "BM25 ranks documents.md": "# BM25 ranks documents\n"}
    now = answer(longer, "bm25.md", found, reads)
    assert reads == ["BM25 ranks documents.md", "m1.md"]  # the new note, and the note holding it
    assert now == answer(longer, "bm25.md") and {m.path for m in now.mentions} == {"m2.md"}
    reads.clear()
    assert answer(VAULT, "bm25.md", found, reads) == answer(VAULT, "bm25.md")  # and it goes
    assert reads == ["m1.md"]


def test_when_the_notes_own_names_change_every_note_is_read_again() -> None:
    found, reads = FoundBefore(), list[str]()
    answer(VAULT, "bm25.md", found)
    aliased = {**VAULT, "bm25.md": "---\naliases: [Okapi]\n---\n# BM25\n"}
    assert answer(aliased, "bm25.md", found, reads) == answer(aliased, "bm25.md")
    assert len(reads) == len(VAULT) - 1


WORDS = ["alpha", "beta gamma", "delta", "plain", "words", "here"]
NAMES = ["alpha", "beta gamma", "beta", "gamma", "delta"]


@st.composite
def vaults(draw: st.DrawFn) -> dict[str, str]:
    """A few notes named from NAMES (aliases too), whose texts write names plainly or in links."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    files = {}
    for name in names:
        alias = draw(st.one_of(st.none(), st.sampled_from(NAMES)))
        front = f"---\naliases: [{alias}]\n---\n" if alias else ""
        files[f"{name}.md"] = front + f"# {name}\n"
    for number in range(draw(st.integers(1, 4))):
        words = draw(st.lists(st.sampled_from(WORDS + [f"[[{n}]]" for n in NAMES]), max_size=8))
        files[f"text{number}.md"] = " ".join(words) + "\n"
    return files


@settings(max_examples=60, deadline=None)
@given(st.lists(vaults(), min_size=2, max_size=5))
def test_the_answer_is_always_the_one_found_by_reading_every_note(
    revisions: list[dict[str, str]],
) -> None:
    found = FoundBefore()
    for files in revisions:
        for note in sorted(p for p in files if not p.startswith("text")):
            assert answer(files, note, found) == answer(files, note), (note, files)
