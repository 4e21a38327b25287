"""Text to values: pure functions from a note's text to its frontmatter, headings, links,
tags, chunks and words. Nothing here reads the disk but `parse_file` (files.py), the one
entry a writer calls for a file's bytes; nothing here knows the vault or the index.
"""

from typing import TYPE_CHECKING

from memlsp.exports import exports

if TYPE_CHECKING:
    from memlsp.parse.chunks import chunk_note as chunk_note
    from memlsp.parse.fences import fence_opening as fence_opening
    from memlsp.parse.files import ParsedFile as ParsedFile
    from memlsp.parse.files import parse_file as parse_file
    from memlsp.parse.frontmatter import split_frontmatter as split_frontmatter
    from memlsp.parse.limits import NoteLimits as NoteLimits
    from memlsp.parse.links import find_links as find_links
    from memlsp.parse.links import find_tags as find_tags
    from memlsp.parse.markdown import parse_markdown as parse_markdown
    from memlsp.parse.mask import mask_lines as mask_lines
    from memlsp.parse.names_in_text import find_names as find_names
    from memlsp.parse.tokens import estimate_tokens as estimate_tokens
    from memlsp.parse.tokens import segment as segment

__getattr__ = exports(
    __name__,
    {
        "chunk_note": "chunks",
        "fence_opening": "fences",
        "ParsedFile": "files",
        "parse_file": "files",
        "split_frontmatter": "frontmatter",
        "NoteLimits": "limits",
        "find_links": "links",
        "find_tags": "links",
        "parse_markdown": "markdown",
        "mask_lines": "mask",
        "find_names": "names_in_text",
        "estimate_tokens": "tokens",
        "segment": "tokens",
    },
)
