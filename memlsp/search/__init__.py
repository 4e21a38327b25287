"""Search over one snapshot: each side's candidates, their evidence, fusion, notes at their best
section, the linked notes a result carries, and related notes by meaning.

`build_request` (request.py) checks a search's arguments once for every surface; `rank`
(hybrid.py) answers it; `related` (related.py) answers "what is close to this note".
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.search.fusion import fused_order as fused_order
    from memlsp.search.hybrid import rank as rank
    from memlsp.search.related import RelatedAnswer as RelatedAnswer
    from memlsp.search.related import related as related
    from memlsp.search.render import response_text as response_text
    from memlsp.search.request import build_request as build_request
    from memlsp.search.scope import allowed_notes as allowed_notes

__getattr__ = exports(
    __name__,
    {
        "fused_order": "fusion",
        "rank": "hybrid",
        "RelatedAnswer": "related",
        "related": "related",
        "response_text": "render",
        "build_request": "request",
        "allowed_notes": "scope",
    },
)
