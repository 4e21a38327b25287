"""Problems with a note's links, for the editor's problems list: a link to a note that does not exist
(yet), to a heading or block its note lacks, to a name several notes answer to, or out of the vault.

Each problem covers the whole link. How much each kind matters is the user's to say (`Levels`):
Obsidian users link to notes they mean to write, so a missing note is only information by default.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import IntEnum

from memlsp.model import Link, LinkStatus, ResolvedLink, Span
from memlsp.navigation.places import anchor_line
from memlsp.settings.table import PROBLEM_LEVELS
from memlsp.vault.link_graph import LinkGraph
from memlsp.vault.view import VaultView


class Severity(IntEnum):
    """The LSP's numbers, so that converting is the identity."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4


# The settings' names for them (config.PROBLEM_LEVELS, "off" aside).
SEVERITIES = {name: Severity[name.upper()] for name in PROBLEM_LEVELS if name != "off"}


@dataclass(frozen=True, slots=True)
class Levels:
    """The severity of each kind of problem; None leaves that kind out."""

    unresolved: Severity | None = Severity.INFORMATION
    missing_anchor: Severity | None = Severity.WARNING
    ambiguous: Severity | None = Severity.INFORMATION
    outside: Severity | None = Severity.WARNING

    @classmethod
    def named(cls, unresolved: str, missing_anchor: str, ambiguous: str, outside: str) -> Levels:
        """From the settings' names ("information", "off", ...)."""
        return cls(
            *(SEVERITIES.get(name) for name in (unresolved, missing_anchor, ambiguous, outside))
        )


class Code:
    UNRESOLVED = "unresolved-link"
    MISSING_HEADING = "missing-heading"
    MISSING_BLOCK = "missing-block"
    AMBIGUOUS = "ambiguous-link"
    OUTSIDE = "outside-vault"
    UNLINKED_MENTION = "unlinked-mention"  # navigation/mentions.py


@dataclass(frozen=True, slots=True)
class Problem:
    span: Span  # the whole link
    severity: Severity
    code: str  # one of Code
    message: str
    # The notes an ambiguous link could mean, the one it opens first.
    candidates: tuple[str, ...] = ()


def note_problems(view: VaultView, path: str, levels: Levels) -> list[Problem]:
    """Every problem with the links of the note `path`, in the order of the links."""
    problems = []
    for resolved in view.graph.outlinks(path):
        problem = _problem(view.graph, resolved, levels)
        if problem is not None:
            problems.append(problem)
    return problems


def embeds_a_file(link: Link) -> bool:
    """An embed of something with an extension (an image, a PDF): a file, not a note."""
    return link.embed and "." in link.target.rsplit("/", 1)[-1]


def _problem(graph: LinkGraph, resolved: ResolvedLink, levels: Levels) -> Problem | None:
    link, resolution = resolved.link, resolved.resolution
    status = resolution.status
    written = link.target
    if status is LinkStatus.UNRESOLVED and levels.unresolved is not None:
        what = "file" if embeds_a_file(link) else "note"
        return Problem(
            link.span, levels.unresolved, Code.UNRESOLVED, f"No {what} named “{written}” yet."
        )
    if status is LinkStatus.OUTSIDE and levels.outside is not None:
        return Problem(
            link.span, levels.outside, Code.OUTSIDE, f"“{written}” leads outside the vault."
        )
    if status is LinkStatus.AMBIGUOUS and levels.ambiguous is not None:
        opened = resolution.targets[0]
        others = [c for c in resolution.candidates if c != opened]
        message = (
            f"“{written}” is the name of {len(resolution.candidates)} notes: it opens {opened}; "
            f"also {', '.join(others)}."
        )
        candidates = (opened, *others)
        return Problem(link.span, levels.ambiguous, Code.AMBIGUOUS, message, candidates)
    if status in (LinkStatus.RESOLVED, LinkStatus.AMBIGUOUS) and levels.missing_anchor is not None:
        return _missing_anchor(graph, resolved, levels.missing_anchor)
    return None


def _missing_anchor(graph: LinkGraph, resolved: ResolvedLink, severity: Severity) -> Problem | None:
    link = resolved.link
    if not (link.block or link.headings):
        return None
    target = resolved.resolution.targets[0] if resolved.resolution.targets else None
    note = graph.notes.get(target) if target else None
    if note is None or anchor_line(note, resolved) is not None:
        return None  # found, or the target is a file without headings (an image, a PDF)
    if link.block:
        return Problem(
            link.span,
            severity,
            Code.MISSING_BLOCK,
            f"{note.path} has no block “^{link.block}”.",
        )
    return Problem(
        link.span,
        severity,
        Code.MISSING_HEADING,
        f"{note.path} has no heading “{'#'.join(link.headings)}”.",
    )


@dataclass(frozen=True, slots=True)
class ProblemCounts:
    unresolved: int
    missing_anchors: int
    ambiguous: int
    outside: int


def vault_problems(view: VaultView) -> ProblemCounts:
    """How many links of each kind of problem the whole vault has, whatever the settings show:
    counted once per revision (the view's memo), however often it is asked."""
    found = problem_notes(view)
    counts = {code: count for code, (count, _) in found.items()}
    return ProblemCounts(
        unresolved=counts.get(Code.UNRESOLVED, 0),
        missing_anchors=counts.get(Code.MISSING_HEADING, 0) + counts.get(Code.MISSING_BLOCK, 0),
        ambiguous=counts.get(Code.AMBIGUOUS, 0),
        outside=counts.get(Code.OUTSIDE, 0),
    )


def problem_notes(view: VaultView) -> dict[str, tuple[int, tuple[str, ...]]]:
    """For each problem code (`Code`) the vault has: how many links have it, and the notes they
    are in, sorted. One walk per revision (the view's memo), shared with `vault_problems`."""
    return view.memo(("problem notes",), lambda: _found(view.graph))


def _found(graph: LinkGraph) -> dict[str, tuple[int, tuple[str, ...]]]:
    every = Levels(*(Severity.HINT,) * 4)
    counts: Counter[str] = Counter()
    notes: dict[str, set[str]] = {}
    for path in graph.notes:
        for resolved in graph.outlinks(path):
            problem = _problem(graph, resolved, every)
            if problem is not None:
                counts[problem.code] += 1
                notes.setdefault(problem.code, set()).add(path)
    return {code: (counts[code], tuple(sorted(notes[code]))) for code in sorted(counts)}
