"""Search results as text for a terminal (the JSON form is `memlsp.wire`)."""

from __future__ import annotations

from memlsp.model import Hit, Neighbour, SearchResponse, printable_lines
from memlsp.search.budget import cut_sentence


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _neighbour_line(neighbour: Neighbour) -> str:
    anchors = "".join(f"#{anchor}" for anchor in neighbour.anchors[:1])
    description = f" — {neighbour.description}" if neighbour.description else ""
    return f"  - {neighbour.name} ({neighbour.path}{anchors}){description}"


def hit_text(hit: Hit) -> str:
    chunk = hit.chunk
    header = (
        f"========== {chunk.path}:{chunk.start_line}-{chunk.end_line} "
        f"[score={hit.score:.4f} keyword={_number(hit.keyword_score)} "
        f"vector={_number(hit.vector_score)}] =========="
    )
    parts = [header, " › ".join(chunk.breadcrumb), chunk.text]
    if hit.matched_terms:
        parts.append("matched: " + ", ".join(hit.matched_terms))
    if hit.other_sections:
        places = (
            f"{o.start_line}-{o.end_line}" + (f" {o.heading}" if o.heading else "")
            for o in hit.other_sections
        )
        parts.append("also matched: " + "; ".join(places))
    for label, neighbours in (("outlinks", hit.outlinks), ("inlinks", hit.inlinks)):
        if neighbours:
            parts.append(f"{label} ({len(neighbours)}):")
            parts.extend(_neighbour_line(n) for n in neighbours)
    return "\n".join(parts)


def response_text(response: SearchResponse) -> str:
    """For a terminal: what notes hold may not drive it (escape sequences are shown escaped).
    What the budget left out comes last, as `read` says it, where a reader's eye ends."""
    notes = [f"note: {warning}" for warning in response.warnings]
    why = [f"why: {item.sentence}" for item in response.explained]
    if not response.hits:
        return printable_lines("\n".join([*notes, f"no results for {response.query!r}", *why]))
    cut = cut_sentence(response.budget)
    ending = [f"(cut: {cut})"] if cut else []
    if why:
        ending.append("\n".join(why))
    return printable_lines(
        "\n\n".join([*notes, *(hit_text(hit) for hit in response.hits), *ending])
    )
