"""Search results as text (the seed's form) and as JSON-ready dictionaries."""

from __future__ import annotations

from typing import Any

from memlsp.model import Hit, Neighbour, ResolvedLink, SearchResponse, printable_lines


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def neighbour_json(neighbour: Neighbour) -> dict[str, Any]:
    return {
        "path": neighbour.path,
        "name": neighbour.name,
        "description": neighbour.description,
        "anchors": list(neighbour.anchors),
        "source": "link",
    }


def hit_json(hit: Hit) -> dict[str, Any]:
    chunk = hit.chunk
    return {
        "path": chunk.path,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "title": hit.title,
        "heading": chunk.heading,
        "breadcrumb": list(chunk.breadcrumb),
        "date": hit.date,
        "score": hit.score,
        "keyword_score": hit.keyword_score,
        "keyword_rank": hit.keyword_rank,
        "vector_score": hit.vector_score,
        "vector_rank": hit.vector_rank,
        "matched_terms": list(hit.matched_terms),
        "source": hit.source,
        "chunk_id": chunk.id,
        "text": chunk.text,
        "outlinks": [neighbour_json(n) for n in hit.outlinks],
        "inlinks": [neighbour_json(n) for n in hit.inlinks],
        "other_sections": [
            {
                "start_line": other.start_line,
                "end_line": other.end_line,
                "heading": other.heading,
                "breadcrumb": list(other.breadcrumb),
                "score": other.score,
            }
            for other in hit.other_sections
        ],
    }


def response_json(response: SearchResponse) -> dict[str, Any]:
    return {
        "query": response.query,
        "mode": response.mode,
        "warnings": list(response.warnings),
        "strength": response.strength,
        "counts": {
            "keyword": response.counts.keyword,
            "vector": response.counts.vector,
            "hybrid": response.counts.hybrid,
        },
        "results": [hit_json(hit) for hit in response.hits],
    }


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
    """For a terminal: what notes hold may not drive it (escape sequences are shown escaped)."""
    notes = [f"note: {warning}" for warning in response.warnings]
    if not response.hits:
        return printable_lines("\n".join([*notes, f"no results for {response.query!r}"]))
    return printable_lines("\n\n".join([*notes, *(hit_text(hit) for hit in response.hits)]))


def link_json(item: ResolvedLink) -> dict[str, Any]:
    """A link and where it goes; the CLI adds its line and column, the server its range."""
    link = item.link
    return {
        "source": item.source,
        "target": link.target,
        "anchor": link.anchor,
        "kind": link.kind.value,
        "embed": link.embed,
        "status": item.resolution.status.value,
        "targets": list(item.resolution.targets),
        "candidates": list(item.resolution.candidates),
    }
