"""`memlsp graph --format mermaid|dot` (commands/graph_view_text.py): node names n0, n1, ... never a
note's text, and labels escaped so that a title holding quotes, brackets, `#`, `<>`, backslashes
or a newline reads back as written: decoded here as Mermaid and Graphviz decode them, and drawn
by Graphviz where it is installed."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from memlsp.cli import main
from memlsp.commands.graph_view_text import dot_label, graph_dot, graph_mermaid, mermaid_label
from memlsp.queries.graph_view import with_meaning
from memlsp.queries.graph_walk import Neighbourhood, neighbourhood
from memlsp.search.related import RelatedAnswer, RelatedNote, SectionPair
from tests.helpers.memory_vault import memory_view
from tests.helpers.vault import write_notes

WEIRD = 'a "b" [c] <d> #e'
# A note named with each character a drawing language gives a meaning (no H1: its name is its
# title), one it links to, a name nothing has, and one only meaning reaches.
FILES = {
    "apples.md": "# Apples\n\n[[bananas]] [[nowhere]]\n",
    f"{WEIRD}.md": "[[apples]]\n",
    "bananas.md": "# Bananas\n",
    "cherries.md": "# Cherries & <b>cream</b> {y} (z) | w; v\\u\n",
}
ANY_TITLE = [
    WEIRD,
    'quote " bracket ] [ hash # lt < gt > amp & semi ; pipe | tick ` brace { } paren ( )',
    "back\\slash and \\n written out",
    "a line\nand another",
    "#quot; #35; written out, and &amp;",
    "中文 ✓ emoji 🍎",
]


def _answer() -> Neighbourhood:
    graph = memory_view(FILES).graph
    pair = SectionPair(("Apples",), 1, ("Cherries",), 1, 0.8234)
    found = RelatedAnswer("apples.md", (RelatedNote("cherries.md", 0.5, False, pair, ()),))
    return with_meaning(graph, neighbourhood(graph, "apples.md"), found)


def mermaid_read(label: str) -> str:
    """A label as Mermaid shows it: `#name;` and `#number;` are characters (as HTML entities)."""
    return html.unescape(
        re.sub(r"#(\w+);", lambda m: f"&{'#' if m[1].isdigit() else ''}{m[1]};", label)
    )


def dot_read(label: str) -> str:
    """A quoted DOT string as Graphviz shows it: `\\\\`, `\\"` and `\\n` escaped."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m[1], m[1]), label)


@pytest.mark.parametrize("title", ANY_TITLE)
def test_a_mermaid_label_reads_back_and_holds_nothing_mermaid_reads(title: str) -> None:
    label = mermaid_label(title)
    assert mermaid_read(label) == " ".join(title.splitlines())
    # What is left bare: no quote, bracket, angle, pipe, brace, backtick or newline, and a '#'
    # or '&' only as the start of an entity code.
    assert not set(label) & set('"[]<>{}()|`\n\\')
    assert re.sub(r"#(quot|\d+);", "", label).count("#") == 0
    assert "&" not in label


@pytest.mark.parametrize("title", ANY_TITLE)
def test_a_dot_label_reads_back(title: str) -> None:
    label = dot_label(title)
    assert dot_read(label) == title
    assert "\n" not in label and not re.search(r'(?<!\\)"', label.replace("\\\\", ""))


def test_mermaid_names_nodes_and_draws_each_kind() -> None:
    text = graph_mermaid(_answer())
    assert text.splitlines() == [
        "flowchart LR",
        "  %% 5 nodes and 4 edges within 1 link of apples.md (both ways), and its closest note by "
        "meaning",
        '  n0["Apples"]',
        '  n1["a #quot;b#quot; #91;c#93; #60;d#62; #35;e"]',
        '  n2["Bananas"]',
        '  n3["nowhere"]',
        '  n4["Cherries #38; #60;b#62;cream#60;/b#62; #123;y#125; #40;z#41; #124; w#59; v#92;u"]',
        "  n1 --> n0",
        "  n0 --> n2",
        "  n0 -.->|0.82| n4",  # meaning: dotted, with its similarity
        "  n0 --> n3",
        "  classDef unresolved fill:#ffffff,stroke:#aaaaaa,color:#999999",
        "  classDef asked stroke-width:3px",
        "  class n3 unresolved",  # faded
        "  class n0 asked",
    ]


def test_dot_names_nodes_and_draws_each_kind() -> None:
    text = graph_dot(_answer())
    assert text.splitlines() == [
        "digraph neighbourhood {",
        "  // 5 nodes and 4 edges within 1 link of apples.md (both ways), and its closest note by "
        "meaning",
        "  rankdir=LR;",
        "  node [shape=box];",
        '  n0 [label="Apples", penwidth=3];',
        '  n1 [label="a \\"b\\" [c] <d> #e"];',
        '  n2 [label="Bananas"];',
        '  n3 [label="nowhere", style=dashed, color=gray60, fontcolor=gray50];',
        '  n4 [label="Cherries & <b>cream</b> {y} (z) | w; v\\\\u"];',
        "  n1 -> n0;",
        "  n0 -> n2;",
        '  n0 -> n4 [style=dashed, label="0.82"];',
        "  n0 -> n3;",
        "}",
    ]


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_graphviz_draws_every_title_as_written() -> None:
    answer = _answer()
    drawn = subprocess.run(
        ["dot", "-Tsvg"], input=graph_dot(answer), capture_output=True, text=True, check=True
    ).stdout
    texts = [html.unescape(text) for text in re.findall(r"<text[^>]*>([^<]*)</text>", drawn)]
    assert sorted(texts) == sorted([node.title for node in answer.nodes] + ["0.82"])
    assert WEIRD in texts and "Cherries & <b>cream</b> {y} (z) | w; v\\u" in texts


def test_the_command_prints_either(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vault = write_notes(tmp_path / "vault", {".memlsp.toml": 'embedder = "none"\n', **FILES})
    cache = ("--cache-dir", str(tmp_path / "cache"), "--no-daemon")
    said = [
        '2 nodes and 1 edge within 1 link of a "b" [c] <d> #e.md (both ways)',
        "note: related notes need vectors (embedder = none)",
    ]
    assert main(["graph", str(vault), WEIRD, "--format", "mermaid", *cache]) == 0
    assert capsys.readouterr().out.splitlines()[:5] == [
        "flowchart LR",
        *(f"  %% {line}" for line in said),  # a comment to the end of the line
        '  n0["a #quot;b#quot; #91;c#93; #60;d#62; #35;e"]',
        '  n1["Apples"]',
    ]
    assert main(["graph", str(vault), WEIRD, "--format", "dot", *cache]) == 0
    assert capsys.readouterr().out.splitlines()[:6] == [
        "digraph neighbourhood {",
        *(f"  // {line}" for line in said),
        "  rankdir=LR;",
        "  node [shape=box];",
        '  n0 [label="a \\"b\\" [c] <d> #e", penwidth=3];',
    ]
