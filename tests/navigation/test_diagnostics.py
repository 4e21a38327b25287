"""Problems with links as a library (navigation/diagnostics.py), on a small hand-built vault."""

from __future__ import annotations

from memlsp.engine.engine import Engine
from memlsp.navigation.diagnostics import Code, Levels, Severity, note_problems
from tests.helpers.fixtures import engine_fixture
from tests.helpers.vault import write

NOTE = (
    "# Source\n"
    "[[Later]] and ![[missing.png]]\n"
    "[[Target#Real]] [[Target#Gone]] [[Target#^blk]] [[Target#^nope]]\n"
    "[[ideas]] [up](../../outside.md) [web](https://example.com/x.md) [[#Source]]\n"
    "[there](file:///etc/hosts)\n"
)


engine = engine_fixture(
    "diagnostics",
    {
        "Source.md": NOTE,
        "Target.md": "# Target\n\n## Real\n\nA line. ^blk\n",
        "travel/ideas.md": "# Travel ideas\n",
        "cooking/ideas.md": "# Cooking ideas\n",
    },
)


def test_each_kind_of_problem_with_its_severity_and_the_whole_link(engine: Engine) -> None:
    problems = note_problems(engine.read().view, "Source.md", Levels())
    lines = NOTE.split("\n")
    found = [(p.code, p.severity, lines[p.span.line][p.span.start : p.span.end]) for p in problems]
    assert found == [
        (Code.UNRESOLVED, Severity.INFORMATION, "[[Later]]"),
        (Code.UNRESOLVED, Severity.INFORMATION, "![[missing.png]]"),
        (Code.MISSING_HEADING, Severity.WARNING, "[[Target#Gone]]"),
        (Code.MISSING_BLOCK, Severity.WARNING, "[[Target#^nope]]"),
        (Code.AMBIGUOUS, Severity.INFORMATION, "[[ideas]]"),
        (Code.OUTSIDE, Severity.WARNING, "[up](../../outside.md)"),
        (Code.OUTSIDE, Severity.WARNING, "[there](file:///etc/hosts)"),
    ]
    by_code = {p.code: p for p in problems}
    assert problems[0].message == "No note named “Later” yet."
    assert problems[1].message == "No file named “missing.png” yet."
    assert by_code[Code.MISSING_HEADING].message == "Target.md has no heading “Gone”."
    ambiguous = by_code[Code.AMBIGUOUS]
    assert ambiguous.candidates == ("travel/ideas.md", "cooking/ideas.md")  # the shorter path first
    assert "it opens travel/ideas.md; also cooking/ideas.md" in ambiguous.message


def test_each_kind_can_be_turned_off_or_given_another_severity(engine: Engine) -> None:
    quiet = Levels.named("off", "off", "off", "off")
    assert note_problems(engine.read().view, "Source.md", quiet) == []
    loud = Levels.named("error", "hint", "off", "off")
    codes = {(p.code, p.severity) for p in note_problems(engine.read().view, "Source.md", loud)}
    assert codes == {
        (Code.UNRESOLVED, Severity.ERROR),
        (Code.MISSING_HEADING, Severity.HINT),
        (Code.MISSING_BLOCK, Severity.HINT),
    }


def test_a_new_note_clears_the_problem_of_a_link_to_it(engine: Engine) -> None:
    write(engine.root, "Later.md", "# Later\n")
    engine.refresh()
    codes = [p.code for p in note_problems(engine.read().view, "Source.md", Levels())]
    assert codes.count(Code.UNRESOLVED) == 1  # the image is still missing
    (engine.root / "Later.md").unlink()
    engine.refresh()
