"""YAML frontmatter: found by line, parsed safely and within a budget, never fatal."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

# Real frontmatter is a few hundred bytes; 64 KB leaves room for long descriptions and lists
# and still loads in milliseconds.
MAX_FRONTMATTER_CHARS = 65_536
# YAML aliases repeat a node without repeating its text: 374 bytes of nested aliases stand for
# 4.8 million strings. A 64 KB block written out holds at most ~32,000 nodes and 64,000
# characters, so these counts, taken with every alias expanded, are only reached by repetition.
MAX_EXPANDED_NODES = 100_000
MAX_EXPANDED_CHARS = 1_000_000

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # safe loading only, in C when built
_HANDLER = YAMLHandler()
_TAG_NAME = re.compile(r"[^,\s]+")
# Where tags are written in the frontmatter's text: a top-level `tags:` / `tag:` key, the rest of
# its line and the indented or `- ` lines under it; a tag is a run of what YAML leaves unquoted.
_TAGS_KEY = re.compile(r"(?i)tags?\s*:")
_TAG_WORD = re.compile(r"#?([^\s,\[\]'\"#]+)")


@dataclass(frozen=True, slots=True)
class Frontmatter:
    meta: dict[str, Any]
    body_start: int  # 0-based index of the first line after the closing fence
    problem: str | None


class _OverBudget(Exception):
    pass


def split_frontmatter(lines: list[str]) -> Frontmatter:
    """Frontmatter is a `---` first line up to the next `---` or `...` line."""
    if not lines or lines[0].rstrip() != "---":
        return Frontmatter({}, 0, None)
    size = 0
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            if size > MAX_FRONTMATTER_CHARS:
                problem = (
                    f"frontmatter is over {MAX_FRONTMATTER_CHARS:,} characters; indexed as text"
                )
                return Frontmatter({}, index + 1, problem)
            return _load("\n".join(lines[1:index]), index + 1)
        size += len(lines[index]) + 1
    return Frontmatter({}, 0, "frontmatter has no closing '---'; indexed as text")


def _load(text: str, body_start: int) -> Frontmatter:
    if not text.strip():
        return Frontmatter({}, body_start, None)
    try:
        meta = _safe_load(text)
    except _OverBudget as error:
        return Frontmatter({}, body_start, f"frontmatter {error}; indexed as text")
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at frontmatter line {mark.line + 2}" if mark is not None else ""
        reason = getattr(error, "problem", None) or type(error).__name__
        return Frontmatter({}, body_start, f"invalid YAML frontmatter{where}: {reason}")
    except Exception as error:  # any loader failure must not stop indexing
        return Frontmatter({}, body_start, f"unreadable frontmatter: {error}")
    if meta is None:
        return Frontmatter({}, body_start, None)
    if not isinstance(meta, dict):
        return Frontmatter({}, body_start, "frontmatter is not a mapping; ignored")
    return Frontmatter({str(key): value for key, value in meta.items()}, body_start, None)


class _BoundedLoader(_Loader):  # type: ignore[misc,valid-type]
    """A safe loader that refuses a document too big once its aliases are expanded, checked on
    the composed nodes before anything is constructed."""

    def get_single_node(self) -> yaml.Node | None:
        node: yaml.Node | None = super().get_single_node()
        if node is not None:
            _check_expanded_size(node)
        return node


def _safe_load(text: str) -> Any:
    """python-frontmatter's YAML handler, with the bounded safe loader."""
    return _HANDLER.load(text, Loader=_BoundedLoader)


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key
            yield value


def _check_expanded_size(root: yaml.Node) -> None:
    """Count nodes and scalar characters as if every alias were written out.

    An alias is the same node object as its anchor, so each node's expanded size is computed once
    and reused. Without a stack of Python calls: nesting depth is the document's to choose.
    """
    sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes, characters) when expanded
    open_nodes: set[int] = set()  # nodes whose children are still being counted
    todo: list[tuple[yaml.Node, bool]] = [(root, False)]
    while todo:
        node, children_done = todo.pop()
        key = id(node)
        if not children_done:
            if key in sizes:
                continue
            if key in open_nodes:  # reached again from inside itself: an endless expansion
                raise _OverBudget("has a recursive alias")
            open_nodes.add(key)
            todo.append((node, True))
            todo.extend((child, False) for child in _children(node) if id(child) not in sizes)
            continue
        open_nodes.discard(key)
        nodes, chars = 1, len(node.value) if isinstance(node, yaml.ScalarNode) else 0
        for child in _children(node):
            child_nodes, child_chars = sizes[id(child)]
            nodes += child_nodes
            chars += child_chars
        if nodes > MAX_EXPANDED_NODES:
            raise _OverBudget(f"expands to over {MAX_EXPANDED_NODES:,} values through aliases")
        if chars > MAX_EXPANDED_CHARS:
            raise _OverBudget(f"expands to over {MAX_EXPANDED_CHARS:,} characters through aliases")
        sizes[key] = (nodes, chars)


def as_strings(value: Any, limit: int | None = None) -> list[str]:
    """A frontmatter value that may be one string, a list, or junk, as a list of strings (the
    first `limit` of them)."""
    if value is None:
        return []
    items = value if isinstance(value, list | tuple | set) else (value,)
    texts = (str(item).strip() for item in items if item is not None)
    return list(islice((text for text in texts if text), limit))


def tag_names(values: list[str], limit: int) -> list[str]:
    """Tag names in frontmatter values (`[a, b]`, `"a b"`, `a, #b`), the first `limit` of them."""
    names = (match.group().lstrip("#") for value in values for match in _TAG_NAME.finditer(value))
    return list(islice((name for name in names if name), limit))


def tag_places(lines: list[str], body_start: int) -> Iterator[tuple[int, int, int, str]]:
    """(line, start, end, name) of every tag word written under a `tags:` key of the frontmatter
    that ends before `body_start`, `#` included in the columns when it is written."""
    inside = False
    for line_no in range(1, max(body_start - 1, 1)):
        text = lines[line_no]
        if text[:1] not in (" ", "\t", "-", ""):  # a top-level key: ours, or the next one
            key = _TAGS_KEY.match(text)
            inside = key is not None
            start = key.end() if key else len(text)
        elif inside:
            start = 0
        else:
            continue
        for word in _TAG_WORD.finditer(text, start):
            if word.group(1) != "-":
                yield line_no, word.start(), word.end(), word.group(1)


def as_date(value: Any) -> str | None:
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        return parse_iso_date(value[:10])
    return None


def parse_iso_date(text: str) -> str | None:
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        return None
