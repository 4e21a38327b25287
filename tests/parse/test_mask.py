"""Where nothing is a link, tag, heading or block id: code, HTML comments and math."""

from __future__ import annotations

import pytest

from memlsp.parse.fences import Fence, closes_fence, fence_opening, may_open_block
from memlsp.parse.markdown import parse_markdown, split_lines
from memlsp.parse.mask import mask_lines

REAL = "Real: [[real]] #real-tag [md](real.md)"


def found(text: str) -> tuple[list[str], list[str]]:
    """Link targets and inline tag names found in `text`."""
    note = parse_markdown("n.md", text)
    return [link.target for link in note.links], [t.name for t in note.tags if t.span]


@pytest.mark.parametrize(
    "hidden",
    [
        pytest.param("```\n[[x]] #t [m](x.md)\n```", id="backtick-fence"),
        pytest.param("```markdown\n[[x]]\n\n#t\n```", id="fence-info-blank-line"),
        pytest.param("````\n```\n[[x]]\n```\n#t\n````", id="longer-fence-holds-shorter"),
        pytest.param("~~~\n[[x]] #t\n~~~", id="tilde-fence"),
        pytest.param("~~~python\n[[x]] #t\n~~~~", id="tilde-closed-by-longer"),
        pytest.param("   ```\n[[x]] #t\n   ```", id="fence-indented-3"),
        pytest.param("- item\n\n    ```\n    [[x]] #t\n    ```", id="fence-in-list-item"),
        pytest.param("    [[x]] #t\n    [m](x.md)", id="indented-code"),
        pytest.param("\tindented [[x]] #t", id="tab-indented-code"),
        pytest.param("para\n\n    [[x]]\n\n    #t", id="indented-code-blank-inside"),
        pytest.param("`[[x]]` `#t` `[m](x.md)`", id="inline-code"),
        pytest.param("``[[x]] ` #t``", id="double-backtick-code"),
        pytest.param("<!-- [[x]] #t -->", id="html-comment"),
        pytest.param("text <!-- [[x]] --> more <!-- #t -->", id="two-comments-one-line"),
        pytest.param("<!--\n[[x]]\n#t\n-->", id="multi-line-comment"),
        pytest.param("start <!-- note\n[[x]]\n#t -->", id="comment-opened-mid-line"),
        pytest.param("$$\n[[x]] #t\n$$", id="math-block"),
        pytest.param("$$ \\text{[[x]]}\n#t\n$$", id="math-block-content-on-open"),
        pytest.param("$$\\text{[[x]]} #t$$", id="math-block-one-line"),
        pytest.param("inline $x_{[[x]]}$ and $#t$", id="inline-math"),
        pytest.param("display $$\\text{[[x]]}$$ inline", id="inline-display-math"),
    ],
)
def test_nothing_found_inside(hidden: str) -> None:
    links, tags = found(hidden + "\n\n" + REAL + "\n")
    assert links == ["real", "real.md"]
    assert tags == ["real-tag"]


def test_text_after_the_closing_marker_counts_again() -> None:
    text = "```\n[[no]]\n```\n[[after-fence]]\n<!--\n[[no]]\n--> [[after-comment]]\n`x` [[after-code]]\n"
    links, _ = found(text)
    assert links == ["after-fence", "after-comment", "after-code"]


def test_unclosed_backticks_do_not_hide_the_line() -> None:
    links, tags = found("a single ` backtick, then [[link]] and #tag\n")
    assert links == ["link"]
    assert tags == ["tag"]


def test_dollar_amounts_are_not_math() -> None:
    links, tags = found("It cost $5 and then $10 for [[groceries]] #budget\n")
    assert links == ["groceries"]
    assert tags == ["budget"]


def test_fence_with_backticks_in_info_string_is_inline_code() -> None:
    # "```js `x`" cannot open a fence; the line is text with code spans
    links, _ = found("``` not a fence ``` [[visible]]\n")
    assert links == ["visible"]


def test_list_continuation_is_not_indented_code() -> None:
    links, _ = found(
        "- item\n    continued with [[in-list]]\n\n1. one\n\n    [[in-ordered-list]]\n"
    )
    assert links == ["in-list", "in-ordered-list"]


def test_indented_line_after_a_paragraph_is_a_continuation() -> None:
    links, _ = found("A paragraph\n    still the paragraph [[link]]\n")
    assert links == ["link"]


def test_masked_lines_keep_their_length_and_columns() -> None:
    text = "a `[[x]]` b <!-- c --> $d$ [[keep]]\n```\nfenced\n```\n\n    code\n"
    lines = split_lines(text)
    masked = mask_lines(lines)
    assert [len(m.text) for m in masked] == [len(line) for line in lines]
    first = masked[0].text
    assert first.index("[[keep]]") == lines[0].index("[[keep]]")
    assert "[[x]]" not in first and "c" not in first[12:22] and "d" not in first[23:26]
    assert [m.in_block for m in masked] == [False, True, True, True, False, True, False]


def test_multi_line_comment_state_is_tracked_across_lines() -> None:
    masked = mask_lines(["keep <!-- hide", "hide", "hide --> keep", "keep"])
    assert [m.text.strip() for m in masked] == ["keep", "", "keep", "keep"]
    assert not any(m.in_block for m in masked)


def test_one_fence_rule_for_every_reader_of_blocks() -> None:
    """parse/fences.py: at most three spaces before a fence, more inside a list item; a backtick
    fence's info holds no backtick; closed by a run at least as long and nothing else."""
    assert fence_opening("```py") == Fence("", "```", "py")
    assert fence_opening("   ~~~~") == Fence("   ", "~~~~", "")
    assert fence_opening("    ```") is None  # indented code
    assert fence_opening("\t```") is None
    assert fence_opening("    ```", in_list=True) == Fence("    ", "```", "")
    assert fence_opening("``` a ``` b") is None  # inline code
    assert closes_fence("  ````  ", "```") and not closes_fence("``", "```")
    assert not closes_fence("``` x", "```") and not closes_fence("~~~", "```")
    assert may_open_block("   $$") and not may_open_block("    $$")
    assert may_open_block("    $$", in_list=True)
    # The masking reads a fence indented four spaces in a list, and indented code outside one.
    links, _ = found("- item\n\n    ```\n    [[in-code]]\n    ```\n\n[[after]]\n")
    assert links == ["after"]
    links, _ = found("Intro.\n\n    ```\n\n[[not-in-a-fence]]\n")
    assert links == ["not-in-a-fence"]
