"""`memlsp links`, `related`, `mentions` and `graph`: a note's links, its closest notes by
meaning, where its name is written as plain text, and the graph around it, from one snapshot;
each as the domain value its JSON and its text are made from."""

from __future__ import annotations

import argparse

from memlsp.commands.arguments import UsageError
from memlsp.commands.calls import GraphCall, LinksCall, MentionsCall, RelatedCall
from memlsp.commands.graph_view_text import graph_dot, graph_mermaid, graph_text
from memlsp.engine.snapshot import NoteLinks, Snapshot
from memlsp.model import ResolvedLink, printable, quoted
from memlsp.queries.graph_walk import Neighbourhood
from memlsp.queries.mentions import MentionsAnswer
from memlsp.search.related import RelatedAnswer


class NoNote(UsageError):
    """No note of the snapshot has the name asked for; who asked adds which vault it is."""

    def __init__(self, note: str) -> None:
        super().__init__(f"no note {quoted(note)}")


def note_path(snapshot: Snapshot, note: str) -> str:
    path = snapshot.find_note(note)
    if path is None:
        raise NoNote(note)
    return path


def links(snapshot: Snapshot, call: LinksCall) -> NoteLinks:
    return snapshot.links(note_path(snapshot, call.note))


def links_text(links: NoteLinks, _: argparse.Namespace) -> str:
    groups = {
        "outlinks": links.outlinks,
        "inlinks": links.inlinks,
        "unresolved": links.unresolved,
        "ambiguous": links.ambiguous,
    }
    lines = [printable(links.path)]
    for label, items in groups.items():
        lines.append(f"{label} ({len(items)}):")
        for item in items:
            lines.append("  " + printable(_link_text(item, inbound=label == "inlinks")))
    return "\n".join(lines)


def _link_text(item: ResolvedLink, *, inbound: bool) -> str:
    link = item.link
    anchor = f"#{link.anchor}" if link.anchor else ""
    where = f"{item.source}:{link.span.line + 1}"
    if inbound:
        return f"{where} -> {link.target or '(this note)'}{anchor}"
    status = item.resolution.status.value
    targets = ", ".join(item.resolution.targets) or "-"
    text = (
        f"line {link.span.line + 1}: {link.target or '(this note)'}{anchor} -> {targets} [{status}]"
    )
    if item.resolution.candidates:
        text += " candidates: " + ", ".join(item.resolution.candidates)
    return text


def related(snapshot: Snapshot, call: RelatedCall) -> RelatedAnswer:
    return snapshot.related(note_path(snapshot, call.note), call.limit)


def related_text(answer: RelatedAnswer, _: argparse.Namespace) -> str:
    """One line per related note: `0.82  path  [linked]  reason`."""
    lines = [f"note: {answer.warning}"] if answer.warning else []
    for note in answer.results:
        linked = "  [linked]" if note.linked else ""
        lines.append(f"{note.score:.2f}  {note.path}{linked}  {note.reason}")
    if not answer.results and not answer.warning:
        lines.append(f"no notes related to {answer.note}")
    return "\n".join(printable(line) for line in lines)


def mentions(snapshot: Snapshot, call: MentionsCall) -> MentionsAnswer:
    path = note_path(snapshot, call.note)
    return snapshot.mentions(path)


def mentions_text(answer: MentionsAnswer, _: argparse.Namespace) -> str:
    """One line per unlinked mention: `path:line:column  text  -> target(s)`, then a count."""
    lines = [printable(answer.note)]
    if answer.warning:
        lines.append(f"({printable(answer.warning)})")
    for mention in answer.mentions:
        where = f"{mention.path}:{mention.span.line + 1}:{mention.span.start + 1}"
        targets = ", ".join(mention.targets)
        lines.append(printable(f"{where}  {mention.text}  -> {targets}"))
    count = len(answer.mentions)
    total = f"{count} unlinked mention{'' if count == 1 else 's'}"
    if answer.left_out:
        total += f", {answer.left_out} more not listed"
    return "\n".join([*lines, total])


def graph(snapshot: Snapshot, call: GraphCall) -> Neighbourhood:
    """The link graph around a note and its closest notes by meaning."""
    path = note_path(snapshot, call.note)
    return snapshot.graph_view(call.ask(path))


def graph_drawn(answer: Neighbourhood, args: argparse.Namespace) -> str:
    """As text (one line per edge, then a summary), Mermaid or DOT (`--format`)."""
    if args.format == "mermaid":
        return graph_mermaid(answer)
    if args.format == "dot":
        return graph_dot(answer)
    return graph_text(answer)
