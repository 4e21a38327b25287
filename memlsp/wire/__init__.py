"""The JSON of memlsp's own messages, typed once: the command line's `--json`, the language
server's custom requests and notifications (`memlsp/*`), and MCP (whose tools answer with the
command line's JSON).

Each shape is a `TypedDict` with one builder from the domain values, so a name is chosen once for
the server, the command line and agents alike. One module per family of messages (`search`,
`links`, `related`, `mentions`, `graph`, `reading`, `status`, `index`) and `common` for what they
share. `vscode-extension/src/wire.ts` declares the shapes a client reads under the same names, and
`tests/test_wire_schema.py` fails when the two differ (it reads `MESSAGES` and `COMMAND_LINE`).
Nothing here knows LSP types: URIs come in as strings, or as a function naming a note's URI, and
columns are counted in the unit the client negotiated (`Span.columns`).

Unlike other packages, this one imports its modules when imported, so that `from memlsp.wire
import X` names any shape; the family modules import one another's modules, never this one.
"""

from __future__ import annotations

from memlsp.wire.common import PositionJson, RangeJson, json_text, range_json
from memlsp.wire.graph import (
    GraphDirection,
    GraphEdgeJson,
    GraphEdgeKind,
    GraphJson,
    GraphLeftOutJson,
    GraphNodeJson,
    GraphNodeKind,
    graph_json,
)
from memlsp.wire.index import (
    EmbeddingJson,
    IndexSummaryJson,
    SkippedJson,
    index_summary_json,
    skipped_json,
)
from memlsp.wire.links import (
    LinkJson,
    LinkLineJson,
    LinksAnswerJson,
    LinksJson,
    VaultLinkJson,
    link_json,
    link_line_json,
    links_answer_json,
    links_json,
    vault_link_json,
)
from memlsp.wire.mentions import (
    MentionAnswerJson,
    MentionLineJson,
    MentionsAnswerJson,
    MentionsJson,
    mention_line_json,
    mentions_answer_json,
    mentions_json,
)
from memlsp.wire.reading import (
    FRONTMATTER_DEPTH,
    LinkState,
    ReadHeadingJson,
    ReadJson,
    ReadLinkJson,
    RecentJson,
    RecentNoteJson,
    json_value,
    read_heading_json,
    read_json,
    read_link_json,
    recent_json,
    utc_text,
)
from memlsp.wire.related import (
    RelatedAnswerJson,
    RelatedJson,
    RelatedNoteAnswerJson,
    RelatedNoteJson,
    SectionPairJson,
    related_answer_json,
    related_json,
    related_note_json,
    section_pair_json,
)
from memlsp.wire.search import (
    NeighbourJson,
    OtherSectionJson,
    QueryAnswerJson,
    QueryErrorJson,
    SearchAnswerJson,
    SearchCountsJson,
    SearchResultJson,
    VaultAnswer,
    VaultSearchAnswerJson,
    VaultSearchResultJson,
    neighbour_json,
    other_section_json,
    query_answer_json,
    query_error_json,
    search_answer_json,
    search_counts_json,
    search_result_json,
    vault_search_answer_json,
)
from memlsp.wire.status import (
    ChangedJson,
    IndexedJson,
    ProblemsJson,
    ReindexAnswerJson,
    StatusAnswerJson,
    VaultState,
    VaultStatusJson,
    VectorsJson,
    VectorsNoticeJson,
    VectorState,
    changed_json,
    indexed_json,
    problems_json,
    reindex_answer_json,
    status_answer_json,
    vault_status_json,
    vectors_json,
    vectors_notice_json,
)

# -- which message carries which shape ---------------------------------------------------------

# The result or params of each custom message of the language server.
MESSAGES: dict[str, object] = {
    "memlsp/search": VaultSearchAnswerJson,
    "memlsp/links": LinksAnswerJson | None,  # None: the note is in no open vault
    "memlsp/related": RelatedAnswerJson | None,
    "memlsp/mentions": MentionsAnswerJson | None,
    "memlsp/graph": GraphJson | None,
    "memlsp/reindex": ReindexAnswerJson,
    "memlsp/status": StatusAnswerJson,
    "memlsp/indexed": IndexedJson,
    "memlsp/vectors": VectorsNoticeJson,
    "memlsp/changed": ChangedJson,
}

# What the command line prints with --json.
COMMAND_LINE: dict[str, object] = {
    "index": IndexSummaryJson,
    "search": SearchAnswerJson,
    "search --queries": QueryAnswerJson | QueryErrorJson,  # one a line
    "links": LinksJson,
    "related": RelatedJson,
    "mentions": MentionsJson,
    "graph": GraphJson,
    "read": ReadJson,
    "recent": RecentJson,
}

__all__ = [
    "COMMAND_LINE",
    "FRONTMATTER_DEPTH",
    "MESSAGES",
    "ChangedJson",
    "EmbeddingJson",
    "GraphDirection",
    "GraphEdgeJson",
    "GraphEdgeKind",
    "GraphJson",
    "GraphLeftOutJson",
    "GraphNodeJson",
    "GraphNodeKind",
    "IndexSummaryJson",
    "IndexedJson",
    "LinkJson",
    "LinkLineJson",
    "LinkState",
    "LinksAnswerJson",
    "LinksJson",
    "MentionAnswerJson",
    "MentionLineJson",
    "MentionsAnswerJson",
    "MentionsJson",
    "NeighbourJson",
    "OtherSectionJson",
    "PositionJson",
    "ProblemsJson",
    "QueryAnswerJson",
    "QueryErrorJson",
    "RangeJson",
    "ReadHeadingJson",
    "ReadJson",
    "ReadLinkJson",
    "RecentJson",
    "RecentNoteJson",
    "ReindexAnswerJson",
    "RelatedAnswerJson",
    "RelatedJson",
    "RelatedNoteAnswerJson",
    "RelatedNoteJson",
    "SearchAnswerJson",
    "SearchCountsJson",
    "SearchResultJson",
    "SectionPairJson",
    "SkippedJson",
    "StatusAnswerJson",
    "VaultAnswer",
    "VaultLinkJson",
    "VaultSearchAnswerJson",
    "VaultSearchResultJson",
    "VaultState",
    "VaultStatusJson",
    "VectorState",
    "VectorsJson",
    "VectorsNoticeJson",
    "changed_json",
    "graph_json",
    "index_summary_json",
    "indexed_json",
    "json_text",
    "json_value",
    "link_json",
    "link_line_json",
    "links_answer_json",
    "links_json",
    "mention_line_json",
    "mentions_answer_json",
    "mentions_json",
    "neighbour_json",
    "other_section_json",
    "problems_json",
    "query_answer_json",
    "query_error_json",
    "range_json",
    "read_heading_json",
    "read_json",
    "read_link_json",
    "recent_json",
    "reindex_answer_json",
    "related_answer_json",
    "related_json",
    "related_note_json",
    "search_answer_json",
    "search_counts_json",
    "search_result_json",
    "section_pair_json",
    "skipped_json",
    "status_answer_json",
    "utc_text",
    "vault_link_json",
    "vault_search_answer_json",
    "vault_status_json",
    "vectors_json",
    "vectors_notice_json",
]
