"""Hover Markdown is safe to render whatever the notes contain (reliability finding S6).

The client assumed is the most permissive one: markdown-it with HTML enabled, linkify on, and every
link scheme followed. The checker renders the hover with markdown-it (it comes with chromadb's
`rich`) and reports everything that would be live: raw HTML, an entity, a `<` or `>` that was not
escaped, a link or image whose destination is not `http(s):` or a file in the vault, and text
that linkify would turn into a `mailto:` or scheme-relative link. linkify itself is not
installed: its non-http links are found from the text tokens it would work on.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from memlsp.engine.engine import Engine
from memlsp.navigation.hover import hover, tag_hover
from memlsp.navigation.markdown_safe import code_span, escape_text, safe_markdown
from memlsp.navigation.places import Place
from tests.helpers.engine import cursor, indexed_engine, view_of


def _markdown_it(join_text: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    if not join_text:
        # linkify runs before text_join: escaped characters still split the text it scans.
        md.disable("text_join")
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # every scheme followed
    return md


TOKENS = _markdown_it(join_text=False)
RENDER = _markdown_it(join_text=True)
SAFE_TAGS = {
    "p", "strong", "em", "del", "s", "code", "pre", "ul", "ol", "li", "a", "blockquote", "hr",
    "br", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
SAFE_ATTRIBUTES = {"href", "class", "start", "style"}
# What linkify links besides http(s): e-mail addresses (as mailto:) and `//host` (scheme-relative).
LINKIFY_NON_HTTP = re.compile(r"@|//")
BROWSER_IGNORES = "".join(map(chr, range(33)))  # stripped from both ends of a URL


def _tokens(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        yield from _tokens(token.children or [])


def allowed(url: str, vault: Path) -> bool:
    url = re.sub(r"[\t\n\r]", "", url).strip(BROWSER_IGNORES)  # as a browser reads an href
    if re.match(r"https?://", url, re.IGNORECASE):
        return True
    if re.match(r"file://", url, re.IGNORECASE):
        path = unquote(urlparse(url).path)
        return path.startswith(f"{vault}/") and "/../" not in path
    return False


def live(markdown: str, vault: Path) -> list[str]:
    """Everything in `markdown` that would run, load or link somewhere it should not."""
    found = []
    for token in _tokens(TOKENS.parse(markdown)):
        if token.type in ("html_block", "html_inline"):
            found.append(f"HTML {token.content!r}")
        elif token.type == "link_open" and not allowed(str(token.attrGet("href")), vault):
            found.append(f"link {token.attrGet('href')!r}")
        elif token.type == "image":
            found.append(f"image {token.attrGet('src')!r}")  # the hover never shows one
        elif token.type == "text_special" and token.info == "entity":
            found.append(f"entity {token.markup!r}")
        elif token.type == "text":
            text = token.content
            found += [f"unescaped {c!r} in {text!r}" for c in "<>" if c in text]
            found += [f"linkify {m!r} in {text!r}" for m in LINKIFY_NON_HTTP.findall(text)]
    for tag in re.finditer(r"<(/?)([A-Za-z][\w:-]*)([^>]*)>", RENDER.render(markdown)):
        attributes = set(re.findall(r'\s([^\s="/]+)(?:="[^"]*")?', tag.group(3)))
        if tag.group(2).lower() not in SAFE_TAGS or attributes - SAFE_ATTRIBUTES:
            found.append(f"rendered {tag.group(0)!r}")
    return found


def shown(markdown: str) -> str:
    """The text a reader sees, whitespace collapsed."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", RENDER.render(markdown)))
    return " ".join(text.split())


# -- a hostile vault ----------------------------------------------------------------------------

DESCRIPTION = (
    "harmless description words //evil.example <img src=x onerror=alert(1)> "
    "[run](command:workbench.action.terminal.new) <script>alert(2)</script> "
    "[js](javascript:alert(3)) <b onmouseover=alert(4)>b</b> evil@example.com"
)
FRONT = f"---\ndescription: '{DESCRIPTION}'\ntags: [hostile]\n---\n"
ANCHOR = "%60%3Cimg%20src%3Dx%20onerror%3Dalert(5)%3E%60"  # `<img src=x onerror=alert(5)>`
PIC = "pic`<img src=x onerror=alert(6)>`.png"
PIC_LINK = "pic%60%3Cimg%20src%3Dx%20onerror%3Dalert(6)%3E%60.png"

HOSTILE = {
    "hub.md": (
        "# Hub\n\n"
        "See [[links]], [[html]], [[tricks]], [[plain]], [[twin]], [[dup]], "
        f"![p]({PIC_LINK}), "
        f"[bad anchor](links.md#{ANCHOR}) #hostile\n"
    ),
    "links.md": FRONT + "# Links\n\n"
    "Link words [run](command:workbench.action.terminal.new) [js](JavaScript:alert(7)) "
    "[ent](jav&#x61;script:alert(8)) [sp](   javascript:alert(9)) [esc](java\\script:alert(10)) "
    "[pct](%6Aavascript:alert(11)) [nl](java&#10;script:alert(12)) "
    "[ctl](&#1;javascript:alert(13))\n"
    "Images ![pic](javascript:alert(14)) ![track](https://tracker.example/p.gif) autolinks "
    "<javascript:alert(15)> <command:evil> <JAVASCRIPT:alert(16)> <\x01javascript:alert(17)>\n"
    "References [ref link][r] and [shortcut] and [collapsed][] and nested "
    "[a [inner](javascript:alert(18)) b](command:outer) and [[wiki]](javascript:alert(19))\n"
    "Bare mail evil@example.com mailto:evil@example.com ftp://evil.example/f //evil.example/x "
    "and https://fine.example/ok\n"
    "- list item [li](javascript:alert(20)) words\n"
    "- [task](command:evil) second item\n\n"
    "[r]: command:workbench.action.terminal.new\n"
    "[shortcut]: javascript:alert(21)\n"
    '[collapsed]:   <javascript:alert(22)> "title"\n'
    "   [indented]: <command:evil>\n\n"
    "See [[neighbour-out]].\n",
    "html.md": FRONT + "# HTML\n\n"
    'Html words <script>alert(30)</script> <iframe src="javascript:alert(31)"></iframe>\n'
    "<img src=x onerror=alert(32)> <b onmouseover=alert(33)>bold words</b> <svg/onload=alert(34)>\n"
    "Comment trick <!-- --><script>alert(35)</script> hidden <!-- away --> and <!--> short "
    "<![CDATA[<script>alert(36)</script>]]> and <?php echo 1 ?> <!DOCTYPE html>\n"
    "Entities &lt;script&gt;alert(37)&lt;/script&gt; &#60;img src=x onerror=alert(38)&#62;\n\n"
    '<div onclick="alert(39)">\nblock html words\n</div>\n\n'
    "## Sub heading <b onmouseover=alert(40)>x</b> [h](command:evil) "
    "<img src=x onerror=alert(41)>\n\n"
    "Sub words.\n",
    "tricks.md": FRONT + "# Tricks\n\n"
    "Split code a `x\ny` <script>alert(50)</script> `z`\n\n"
    "| a | b |\n|---|---|\n| `c | <img src=x onerror=alert(51)>` | d |\n\n"
    "> quote <b onmouseover=alert(52)>q</b> [q](javascript:alert(53))\n\n"
    "- ```\n  <script>alert(54)</script>\n  ```\n<img src=x onerror=alert(55)>\n"
    "    indented <script>alert(56)</script>\n",
    "plain.md": "---\ndescription: Plain words about cooking rice.\n---\n# Plain\n\n"
    "Some *emphasis* and **strong** words with `inline <code>` here <script>alert(70)</script>\n\n"
    "- first item\n- second item\n\n"
    '```python\nif a < b and c > d: print("<b>")\n```\n\n'
    "## Details\n\nMore words.\n",
    "neighbour-out.md": FRONT + "# <img src=x onerror=alert(60)> Out\n",
    "neighbour-in.md": "# In <b onmouseover=alert(61)>x</b>\n\n"
    "<script>alert(62)</script> inlink words [go](command:evil) to [[links]] and [[html]].\n",
    "<b onmouseover=alert(63)>named.md": "#hostile [[links]]\n",
    "d1/twin`<img src=x onerror=alert(64)>`.md": "---\naliases: [twin]\n---\n# One\n",
    "d2/other.md": "---\naliases: [twin]\n---\n# Two\n",
    "a`<img src=x onerror=alert(65)>`/dup.md": "# Dup A\n",
    "b/a-folder-name-longer-than-the-other-one-so-it-ranks-second/dup.md": "# Dup B\n",
    PIC: "not an image",
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = indexed_engine(tmp_path_factory.mktemp("hostile"), HOSTILE)
    yield engine
    engine.close()


def hover_on(engine: Engine, needle: str) -> str:
    def uri_of(place: Place) -> str:  # as the server makes them (convert.place_uri)
        uri = (engine.root / place.path).as_uri()
        return f"{uri}#L{place.span.line + 1}" if place.span.line else uri

    text = hover(view_of(engine), "hub.md", *cursor(engine, "hub.md", needle, 3), uri_of)
    assert text is not None, needle
    return text


@pytest.mark.parametrize(
    "needle",
    ["[[links]]", "[[html]]", "[[tricks]]", "[[twin]]", "[[dup]]", "![p]", "[bad anchor]"],
)
def test_a_hover_on_a_hostile_note_has_nothing_live(hostile: Engine, needle: str) -> None:
    text = hover_on(hostile, needle)
    assert live(text, hostile.root) == [], text


def test_a_tag_hover_over_hostile_notes_has_nothing_live(hostile: Engine) -> None:
    text = hover_on(hostile, "#hostile")
    assert text.startswith("**#hostile** is on 6 notes")
    assert live(text, hostile.root) == [], text
    for words in ("harmless description words", "<b onmouseover=alert(63)>named", "Out"):
        assert words in shown(text)
    # A URI that is not percent-encoded: the destination is still one whole link.
    raw_uris = tag_hover(view_of(hostile), "hostile", lambda p: f"file://{hostile.root}/{p.path}")
    assert live(raw_uris, hostile.root) == []


def test_what_hostile_notes_say_is_still_shown_as_text(hostile: Engine) -> None:
    links = shown(hover_on(hostile, "[[links]]"))
    assert (
        "harmless description words //evil.example <img src=x onerror=alert(1)> [run](command:"
        in links
    )
    assert "Link words run js ent sp esc pct nl ctl" in links  # each link shows its text
    assert (
        "References ref link and [shortcut] and collapsed and nested a inner b and [wiki]" in links
    )
    assert "list item li words" in links and "task second item" in links
    assert "[r]:" not in links and "[indented]:" not in links  # definitions show nothing
    assert "Bare mail evil@example.com" in links and "https://fine.example/ok" in links
    assert "<img src=x onerror=alert(60)> Out — harmless description words" in links  # outlink
    assert "In <b onmouseover=alert(61)>x</b> — <script>alert(62)</script> inlink words" in links
    page = shown(hover_on(hostile, "[[html]]"))
    assert "Html words <script>alert(30)</script>" in page
    assert "hidden and" in page and "away" not in page  # a comment stays hidden
    assert "Sub heading <b onmouseover=alert(40)>x</b> h <img src=x onerror=alert(41)>" in page
    assert "Entities &lt;script&gt;alert(37)" in page  # an entity shows as written


def test_a_note_keeps_its_look_without_its_html(hostile: Engine) -> None:
    text = hover_on(hostile, "[[plain]]")
    rendered = RENDER.render(text)
    assert "Plain words about cooking rice." in rendered
    assert "<em>emphasis</em>" in rendered and "<strong>strong</strong>" in rendered
    assert "<code>inline &lt;code&gt;</code>" in rendered
    assert "<li>first item</li>" in rendered
    assert '<pre><code class="language-python">if a &lt; b and c &gt; d' in rendered
    assert "<strong>Details</strong>" in rendered and "More words." in rendered
    assert live(text, hostile.root) == []


def test_code_spans_hold_paths_and_anchors_with_backticks(hostile: Engine) -> None:
    anchored = hover_on(hostile, "[bad anchor]")
    assert "No `` #`<img src=x onerror=alert(5)>` `` in this note" in anchored
    twin = hover_on(hostile, "[[twin]]")
    assert "Showing ``d1/twin`<img src=x onerror=alert(64)>`.md``." in twin
    assert "Attachment ``pic`<img src=x onerror=alert(6)>`.png``" in hover_on(hostile, "![p]")


# -- properties of the escaping itself ------------------------------------------------------------


@pytest.mark.parametrize(
    "note",
    [
        # Markup that only appears once a comment or a link is taken out of the line:
        ["<!---->~~~", "~~~~", "<script>"],  # a fence, which would end where ours begins
        ["[~~~](x)", "~~~~", "<script>"],
        ["[``a``](x)`<b>`"],  # one backtick run out of two code spans
        ["`a`<!-- -->``<b>``"],
        ["a/<!-- -->/evil.example"],  # `//`, which linkify links
        ["[a/](x)/evil.example"],
        ["[a&](x)amp;"],  # an entity
        # Markup the client reads across lines or cells, where a line-by-line reading does not:
        ["- ```", "  <script>", "  ```", "<img src=x onerror=alert(1)>"],
        ["Split `x", "y` <script> `z`"],
        ["| a | b |", "|---|---|", "| `c | <img src=x onerror=alert(1)>` | d |"],
    ],
)
def test_markup_made_by_removing_or_splitting_stays_dead(note: list[str]) -> None:
    markdown = "\n".join(safe_markdown(note))
    assert live(markdown, NO_VAULT) == [], markdown


PIECES = [
    *"<>&[]()!`\\*_|#-+=~:/@\"' \t\n\r\x00\x01\x7f",
    "``", "```", "```py", "~~~", "~~~~", "    ", "> ", "- ", "1. ", "$$", "a", "b", "x.com", "www.",
    "javascript:", "JaVaScRiPt:", "command:", "vbscript:", "data:", "file:", "http:", "https://",
    "ftp:", "mailto:", "&#x61;", "&#106;", "&lt;", "&#10;", "&amp", ";", "%6A", "<!--", "-->",
    "<!-->", "<!---->", "<![CDATA[", "]]>", "<?", "?>", "<!DOCTYPE", "script", "img", " onerror=",
    "<a href=", "iframe", "](", "][", "]:", "<http://x>", "|---|", "| `a` |", "`a`", "\\`",
    "\\<", "[a](b)", "[[", "[~~~](x)",
]  # fmt: skip
TEXT = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
NO_VAULT = Path("/nonexistent-vault")


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_escaped_text_shows_exactly_itself_and_nothing_live(text: str) -> None:
    escaped = escape_text(text)
    assert live(escaped, NO_VAULT) == [], escaped
    assert shown(escaped) == " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", text).split())


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_a_code_span_shows_exactly_its_text(text: str) -> None:
    markdown = f"x {code_span(text)}"
    assert live(markdown, NO_VAULT) == [], markdown
    codes = re.findall(r"<code>(.*?)</code>", RENDER.render(markdown), re.DOTALL)
    assert [html.unescape(c) for c in codes] == [re.sub(r"[\x00-\x1f\x7f]", " ", text) or " "]


@settings(max_examples=600, deadline=None)
@given(st.lists(TEXT, max_size=12))
def test_a_sanitised_excerpt_has_nothing_live(lines: list[str]) -> None:
    note = "\n".join(lines).split("\n")
    markdown = "\n".join(safe_markdown(note))
    assert live(markdown, NO_VAULT) == [], markdown
