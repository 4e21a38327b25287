"""`memlsp graph` as text, Mermaid or Graphviz DOT: the same nodes and edges as its JSON (the
graph view, queries/graph_view.py). What was left out is said with the command line's flags.

Mermaid and DOT name each node n0, n1, ... in the answer's order and put the title in a label:
a note's name never becomes syntax. Labels are escaped for each language, so a title holding
quotes, brackets, `#`, `<>` or backslashes is drawn as written.
"""

from __future__ import annotations

from memlsp.model import printable
from memlsp.queries.graph_walk import GraphEdge, Neighbourhood, cut_sentence

# The parameters a cut names, as the command line spells them.
FLAGS = {"depth": "--depth", "direction": "--direction", "max_per_node": "--max-per-node"}

# Mermaid reads `#name;` and `#number;` inside a label as a character: every character that
# could end the label or mean something to Mermaid or to the HTML it draws labels with is
# written so. A newline cannot be in a label: it becomes a space.
_MERMAID = {'"': "#quot;", **{c: f"#{ord(c)};" for c in "#&<>[](){}|;`\\"}}
_DOT = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": ""}


def graph_text(answer: Neighbourhood) -> str:
    """One line per link, `source -> target` (`(unresolved)` marks a missing target), then one
    per closest note by meaning, `note ~ other (0.82)`, then what the answer holds and left out,
    and why there are no meaning edges when that was asked."""
    unresolved = {node.id for node in answer.nodes if node.kind == "unresolved"}
    lines = []
    for edge in _links(answer):
        mark = " (unresolved)" if edge.target in unresolved else ""
        lines.append(f"{edge.source} -> {edge.target}{mark}")
    for edge in _meaning(answer):
        lines.append(f"{edge.source} ~ {edge.target} ({edge.similarity:.2f})")
    lines.append(graph_summary(answer))
    if answer.warning:
        lines.append(f"note: {answer.warning}")
    return "\n".join(printable(line) for line in lines)


def graph_summary(answer: Neighbourhood) -> str:
    """`5 nodes and 6 edges within 2 links of a.md (both ways)`, how many notes meaning added,
    and what was left out."""
    ways = {"both": "both ways", "out": "outlinks", "in": "inlinks"}[answer.direction]
    line = (
        f"{_count(len(answer.nodes), 'node')} and {_count(len(answer.edges), 'edge')} "
        f"within {_count(answer.depth, 'link')} of {answer.note} ({ways})"
    )
    close = len(_meaning(answer))
    if close:
        line += ", and its closest note" if close == 1 else f", and its {close} closest notes"
        line += " by meaning"
    cut = cut_sentence(answer.left_out, FLAGS)
    return f"{line}. {cut}" if cut else line


def graph_mermaid(answer: Neighbourhood) -> str:
    """A Mermaid flowchart: links as arrows, meaning as dotted arrows labelled with their
    similarity, unresolved targets faded, the note asked about in bold."""
    ids = _names(answer)
    lines = ["flowchart LR", *(f"  %% {line}" for line in _remarks(answer))]
    for node in answer.nodes:
        lines.append(f'  {ids[node.id, node.kind]}["{mermaid_label(node.title)}"]')
    for edge in answer.edges:
        source, target = _ends(ids, edge)
        if edge.kind == "meaning":
            lines.append(f"  {source} -.->|{edge.similarity:.2f}| {target}")
        else:
            lines.append(f"  {source} --> {target}")
    lines.append("  classDef unresolved fill:#ffffff,stroke:#aaaaaa,color:#999999")
    lines.append("  classDef asked stroke-width:3px")
    faded = [ids[node.id, node.kind] for node in answer.nodes if node.kind == "unresolved"]
    if faded:
        lines.append(f"  class {','.join(faded)} unresolved")
    lines.append(f"  class {ids[answer.note, 'note']} asked")
    return "\n".join(lines)


def mermaid_label(text: str) -> str:
    """Text for a quoted Mermaid label."""
    flat = " ".join(text.splitlines())
    return "".join(_MERMAID.get(char, char) for char in flat)


def graph_dot(answer: Neighbourhood) -> str:
    """A Graphviz digraph: links as arrows, meaning as dashed arrows labelled with their
    similarity, unresolved targets dashed and grey, the note asked about in bold."""
    ids = _names(answer)
    lines = ["digraph neighbourhood {", *(f"  // {line}" for line in _remarks(answer))]
    lines += ["  rankdir=LR;", "  node [shape=box];"]
    for node in answer.nodes:
        style = ""
        if node.kind == "unresolved":
            style = ", style=dashed, color=gray60, fontcolor=gray50"
        elif node.id == answer.note and node.distance == 0:
            style = ", penwidth=3"
        lines.append(f'  {ids[node.id, node.kind]} [label="{dot_label(node.title)}"{style}];')
    for edge in answer.edges:
        source, target = _ends(ids, edge)
        if edge.kind == "meaning":
            lines.append(f'  {source} -> {target} [style=dashed, label="{edge.similarity:.2f}"];')
        else:
            lines.append(f"  {source} -> {target};")
    lines.append("}")
    return "\n".join(lines)


def dot_label(text: str) -> str:
    """Text for a quoted DOT string."""
    return "".join(_DOT.get(char, char) for char in text)


def _remarks(answer: Neighbourhood) -> list[str]:
    """The summary, and why there are no meaning edges, for a comment: one line each."""
    said = [graph_summary(answer), *([f"note: {answer.warning}"] if answer.warning else [])]
    return [printable(" ".join(line.splitlines())) for line in said]


def _names(answer: Neighbourhood) -> dict[tuple[str, str], str]:
    """Each node's name in a drawing, by (id, kind): n0, n1, ... in the answer's order."""
    return {(node.id, node.kind): f"n{number}" for number, node in enumerate(answer.nodes)}


def _ends(ids: dict[tuple[str, str], str], edge: GraphEdge) -> list[str]:
    """The node names of an edge's two ends: a source is always a note; a target is the note,
    file or unresolved target of that id (a note's path and a target's text may be the same)."""
    target = next(
        ids[edge.target, kind]
        for kind in ("note", "file", "unresolved")
        if (edge.target, kind) in ids
    )
    return [ids[edge.source, "note"], target]


def _links(answer: Neighbourhood) -> list[GraphEdge]:
    return [edge for edge in answer.edges if edge.kind == "link"]


def _meaning(answer: Neighbourhood) -> list[GraphEdge]:
    return [edge for edge in answer.edges if edge.kind == "meaning"]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
